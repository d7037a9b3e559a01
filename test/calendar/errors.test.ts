import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toWpError } from '../../src/calendar/errors.ts';
import { AppError, type Reason } from '../../src/platform/errors.ts';
import { ONE_ERROR_PER_REASON, reasons } from '../helpers/platform-errors.ts';

/** Each platform reason's WordPress status and code: WordPress's own codes, as every WordPress-shaped route answers. */
const EXPECTED: Readonly<Record<Reason, readonly [number, string]>> = {
  malformed_json: [400, 'rest_invalid_json'],
  json_too_deep: [400, 'rest_invalid_json'],
  malformed_request: [400, 'rest_bad_request'],
  invalid_parameter: [400, 'rest_invalid_param'],
  missing_parameter: [400, 'rest_missing_callback_param'],
  unknown_role: [400, 'unknown_role'],
  invalid_username: [400, 'invalid_username'],
  invalid_password: [400, 'invalid_password'],
  credentials_required: [401, 'rest_forbidden'],
  wrong_credentials: [401, 'invalid_credentials'],
  malformed_authorization: [401, 'invalid_authorization_header'],
  token_rejected: [401, 'invalid_token'],
  not_allowed: [403, 'rest_forbidden'],
  no_route: [404, 'rest_no_route'],
  unknown_user: [404, 'unknown_user'],
  unknown_token: [404, 'unknown_token'],
  concurrent_write: [409, 'rest_conflict'],
  duplicate_username: [409, 'duplicate_username'],
  body_too_large: [413, 'rest_payload_too_large'],
  unsupported_media_type: [415, 'rest_unsupported_media_type'],
  rate_limited: [429, 'rest_too_many_requests'],
  database_busy: [503, 'database_busy'],
  database_unreachable: [503, 'internal_error'],
  unexpected: [500, 'internal_error'],
};

describe('WordPress errors of platform errors', () => {
  it('give every platform reason its WordPress status and code, and keep its headers', () => {
    for (const reason of reasons) {
      const error = ONE_ERROR_PER_REASON[reason];
      const { status, body, headers } = toWpError(error, 'req-1');
      assert.deepEqual([status, body.code], EXPECTED[reason], reason);
      assert.equal(body.data.status, status, reason);
      assert.deepEqual(headers, error.headers, reason);
    }
  });

  it("say what happened, with the error's data", () => {
    assert.deepEqual(toWpError(ONE_ERROR_PER_REASON.json_too_deep, 'req-1').body, {
      code: 'rest_invalid_json',
      message: 'The request body nests arrays and objects deeper than 32 levels.',
      data: { status: 400, max_depth: 32 },
    });
    assert.deepEqual(toWpError(ONE_ERROR_PER_REASON.database_busy, 'req-1').body, {
      code: 'database_busy',
      message: 'The database is busy with another write; nothing was changed, try again shortly.',
      data: { status: 503 },
    });
    assert.deepEqual(toWpError(ONE_ERROR_PER_REASON.missing_parameter, 'req-1').body, {
      code: 'rest_missing_callback_param',
      message: 'Missing parameter(s): id',
      data: { status: 400, params: ['id'] },
    });
    assert.deepEqual(toWpError(ONE_ERROR_PER_REASON.invalid_parameter, 'req-1').body, {
      code: 'rest_invalid_param',
      message: 'Invalid parameter(s): page',
      data: { status: 400, params: { page: 'page is not of type integer.' }, details: {} },
    });
  });

  it('hide any other 5xx behind internal_error and the request id', () => {
    for (const error of [ONE_ERROR_PER_REASON.database_unreachable, ONE_ERROR_PER_REASON.unexpected, new Error('secret')]) {
      const { status, body } = toWpError(error, 'req-1');
      assert.deepEqual(body, { code: 'internal_error', message: 'internal error', data: { status, request_id: 'req-1' } });
    }
  });

  it("render the calendar's own errors with their codes", () => {
    const { status, body } = toWpError(new AppError(410, 'event-is-in-trash', 'The event is already trashed'), 'req-1');
    assert.equal(status, 410);
    assert.deepEqual(body, { code: 'event-is-in-trash', message: 'The event is already trashed', data: { status: 410 } });
  });
});
