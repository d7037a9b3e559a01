import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe('platform smoke', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  it('serves the API index with the calendar namespace', async () => {
    const response = await server.request('/');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body.namespaces, ['calendar/events/v1']);
  });
});
