import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe('rate limiting (RATE_LIMIT_PER_MINUTE)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ RATE_LIMIT_PER_MINUTE: '3', TRUST_PROXY: 'true' });
  });
  after(async () => server.close());

  it('counts per address for anonymous callers and answers 429 with Retry-After past the limit', async () => {
    const from = (address: string) => server.request('/healthz', { headers: { 'x-forwarded-for': address } });
    const first = await from('10.1.0.1');
    assert.equal(first.headers.get('ratelimit-limit'), '3');
    assert.equal(first.headers.get('ratelimit-remaining'), '2');
    await from('10.1.0.1');
    await from('10.1.0.1');
    const limited = await from('10.1.0.1');
    assert.equal(limited.status, 429);
    assert.equal(limited.body.code, 'rest_too_many_requests');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal((await from('10.1.0.2')).status, 200);
  });

  it('counts per credential for signed-in callers, whatever their address', async () => {
    const editor = await server.createUser('editor');
    for (let i = 0; i < 3; i += 1) {
      const response = await server.request('/', { auth: editor, headers: { 'x-forwarded-for': `10.2.0.${i}` } });
      assert.equal(response.status, 200);
    }
    assert.equal((await server.request('/', { auth: editor, headers: { 'x-forwarded-for': '10.2.0.9' } })).status, 429);
  });
});
