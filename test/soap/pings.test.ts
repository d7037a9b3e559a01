import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { envelope, listPings, pingBody, postSoap } from './soap-fixtures.ts';

describe('GET /soap/pings', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  it('is for administrators only', async () => {
    const anonymous = await server.request('/soap/pings');
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.code, 'rest_forbidden');
    const editor = await server.request('/soap/pings', { auth: await server.createUser('editor') });
    assert.equal(editor.status, 403);
  });

  it('lists an empty log', async () => {
    assert.deepEqual(await listPings(server), { pings: [], total: 0, total_pages: 0 });
  });

  it('pages through pings, newest first', async () => {
    for (const input of ['first', 'second', 'third']) {
      assert.equal((await postSoap(server, envelope({ body: pingBody(input) }))).status, 202);
    }
    const page1 = await listPings(server, '?per_page=2');
    assert.deepEqual(
      page1.pings.map((ping) => ping.ping_input),
      ['third', 'second'],
    );
    assert.equal(page1.total, 3);
    assert.equal(page1.total_pages, 2);
    assert.deepEqual(Object.keys(page1.pings[0] ?? {}), ['id', 'received_at', 'ping_input', 'username', 'client_address']);
    const page2 = await listPings(server, '?per_page=2&page=2');
    assert.deepEqual(
      page2.pings.map((ping) => ping.ping_input),
      ['first'],
    );
    assert.deepEqual((await listPings(server, '?per_page=2&page=3')).pings, []);
  });

  it('rejects per_page above 100 and a page below 1 or beyond any offset a database holds, naming the parameter', async () => {
    const admin = await server.admin();
    const cases = [
      ['per_page=101', 'per_page'],
      ['page=0', 'page'],
      ['page=two', 'page'],
      ['page=1000001', 'page'],
      ['page=1.7976931348623157e%2B308', 'page'],
    ] as const;
    for (const [query, param] of cases) {
      const response = await server.request(`/soap/pings?${query}`, { auth: admin });
      assert.equal(response.status, 400, query);
      assert.equal(response.body.code, 'rest_invalid_param');
      assert.ok(param in response.body.data.params, query);
    }
  });
});
