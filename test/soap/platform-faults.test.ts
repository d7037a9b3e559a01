import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Reason } from '../../src/platform/errors.ts';
import { faultOfPlatformError } from '../../src/soap/faults.ts';
import { ONE_ERROR_PER_REASON, reasons } from '../helpers/platform-errors.ts';

type Expected = readonly ['Client' | 'FailedAuthentication' | 'Server', number];
const client: Expected = ['Client', 500];
const failedAuthentication: Expected = ['FailedAuthentication', 500];
const server: Expected = ['Server', 500];

/** Each platform reason's fault code and HTTP status (500 by the SOAP 1.1 HTTP binding, but for an oversized body). */
const EXPECTED: Readonly<Record<Reason, Expected>> = {
  malformed_json: client,
  json_too_deep: client,
  malformed_request: client,
  invalid_parameter: client,
  missing_parameter: client,
  unknown_role: client,
  invalid_username: client,
  invalid_password: client,
  credentials_required: failedAuthentication,
  wrong_credentials: failedAuthentication,
  malformed_authorization: failedAuthentication,
  token_rejected: failedAuthentication,
  not_allowed: client,
  no_route: client,
  unknown_user: client,
  unknown_token: client,
  concurrent_write: client,
  duplicate_username: client,
  body_too_large: ['Client', 413],
  unsupported_media_type: client,
  rate_limited: client,
  database_busy: server,
  database_unreachable: server,
  unexpected: server,
};

describe('SOAP faults of platform errors', () => {
  it('give every platform reason its fault code and status', () => {
    for (const reason of reasons) {
      const fault = faultOfPlatformError(ONE_ERROR_PER_REASON[reason], 'req-1');
      assert.deepEqual([fault.code, fault.status], EXPECTED[reason], reason);
    }
  });

  it('say what happened, except for a server failure other than a busy database', () => {
    for (const reason of reasons) {
      const error = ONE_ERROR_PER_REASON[reason];
      const hidden = reason === 'database_unreachable' || reason === 'unexpected';
      assert.equal(faultOfPlatformError(error, 'req-1').reason, hidden ? 'internal error (request id req-1)' : error.message, reason);
    }
  });
});
