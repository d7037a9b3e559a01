/**
 * ETags and If-None-Match on every calendar read (issue 23), as pollers and
 * mirrors send them: a strong tag of the representation, a 304 with no body
 * while it is current, a new tag once it changes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { noneMatchHits } from '../../src/platform/http/conditional-get.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from './events.factories.ts';
import { makeVenue, VENUES } from './venues-organizers.factories.ts';

/**
 * A list's, the index's or an event's sent to a caller who may not edit it: the SHA-1 of the body; an item's names
 * its row version first (issue 23's conditional writes).
 */
const STRONG_TAG = /^"[A-Za-z0-9_-]{27}"$/;
const ITEM_TAG = /^"(\d+)-[A-Za-z0-9_-]{27}"$/;

describe('conditional reads of the calendar', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  // The answers as they are: a compressed one has a tag of its own (compression.test.ts).
  const read = (path: string, headers: Record<string, string> = {}, auth?: Credentials) =>
    server.request(path, { headers: { 'accept-encoding': 'identity', ...headers }, ...(auth ? { auth } : {}) });

  for (const [name, path, shape] of [
    ['an event', (id: number) => `${EVENTS}/${id}`, STRONG_TAG],
    ['the event list', () => `${EVENTS}?per_page=5`, STRONG_TAG],
    ['a venue', (id: number, venue: number) => `${VENUES}/${venue}`, ITEM_TAG],
    ['the namespace index', () => '/calendar/events/v1', STRONG_TAG],
  ] as const) {
    it(`tags ${name}, answers 304 with no body while the tag is current, and a new tag once it changed`, async () => {
      const venue = await makeVenue(server, admin, { status: 'publish' });
      const event = await makeEvent(server, admin, { status: 'publish', venue: venue.id });
      const url = path(event.id, venue.id);
      const first = await read(url);
      assert.equal(first.status, 200, first.text);
      const etag = first.headers.get('etag') ?? '';
      assert.match(etag, shape);
      assert.equal((await read(url)).headers.get('etag'), etag, 'the same representation, the same tag');

      const unchanged = await read(url, { 'if-none-match': etag });
      assert.equal(unchanged.status, 304);
      assert.equal(unchanged.text, '');
      assert.equal(unchanged.headers.get('etag'), etag);
      assert.equal((await read(url, { 'if-none-match': `"other", W/${etag}` })).status, 304, 'a list, compared weakly');
      assert.equal((await read(url, { 'if-none-match': '*' })).status, 304);
      assert.equal((await read(url, { 'if-none-match': '"other"' })).status, 200);

      if (name === 'the namespace index') return;
      const renamed = await server.request(`${VENUES}/${venue.id}`, {
        method: 'POST',
        auth: admin,
        body: { venue: `Renamed ${venue.id}` },
      });
      assert.equal(renamed.status, 200, renamed.text);
      const edited = await server.request(`${EVENTS}/${event.id}`, { method: 'PATCH', auth: admin, body: { title: 'Changed' } });
      assert.equal(edited.status, 200, edited.text);
      const changed = await read(url, { 'if-none-match': etag });
      assert.equal(changed.status, 200, 'a changed representation is sent in full');
      assert.notEqual(changed.headers.get('etag'), etag);
    });
  }

  it('tags what each caller is sent: another language, an editor or a password gets its own tag', async () => {
    const event = await makeEvent(server, admin, { status: 'publish', title: 'Concert' });
    await server.request(`${EVENTS}/${event.id}?translation_language=it`, { method: 'PATCH', auth: admin, body: { title: 'Concerto' } });
    const english = (await read(`${EVENTS}/${event.id}`)).headers.get('etag');
    const italian = (await read(`${EVENTS}/${event.id}?translation_language=it`)).headers.get('etag');
    assert.notEqual(english, italian);

    const locked = await makeEvent(server, admin, { status: 'publish', password: 'opensesame', description: '<p>Backstage at 9</p>' });
    const anonymous = (await read(`${EVENTS}/${locked.id}`)).headers.get('etag') ?? '';
    const asEditor = await read(`${EVENTS}/${locked.id}?context=edit`, { 'if-none-match': anonymous }, admin);
    assert.equal(asEditor.status, 200, 'the editor is sent the content the anonymous tag stood without');
    assert.notEqual(asEditor.headers.get('etag'), anonymous);
    const unlocked = await read(`${EVENTS}/${locked.id}?password=opensesame`, { 'if-none-match': anonymous });
    assert.equal(unlocked.status, 200);
  });

  it("tags an item's answers with its version: a read by another caller names the same one, a write answers with the next", async () => {
    const event = await makeEvent(server, admin, { status: 'publish', title: 'Concert' });
    await server.request(`${EVENTS}/${event.id}?translation_language=it`, { method: 'PATCH', auth: admin, body: { title: 'Concerto' } });
    const versionOf = (response: { headers: Headers }) => ITEM_TAG.exec(response.headers.get('etag') ?? '')?.[1];
    const editor = await server.createUser('editor');
    const english = await read(`${EVENTS}/${event.id}`, {}, editor);
    const italian = await read(`${EVENTS}/${event.id}?translation_language=it`, {}, admin);
    assert.notEqual(english.headers.get('etag'), italian.headers.get('etag'), 'two representations');
    assert.equal(versionOf(english), versionOf(italian), 'of one version');
    const edited = await server.request(`${EVENTS}/${event.id}`, { method: 'PATCH', auth: admin, body: { title: 'Edited' } });
    assert.match(edited.headers.get('etag') ?? '', ITEM_TAG);
    assert.ok(Number(versionOf(edited)) > Number(versionOf(english)));
    assert.equal(versionOf(await read(`${EVENTS}/${event.id}`, {}, editor)), versionOf(edited));
    assert.match((await read(`${EVENTS}/${event.id}`)).headers.get('etag') ?? '', STRONG_TAG, 'an anonymous caller writes nothing');
  });

  it('answers a 304 without Content-Length or Content-Type, to GET and HEAD, on every surface that answers one', async () => {
    const event = await makeEvent(server, admin, { status: 'publish', title: 'Bodiless' });
    // Pages are no operation of the document: fetched directly.
    const fetchAs = (url: string, method: string, headers: Record<string, string> = {}) =>
      fetch(`${server.url}${url}`, { method, headers });
    for (const url of [
      `${EVENTS}/${event.id}`,
      `${EVENTS}?per_page=5`,
      '/calendar/events/v1',
      '/calendar/events/v1/categories',
      '/calendar/events/v1/events.ics',
      '/events/',
      `/event/${event.slug}/`,
    ]) {
      const etag = (await fetchAs(url, 'GET')).headers.get('etag') ?? '';
      for (const method of ['GET', 'HEAD']) {
        const unchanged = await fetchAs(url, method, { 'if-none-match': etag });
        assert.equal(unchanged.status, 304, `${method} ${url}`);
        assert.equal(unchanged.headers.get('etag'), etag, `${method} ${url}`);
        assert.equal(unchanged.headers.get('content-length'), null, `${method} ${url}`);
        assert.equal(unchanged.headers.get('content-type'), null, `${method} ${url}`);
        assert.equal(await unchanged.text(), '');
      }
      const head = await fetchAs(url, 'HEAD');
      assert.equal(head.status, 200, `HEAD ${url}`);
      assert.notEqual(head.headers.get('content-type'), null, 'a 200 keeps its type');
    }
  });

  it('never answers 304 to a write or to an error, whatever If-None-Match says', async () => {
    const created = await server.request(EVENTS, {
      method: 'POST',
      auth: admin,
      headers: { 'if-none-match': '*' },
      body: { title: 'New', start_date: 'tomorrow 10am', end_date: 'tomorrow 11am' },
    });
    assert.equal(created.status, 201, created.text);
    const missing = await read(`${EVENTS}/999999`, { 'if-none-match': '*' });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('etag'), null);
  });
});

describe('If-None-Match fields', () => {
  const tag = '"abc"';
  for (const [field, hits] of [
    [undefined, false],
    ['"abc"', true],
    ['W/"abc"', true],
    [' "x" , "abc" ', true],
    ['*', true],
    ['"abcd"', false],
    ['abc', false],
    ['', false],
  ] as const) {
    it(`${JSON.stringify(field)} ${hits ? 'matches' : 'does not match'} "abc"`, () => {
      assert.equal(noneMatchHits(field, tag), hits);
    });
  }
});
