import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe('WSDL behind a public BASE_URL with a path', () => {
  const BASE_URL = 'https://probe.example.test/almanac';
  let server: TestServer;
  let localUrl: string;
  before(async () => {
    server = await startTestServer({ BASE_URL, PORT: '0' });
    localUrl = `http://127.0.0.1:${(server.server.app.server.address() as AddressInfo).port}/almanac`;
  });
  after(async () => server.close());

  it('serves the WSDL under the base path, with soap:address at the public URL', async () => {
    const response = await fetch(`${localUrl}/soap/PingService?wsdl`);
    assert.equal(response.status, 200);
    assert.match(await response.text(), new RegExp(`<soap:address location="${BASE_URL}/soap/PingService"/>`));
  });
});
