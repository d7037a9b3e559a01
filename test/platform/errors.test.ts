import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError, PlatformError, STATUS_OF_KIND, type ErrorKind } from '../../src/platform/errors.ts';
import { ONE_ERROR_PER_REASON, reasons } from '../helpers/platform-errors.ts';

describe('platform errors', () => {
  it("are AppErrors whose code is their reason and whose status is their kind's", () => {
    for (const reason of reasons) {
      const error = ONE_ERROR_PER_REASON[reason];
      assert.ok(error instanceof PlatformError && error instanceof AppError, reason);
      assert.equal(error.reason, reason);
      assert.equal(error.code, reason);
      assert.equal(error.status, STATUS_OF_KIND[error.kind], reason);
      assert.equal(error.name, reason === 'database_busy' ? 'DatabaseBusyError' : `${error.kind}Error`);
    }
  });

  it("name no surface's codes: reasons are neutral snake_case words", () => {
    for (const reason of reasons) assert.match(reason, /^(?!rest_)[a-z]+(_[a-z]+)*$/);
  });

  it('have at least one reason of every kind', () => {
    const kinds = new Set(reasons.map((reason) => ONE_ERROR_PER_REASON[reason].kind));
    assert.deepEqual([...kinds].sort(), (Object.keys(STATUS_OF_KIND) as ErrorKind[]).sort());
  });

  it('carry the headers their kind calls for: a challenge for bad credentials, Retry-After when waiting helps', () => {
    assert.deepEqual(ONE_ERROR_PER_REASON.wrong_credentials.headers, { 'www-authenticate': 'Basic realm="almanac"' });
    assert.deepEqual(ONE_ERROR_PER_REASON.malformed_authorization.headers, { 'www-authenticate': 'Basic realm="almanac"' });
    assert.deepEqual(ONE_ERROR_PER_REASON.token_rejected.headers, {
      'www-authenticate': 'Bearer realm="almanac", error="invalid_token"',
    });
    // An anonymous caller of a guarded route is asked to sign in, without a challenge a browser would prompt for.
    assert.deepEqual(ONE_ERROR_PER_REASON.credentials_required.headers, {});
    assert.deepEqual(ONE_ERROR_PER_REASON.rate_limited.headers, { 'retry-after': '3' });
    assert.deepEqual(ONE_ERROR_PER_REASON.database_busy.headers, { 'retry-after': '1' });
    assert.deepEqual(ONE_ERROR_PER_REASON.database_unreachable.headers, {});
  });
});
