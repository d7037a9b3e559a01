/**
 * Compressed answers (issue 41's transport): an anonymous text answer goes
 * brotli- or gzip-compressed to a client that accepts it, the same bytes
 * once decoded, with a strong tag of its own (the uncompressed answer's
 * with the coding after a dot), which If-None-Match and If-Match accept;
 * an answer for someone (credentials, a cookie), an error and a short answer
 * go as they are.
 */
import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { rawRequest, startTestServer, type Credentials, type RawAnswer, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from '../calendar/events.factories.ts';
import { makeVenue, VENUES } from '../calendar/venues-organizers.factories.ts';

const DESCRIPTION = `<p>${'An evening of music under the stars, with the orchestra of the city. '.repeat(40)}</p>`;

/** The body a client that decodes gets. */
function decoded(answer: RawAnswer): Buffer {
  const coding = answer.headers['content-encoding'];
  if (coding === 'br') return brotliDecompressSync(answer.body);
  if (coding === 'gzip') return gunzipSync(answer.body);
  assert.equal(coding, undefined, `an unknown coding: ${coding}`);
  return answer.body;
}

const varies = (answer: RawAnswer) =>
  String(answer.headers.vary ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase());

describe('compressed answers', () => {
  let server: TestServer;
  let admin: Credentials;
  let event: any;
  const get = (path: string, headers: Record<string, string> = {}) => rawRequest(`${server.url}${path}`, { headers });

  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
    event = await makeEvent(server, admin, { status: 'publish', title: 'Compressed concert', description: DESCRIPTION });
  });
  after(async () => server.close());

  /** Anonymous text, and whether it is tagged (the calendar's answers are; the OpenAPI document is not). */
  const texts = () =>
    [
      [`${EVENTS}/${event.id}`, true],
      [`${EVENTS}?per_page=20`, true],
      [`${EVENTS}.ics`, true],
      [`/event/${event.slug}/`, true],
      ['/events/', true],
      ['/events/assets/calendar.css', true],
      ['/docs/openapi.json', false],
    ] as const;

  it('sends anonymous text in the coding the client prefers, the same bytes once decoded, with a tag of its own', async () => {
    for (const [path, tagged] of texts()) {
      const plain = await get(path);
      assert.equal(plain.status, 200, path);
      assert.equal(plain.headers.etag !== undefined, tagged, `${path}: ${plain.headers.etag}`);
      assert.equal(plain.headers['content-encoding'], undefined, `${path}: no Accept-Encoding, as it is`);
      // It suits every client: a cache in front keeps one copy, not one per Accept-Encoding.
      assert.ok(!varies(plain).includes('accept-encoding'), `${path}: Vary ${plain.headers.vary}`);
      for (const [accepted, coding] of [
        ['br', 'br'],
        ['gzip, deflate', 'gzip'],
        ['gzip, deflate, br, zstd', 'br'],
        ['br;q=0.5, gzip', 'gzip'],
        ['*', 'br'],
      ] as const) {
        const answer = await get(path, { 'accept-encoding': accepted });
        assert.equal(answer.headers['content-encoding'], coding, `${path} (${accepted})`);
        assert.deepEqual(decoded(answer), plain.body, `${path} (${accepted}): the same bytes once decoded`);
        assert.equal(Number(answer.headers['content-length']), answer.body.length, `${path} (${accepted})`);
        assert.ok(answer.body.length < plain.body.length / 2, `${path} (${accepted}): ${answer.body.length} of ${plain.body.length}`);
        assert.ok(varies(answer).includes('accept-encoding'), path);
        const tag = plain.headers.etag;
        const coded = tag === undefined ? undefined : `${tag.slice(0, -1)}.${coding === 'br' ? 'br' : 'gz'}"`;
        assert.equal(answer.headers.etag, coded, `${path}: the uncompressed answer's tag, coded`);
      }
    }
  });

  it('answers a compressed copy’s tag with a 304 that says what the 200 would (its tag, Vary), and no body', async () => {
    for (const path of [`${EVENTS}?per_page=20`, '/events/']) {
      const compressed = await get(path, { 'accept-encoding': 'br' });
      const tag = String(compressed.headers.etag);
      assert.match(tag, /^"[\w-]+\.br"$/, path);
      for (const held of [tag, `W/${tag}`, `"other", ${tag}`]) {
        const again = await get(path, { 'accept-encoding': 'br', 'if-none-match': held });
        assert.equal(again.status, 304, `${path}: ${held}`);
        assert.equal(again.body.length, 0, path);
        assert.equal(again.headers.etag, tag, path);
        assert.equal(again.headers['content-encoding'], undefined, path);
        assert.equal(again.headers['content-length'], undefined, `${path}: a 304 has no content`);
        assert.equal(again.headers.vary, compressed.headers.vary, path);
      }
      // A client that does not accept brotli is compared with the tag of what it would be sent: the answer as it is.
      const plainTag = tag.replace('.br"', '"');
      const plain = await get(path, { 'if-none-match': `${tag}, ${plainTag}` });
      assert.equal(plain.status, 304, path);
      assert.equal(plain.headers.etag, plainTag, path);
      assert.ok(!varies(plain).includes('accept-encoding'), path);
      const onlyCompressed = await get(path, { 'if-none-match': tag });
      assert.equal(onlyCompressed.status, 200, `${path}: a cache must not hand brotli to a client that cannot read it`);
      assert.equal(onlyCompressed.headers['content-encoding'], undefined, path);
      assert.equal(onlyCompressed.headers.etag, plainTag, path);
      const otherCoding = await get(path, { 'accept-encoding': 'gzip', 'if-none-match': tag });
      assert.equal(otherCoding.status, 200, path);
      assert.equal(otherCoding.headers.etag, tag.replace('.br"', '.gz"'), path);
      // Another body's copy does not match.
      const other = await get(path, { 'accept-encoding': 'br', 'if-none-match': '"Q29tcHJlc3NlZCBjb25jZXJ0IGFnYWlu.br"' });
      assert.equal(other.status, 200, path);
    }
  });

  it('lets a write name the item it read compressed: If-Match takes the version from a compressed copy’s tag', async () => {
    // A venue's anonymous answer names its row version (conditional-get.test.ts).
    const venue = await makeVenue(server, admin, { status: 'publish', venue: 'Read compressed', description: DESCRIPTION });
    const read = await get(`${VENUES}/${venue.id}`, { 'accept-encoding': 'gzip' });
    assert.equal(read.headers['content-encoding'], 'gzip');
    const tag = String(read.headers.etag);
    assert.match(tag, /^"\d+-[\w-]+\.gz"$/);
    const write = (name: string) =>
      server.request(`${VENUES}/${venue.id}`, { method: 'POST', auth: admin, headers: { 'if-match': tag }, body: { venue: name } });
    assert.equal((await write('Written over what was read')).status, 200);
    const stale = await write('Written over a stale read');
    assert.equal(stale.status, 412, stale.text);
  });

  it('answers HEAD with the headers of the compressed GET and no body', async () => {
    const path = `${EVENTS}?per_page=20`;
    const got = await get(path, { 'accept-encoding': 'gzip' });
    const head = await rawRequest(`${server.url}${path}`, { method: 'HEAD', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(head.status, 200);
    assert.equal(head.body.length, 0);
    assert.equal(head.headers['content-encoding'], 'gzip');
    assert.equal(head.headers['content-length'], got.headers['content-length']);
    assert.equal(head.headers.etag, got.headers.etag);
  });

  it('sends a signed-in caller’s answers as they are: a secret beside chosen text is never compressed with it (BREACH)', async () => {
    for (const [path, headers] of [
      [`${EVENTS}?per_page=20`, { authorization: admin.bearer }],
      [`${EVENTS}/${event.id}`, { authorization: admin.bearer }],
      ['/events/', { cookie: 'almanac_session=anything' }],
      [`${EVENTS}?per_page=20&password=sesame`, {}],
      ['/admin/login', {}],
    ] as const) {
      const answer = await get(path, { ...headers, 'accept-encoding': 'gzip, br' });
      assert.equal(answer.status, 200, `${path}: ${answer.body.toString('utf8').slice(0, 200)}`);
      assert.ok(answer.body.length >= 1024, `${path}: long enough to be compressed were it public`);
      assert.match(String(answer.headers['cache-control']), /private|no-store/, path);
      assert.equal(answer.headers['content-encoding'], undefined, path);
      assert.doesNotMatch(String(answer.headers.etag), /\.(br|gz)"$/, path);
    }
  });

  it('sends short answers, errors and refused codings as they are', async () => {
    const refused = await get(`${EVENTS}?per_page=20`, { 'accept-encoding': 'br;q=0, gzip;q=0, identity' });
    assert.equal(refused.headers['content-encoding'], undefined, 'both codings refused');
    const unknown = await get(`${EVENTS}?per_page=20`, { 'accept-encoding': 'compress, x-unknown;q=1' });
    assert.equal(unknown.headers['content-encoding'], undefined, 'only codings the server does not have');
    const preferred = await get(`${EVENTS}?per_page=20`, { 'accept-encoding': 'identity, br;q=0.1' });
    assert.equal(preferred.headers['content-encoding'], undefined, 'the answer as it is, preferred');
    for (const accepted of [';;;', 'gzip;q=abc', ',,,', 'br;q=2, gzip;q=-1', 'q=1']) {
      const odd = await get(`${EVENTS}?per_page=20`, { 'accept-encoding': accepted });
      assert.equal(odd.status, 200, `Accept-Encoding: ${accepted}`);
      assert.deepEqual(decoded(odd), refused.body, `Accept-Encoding: ${accepted}`);
    }
    // A header no browser sends, which would cost milliseconds to parse: the answer as it is, which suits anyone.
    const huge = await get(`${EVENTS}?per_page=20`, { 'accept-encoding': `${'x-junk;q=0.1, '.repeat(800)}gzip` });
    assert.equal(huge.status, 200);
    assert.equal(huge.headers['content-encoding'], undefined);
    assert.deepEqual(huge.body, refused.body);
    const short = await get(`${EVENTS}?per_page=1&_fields=id`, { 'accept-encoding': 'br' });
    assert.equal(short.status, 200);
    assert.match(String(short.headers['cache-control']), /^public/);
    assert.ok(short.body.length < 1024);
    assert.equal(short.headers['content-encoding'], undefined, 'under 1 kB');
    const missing = await get(`${EVENTS}/999999`, { 'accept-encoding': 'br' });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers['content-encoding'], undefined, 'an error');
  });
});

describe('compressed answers with no cache', () => {
  it('compresses each answer as it is sent, to the same bytes', async () => {
    const server = await startTestServer({ RESPONSE_CACHE_MB: '0' });
    try {
      const admin = await server.admin();
      await makeEvent(server, admin, { status: 'publish', title: 'Uncached concert', description: DESCRIPTION });
      const path = `${EVENTS}?per_page=20`;
      const first = await rawRequest(`${server.url}${path}`, { headers: { 'accept-encoding': 'br' } });
      const second = await rawRequest(`${server.url}${path}`, { headers: { 'accept-encoding': 'br' } });
      assert.equal(first.headers['content-encoding'], 'br');
      assert.deepEqual(second.body, first.body);
      assert.match(brotliDecompressSync(first.body).toString('utf8'), /Uncached concert/);
    } finally {
      await server.close();
    }
  });
});
