import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { ENTITIES } from './factories.ts';

describe('entity-management under a request rate limit', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ RATE_LIMIT_PER_MINUTE: '3' });
  });
  after(async () => server.close());

  it('answers TOO_MANY_REQUESTS 429 with Retry-After in the envelope once the limit is used', async () => {
    const reader = await server.createUser('subscriber');
    for (let i = 0; i < 3; i += 1) {
      assert.equal((await server.request(`${ENTITIES}/customers`, { auth: reader })).status, 200);
    }
    const limited = await server.request(`${ENTITIES}/customers`, { auth: reader });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.messages[0].code, 'TOO_MANY_REQUESTS');
    assert.equal(limited.body.payload, null);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
  });
});
