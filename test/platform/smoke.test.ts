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
    assert.deepEqual(response.body.namespaces, ['calendar/events/v1', 'wp/v2']);
  });

  describe('GET / negotiated by Accept', () => {
    // What Chromium and Firefox send when a person opens a URL.
    const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
    const root = (init: RequestInit = {}) => fetch(`${server.url}/`, { redirect: 'manual', ...init });
    const varies = (response: Response) => (response.headers.get('vary') ?? '').split(',').map((field) => field.trim().toLowerCase());

    it("sends a browser to the calendar's pages with a 303, and the page it names is the month", async () => {
      for (const accept of [BROWSER, 'text/html', 'application/json;q=0.5, text/html']) {
        const response = await root({ headers: { accept } });
        assert.equal(response.status, 303, accept);
        assert.equal(response.headers.get('location'), '/events/', accept);
        assert.ok(varies(response).includes('accept'), accept);
        assert.equal(await response.text(), '', accept);
      }
      const page = await fetch(new URL('/events/', server.url), { headers: { accept: BROWSER } });
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      const head = await root({ method: 'HEAD', headers: { accept: BROWSER } });
      assert.equal(head.status, 303);
    });

    it('keeps the JSON index for API clients: no Accept, */*, JSON first or preferred, and a tie', async () => {
      for (const accept of [
        undefined,
        '*/*',
        'application/json',
        'application/json, text/plain, */*',
        'text/html;q=0.5, application/json',
        'text/html, application/json',
        'text/*',
      ]) {
        const response = await root(accept === undefined ? {} : { headers: { accept } });
        assert.equal(response.status, 200, String(accept));
        assert.ok(varies(response).includes('accept'), String(accept));
        assert.deepEqual(((await response.json()) as { namespaces: string[] }).namespaces, ['calendar/events/v1', 'wp/v2'], String(accept));
      }
      // wpapi's discovery: HEAD / and its Link header.
      const head = await root({ method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.match(head.headers.get('link') ?? '', /rel="https:\/\/api\.w\.org\/"/);
      // The API's own arguments ask for the API, whatever the Accept: the envelope, fields, a rest_route on the root.
      for (const accept of [undefined, 'application/json', BROWSER]) {
        const headers: HeadersInit = accept === undefined ? {} : { accept };
        const enveloped = await fetch(`${server.url}/?_envelope`, { headers, redirect: 'manual' });
        assert.equal(enveloped.status, 200, String(accept));
        const envelope = (await enveloped.json()) as { status: number; body: { namespaces: string[] } };
        assert.deepEqual([envelope.status, envelope.body.namespaces], [200, ['calendar/events/v1', 'wp/v2']], String(accept));
        const fields = await fetch(`${server.url}/?_fields=namespaces`, { headers, redirect: 'manual' });
        assert.deepEqual(await fields.json(), { namespaces: ['calendar/events/v1', 'wp/v2'] }, String(accept));
        const routed = await fetch(`${server.url}/?rest_route=/`, { headers, redirect: 'manual' });
        assert.equal(routed.status, 200, String(accept));
        assert.ok(varies(routed).includes('accept'), String(accept));
      }
      // The contract: the index as the OpenAPI document describes it.
      assert.equal((await server.request('/', { headers: { accept: 'application/json' } })).status, 200);
    });
  });
});
