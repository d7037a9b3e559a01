import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toErrorEnvelope } from '../../src/entity-management/envelope.ts';
import { EntityErrors, type ErrorCode } from '../../src/entity-management/errors.ts';
import { AppError, type Reason } from '../../src/platform/errors.ts';
import { ONE_ERROR_PER_REASON, reasons } from '../helpers/platform-errors.ts';

/** Each platform reason's code on this surface (its status follows from ERROR_STATUS). */
const EXPECTED: Readonly<Record<Reason, readonly [number, ErrorCode]>> = {
  malformed_json: [400, 'INVALID_PARAMETER'],
  json_too_deep: [400, 'INVALID_PARAMETER'],
  malformed_request: [400, 'INVALID_PARAMETER'],
  invalid_parameter: [400, 'INVALID_PARAMETER'],
  missing_parameter: [400, 'INVALID_PARAMETER'],
  unknown_role: [400, 'INVALID_PARAMETER'],
  invalid_username: [400, 'INVALID_PARAMETER'],
  invalid_password: [400, 'INVALID_PARAMETER'],
  credentials_required: [401, 'UNAUTHORIZED'],
  wrong_credentials: [401, 'UNAUTHORIZED'],
  malformed_authorization: [401, 'UNAUTHORIZED'],
  token_rejected: [401, 'UNAUTHORIZED'],
  not_allowed: [403, 'FORBIDDEN'],
  no_route: [404, 'ROUTE_NOT_FOUND'],
  unknown_user: [404, 'ROUTE_NOT_FOUND'],
  unknown_token: [404, 'ROUTE_NOT_FOUND'],
  concurrent_write: [409, 'KEY_CONFLICT'],
  duplicate_username: [409, 'KEY_CONFLICT'],
  body_too_large: [413, 'PAYLOAD_TOO_LARGE'],
  unsupported_media_type: [415, 'UNSUPPORTED_MEDIA_TYPE'],
  rate_limited: [429, 'TOO_MANY_REQUESTS'],
  database_busy: [503, 'DATABASE_BUSY'],
  database_unreachable: [500, 'INTERNAL_ERROR'],
  unexpected: [500, 'INTERNAL_ERROR'],
};

describe('entity-management envelopes of platform errors', () => {
  it("give every platform reason this surface's status and code", () => {
    for (const reason of reasons) {
      const { status, body } = toErrorEnvelope(ONE_ERROR_PER_REASON[reason], 'req-1');
      assert.deepEqual([status, body.messages[0]?.code], EXPECTED[reason], reason);
      assert.equal(body.payload, null);
    }
  });

  it('answer a busy database with 503 DATABASE_BUSY and Retry-After, not a 500', () => {
    assert.deepEqual(toErrorEnvelope(ONE_ERROR_PER_REASON.database_busy, 'req-1'), {
      status: 503,
      headers: { 'retry-after': '1' },
      body: {
        messages: [
          {
            level: 'error',
            code: 'DATABASE_BUSY',
            text: 'The database is busy with another write; nothing was changed, try again shortly.',
          },
        ],
        payload: null,
      },
    });
  });

  it("keep the challenge and Retry-After headers, and the error's details", () => {
    assert.deepEqual(toErrorEnvelope(ONE_ERROR_PER_REASON.wrong_credentials, 'req-1').headers, {
      'www-authenticate': 'Basic realm="almanac"',
    });
    assert.deepEqual(toErrorEnvelope(ONE_ERROR_PER_REASON.rate_limited, 'req-1').headers, { 'retry-after': '3' });
    assert.deepEqual(toErrorEnvelope(ONE_ERROR_PER_REASON.json_too_deep, 'req-1').body.messages[0]?.details, { max_depth: 32 });
    assert.deepEqual(toErrorEnvelope(ONE_ERROR_PER_REASON.missing_parameter, 'req-1').body.messages[0]?.details, { id: 'is required' });
  });

  it('hide a 500 behind "internal error" and the request id, without headers', () => {
    for (const error of [ONE_ERROR_PER_REASON.database_unreachable, ONE_ERROR_PER_REASON.unexpected, new Error('secret')]) {
      assert.deepEqual(toErrorEnvelope(error, 'req-1'), {
        status: 500,
        headers: {},
        body: {
          messages: [{ level: 'error', code: 'INTERNAL_ERROR', text: 'internal error', details: { request_id: 'req-1' } }],
          payload: null,
        },
      });
    }
  });

  it("render this surface's own errors with their codes, and another surface's code as the bug it is", () => {
    const { status, body } = toErrorEnvelope(EntityErrors.recordNotFound('c-1'), 'req-1');
    assert.equal(status, 404);
    assert.deepEqual(body.messages, [
      { level: 'error', code: 'RECORD_NOT_FOUND', text: 'No record with key "c-1"', details: { key: 'c-1' } },
    ]);
    assert.equal(toErrorEnvelope(new AppError(404, 'rest-event-not-found', 'Event with ID 1 does not exist.'), 'req-1').status, 500);
  });
});
