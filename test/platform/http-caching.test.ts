/**
 * What HTTP caches may keep (issue 37): anonymous reads of the API, the
 * pages and the feeds are public for HTTP_CACHE_MAX_AGE_SECONDS with a
 * strong ETag; a read with credentials, a cookie or a password is private
 * and stored nowhere; writes and errors are never stored.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from '../calendar/events.factories.ts';

const PUBLIC = 'public, max-age=10, stale-while-revalidate=10';
const STRONG_TAG = /^"[^"]+"$/;

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/**
 * A request as a browser or a cache sends it: pages are no operation of the OpenAPI document, so no contract check
 * here. It asks for the answer as it is: compression and its Vary have their own test (compression.test.ts).
 */
async function send(server: TestServer, path: string, init: RequestInit = {}, auth?: Credentials): Promise<Answer> {
  const headers = new Headers({ 'accept-encoding': 'identity', ...Object.fromEntries(new Headers(init.headers)) });
  if (auth !== undefined) headers.set('authorization', auth.bearer);
  const response = await fetch(`${server.url}${path}`, { redirect: 'manual', ...init, headers });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

function varies(headers: Headers): string[] {
  return (headers.get('vary') ?? '').split(',').map((name) => name.trim().toLowerCase());
}

describe('Cache-Control and Vary of every answer', () => {
  let server: TestServer;
  let admin: Credentials;
  let event: any;
  let locked: any;
  before(async () => {
    server = await startTestServer({ CORS_ORIGINS: 'https://app.example' });
    admin = await server.admin();
    event = await makeEvent(server, admin, { status: 'publish', title: 'Open air' });
    locked = await makeEvent(server, admin, { status: 'publish', title: 'Members only', password: 'sesame' });
  });
  after(async () => server.close());

  const anonymousReads = () => [
    `${EVENTS}/${event.id}`,
    `${EVENTS}?per_page=5`,
    `${EVENTS}.ics`,
    `${EVENTS}/${event.id}.ics`,
    '/calendar/events/v1/categories',
    `/event/${event.slug}/`,
    '/events/list/',
  ];

  it('lets shared caches keep an anonymous read for the default 10 s, with a strong ETag, and says so again on a 304', async () => {
    for (const path of anonymousReads()) {
      const first = await send(server, path);
      assert.equal(first.status, 200, `${path}: ${first.text.slice(0, 200)}`);
      assert.equal(first.headers.get('cache-control'), PUBLIC, path);
      // A page is the same whoever asks; an API answer is not.
      assert.equal(
        varies(first.headers).includes('authorization'),
        path.startsWith('/calendar/'),
        `${path}: Vary ${first.headers.get('vary')}`,
      );
      const etag = first.headers.get('etag') ?? '';
      assert.match(etag, STRONG_TAG, path);
      const again = await send(server, path, { headers: { 'if-none-match': etag } });
      assert.equal(again.status, 304, path);
      assert.equal(again.headers.get('cache-control'), PUBLIC, `${path}: a 304 updates what a cache stored`);
      assert.equal(again.headers.get('vary'), first.headers.get('vary'), path);
    }
    const index = await send(server, '/');
    assert.equal(index.headers.get('cache-control'), PUBLIC, 'the API index');
  });

  it('keeps the Vary others set: CORS its Origin, the pages their Accept-Language (and only that)', async () => {
    const api = await send(server, `${EVENTS}/${event.id}`, { headers: { origin: 'https://app.example' } });
    assert.equal(api.headers.get('access-control-allow-origin'), 'https://app.example');
    assert.deepEqual(varies(api.headers).sort(), ['authorization', 'origin']);
    const page = await send(server, `/event/${event.slug}/`);
    assert.deepEqual(varies(page.headers), ['accept-language']);
  });

  it('stores nowhere what a signed-in caller, a cookie or a password gets: drafts, protected content, a role’s view', async () => {
    const draft = await makeEvent(server, admin, { status: 'draft', title: 'Not yet' });
    const personal: Array<[string, string, Record<string, string>, Credentials?]> = [
      ['a draft, signed in', `${EVENTS}/${draft.id}`, {}, admin],
      ['the list, signed in', `${EVENTS}?per_page=5`, {}, admin],
      ['a feed, signed in', `${EVENTS}.ics`, {}, admin],
      ['a page, signed in', `/event/${event.slug}/`, {}, admin],
      ['the index, signed in', '/', {}, admin],
      ['a protected event, unlocked', `${EVENTS}/${locked.id}?password=sesame`, {}],
      ['a list, unlocked', `${EVENTS}?include=${locked.id}&password=sesame`, {}],
      ['a feed, unlocked', `${EVENTS}/${locked.id}.ics?password=sesame`, {}],
      ['a read with a cookie', `${EVENTS}/${event.id}`, { cookie: 'session=abc' }],
      ['a page with a cookie', '/events/list/', { cookie: 'session=abc' }],
    ];
    for (const [name, path, headers, auth] of personal) {
      const response = await send(server, path, { headers }, auth);
      assert.equal(response.status, 200, `${name}: ${response.text.slice(0, 200)}`);
      assert.equal(response.headers.get('cache-control'), 'private, no-store', name);
    }
    const unlocked = await send(server, `${EVENTS}/${locked.id}?password=sesame`);
    const etag = unlocked.headers.get('etag') ?? '';
    const notModified = await send(server, `${EVENTS}/${locked.id}?password=sesame`, { headers: { 'if-none-match': etag } });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.headers.get('cache-control'), 'private, no-store');
  });

  it('stores no write and no error', async () => {
    const created = await server.request(EVENTS, {
      method: 'POST',
      auth: admin,
      body: { title: 'Written', start_date: 'tomorrow 10am', end_date: 'tomorrow 11am' },
    });
    assert.equal(created.status, 201);
    const password = await send(server, `/event/${locked.slug}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'password=sesame',
    });
    assert.equal(password.status, 200);
    const errors = await Promise.all([
      send(server, `${EVENTS}/999999`),
      send(server, `${EVENTS}?per_page=0`),
      send(server, `${EVENTS}/${locked.id}`),
      send(server, '/event/no-such-event/'),
      send(server, '/no/such/route'),
      send(server, '/', { headers: { authorization: 'Bearer not-a-token' } }),
    ]);
    assert.deepEqual(
      errors.map((response) => response.status),
      [404, 400, 403, 404, 404, 401],
    );
    for (const response of [created, password, ...errors]) {
      assert.equal(response.headers.get('cache-control'), 'no-store', `${response.status}: ${response.text.slice(0, 100)}`);
    }
  });

  it('leaves the answers that say their own: health checks, sync, the versioned stylesheet', async () => {
    assert.equal((await send(server, '/healthz')).headers.get('cache-control'), 'no-store');
    assert.equal((await send(server, '/readyz')).headers.get('cache-control'), 'no-store');
    assert.equal((await send(server, '/calendar/events/v1/changes')).headers.get('cache-control'), 'private, no-store');
    const page = await send(server, '/events/list/');
    const stylesheet = /<link rel="stylesheet" href="([^"]+)"/.exec(page.text)?.[1] ?? '';
    assert.equal((await send(server, stylesheet.replace(/^https?:\/\/[^/]+/, ''))).headers.get('cache-control'), 'public, max-age=86400');
  });
});

describe('HTTP_CACHE_MAX_AGE_SECONDS', () => {
  for (const [value, expected] of [
    ['30', 'public, max-age=30, stale-while-revalidate=30'],
    ['0', 'public, no-cache'],
  ] as const) {
    it(`sets the freshness of anonymous reads (${value}: ${expected})`, async () => {
      const server = await startTestServer({ HTTP_CACHE_MAX_AGE_SECONDS: value });
      try {
        const admin = await server.admin();
        const event = await makeEvent(server, admin, { status: 'publish' });
        for (const path of [`${EVENTS}/${event.id}`, `/event/${event.slug}/`, `${EVENTS}.ics`]) {
          assert.equal((await send(server, path)).headers.get('cache-control'), expected, path);
        }
        assert.equal((await send(server, `${EVENTS}/${event.id}`, {}, admin)).headers.get('cache-control'), 'private, no-store');
      } finally {
        await server.close();
      }
    });
  }
});
