/**
 * Side-loading (docs/media.md): an `image` given as another site's URL is fetched once through the outbound guard,
 * stored by the media library and used; our own files' URLs are those images; and every refusal (a contributor's URL,
 * a redirect to a loopback address, an HTML body, a body too large, a server too slow, a 404) is a 400 on `image`,
 * as the reference answers bad images, that stores nothing.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from './events.factories.ts';
import { jpeg, MEDIA, pathOf } from './media.factories.ts';
import { ORGANIZERS, VENUES } from './venues-organizers.factories.ts';

const MAX_BYTES = 64 * 1024;

describe('side-loading image URLs', () => {
  let server: TestServer;
  let author: Credentials;
  let contributor: Credentials;
  let admin: Credentials;
  let images: http.Server;
  let origin: string;
  const hits: string[] = [];

  before(async () => {
    const poster = await jpeg(800, 600, '#2a6');
    images = http.createServer((request, response) => {
      const url = request.url ?? '/';
      hits.push(url);
      if (url.startsWith('/poster.jpg') || url === '/Spring%20Poster.jpeg') return void response.writeHead(200).end(poster);
      if (url === '/hop') return void response.writeHead(302, { location: '/poster.jpg?hopped' }).end();
      if (url === '/to-loopback') {
        const port = (images.address() as AddressInfo).port;
        return void response.writeHead(302, { location: `https://127.0.0.1:${port}/poster.jpg` }).end();
      }
      if (url === '/page.jpg')
        return void response.writeHead(200, { 'content-type': 'image/jpeg' }).end('<!doctype html><p>Not an image</p>');
      if (url === '/huge.jpg') {
        // No Content-Length: the limit is found while reading.
        response.writeHead(200, { 'content-type': 'image/jpeg' });
        for (let sent = 0; sent <= MAX_BYTES; sent += 16 * 1024) response.write(Buffer.alloc(16 * 1024, 0xff));
        return void response.end();
      }
      if (url === '/announced-huge.jpg') return void response.writeHead(200, { 'content-length': String(MAX_BYTES * 4) }).end();
      if (url === '/slow.jpg') return void setTimeout(() => response.writeHead(200).end(poster), 2000).unref();
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    // Allowed by its name only: the same server reached by its loopback address is refused.
    origin = `http://localhost:${(images.address() as AddressInfo).port}`;
    server = await startTestServer({
      MEDIA_SIDELOAD: 'true',
      MEDIA_FETCH_ALLOW_HOSTS: 'localhost',
      MEDIA_FETCH_TIMEOUT_MS: '500',
      MEDIA_MAX_BYTES: String(MAX_BYTES),
    });
    [author, contributor, admin] = await Promise.all([server.createUser('author'), server.createUser('contributor'), server.admin()]);
  });
  after(async () => {
    images.closeAllConnections();
    await new Promise((resolve) => images.close(resolve));
    await server.close();
  });

  const stored = async () => Number((await server.request(`${MEDIA}?per_page=1`, { auth: admin })).headers.get('x-wp-total'));

  it('fetches another site’s image once, stores it with its sizes and shows it as an upload', async () => {
    const before = await stored();
    const event = await makeEvent(server, author, { image: `${origin}/poster.jpg`, status: 'publish' });
    assert.equal(await stored(), before + 1);
    assert.ok(event.image.url.startsWith(`${server.url}/media/`), event.image.url);
    assert.deepEqual([event.image.extension, event.image.width, event.image.height], ['jpg', 800, 600]);
    assert.deepEqual(Object.keys(event.image.sizes), ['thumbnail', 'medium', 'medium_large']);
    const file = await server.request(pathOf(event.image.url));
    assert.equal(file.status, 200);
    assert.equal(file.headers.get('content-type'), 'image/jpeg');
    const media = (await server.request(`${MEDIA}/${event.image.id}`)).body;
    assert.equal(media.author, author.id);
    assert.equal(media.slug, 'poster');

    // Our own file's URL is that image: nothing fetched, nothing stored.
    const fetched = hits.length;
    const again = await makeEvent(server, author, { image: event.image.url });
    assert.equal(again.image.id, event.image.id);
    assert.equal(hits.length, fetched);
    assert.equal(await stored(), before + 1);
  });

  it('follows a redirect to an allowed host, and names the file after the URL', async () => {
    const hopped = await makeEvent(server, author, { image: `${origin}/hop` });
    assert.equal(hopped.image.width, 800);
    const named = await makeEvent(server, author, { image: `${origin}/Spring%20Poster.jpeg` });
    assert.equal((await server.request(`${MEDIA}/${named.image.id}`)).body.slug, 'spring-poster');
  });

  it('side-loads the images of venues, organizers and those an event write creates inline', async () => {
    const venue = await server.request(VENUES, { method: 'POST', auth: author, body: { venue: 'Hall', image: `${origin}/poster.jpg` } });
    assert.equal(venue.status, 201, venue.text);
    assert.equal(venue.body.image.width, 800);
    const organizer = await server.request(ORGANIZERS, {
      method: 'POST',
      auth: author,
      body: { organizer: 'Org', image: `${origin}/poster.jpg` },
    });
    assert.equal(organizer.body.image.width, 800);
    const updated = await server.request(`${VENUES}/${venue.body.id}`, {
      method: 'POST',
      auth: author,
      body: { image: `${origin}/poster.jpg?2` },
    });
    assert.equal(updated.status, 200, updated.text);
    assert.notEqual(updated.body.image.id, venue.body.image.id);
    const event = await makeEvent(server, author, {
      venue: { venue: 'Inline hall', image: `${origin}/poster.jpg?3` },
      organizer: [{ organizer: 'Inline org', image: `${origin}/poster.jpg?4` }],
    });
    assert.equal(event.venue.image.width, 800);
    assert.equal(event.organizer[0].image.width, 800);
    const changed = await server.request(`${EVENTS}/${event.id}`, {
      method: 'POST',
      auth: author,
      body: { image: `${origin}/poster.jpg?5` },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.image.width, 800);
  });

  it('answers every bad image as the reference does, a 400 rest_invalid_param on image, and stores nothing', async () => {
    const event = await makeEvent(server, author);
    const cases: [string, Credentials, unknown, RegExp][] = [
      ['a contributor’s URL', contributor, `${origin}/poster.jpg?contributor`, /not allowed/],
      ['a redirect to a loopback address', author, `${origin}/to-loopback`, /127\.0\.0\.1 is in a blocked address range \(loopback\)/],
      ['an HTML body', author, `${origin}/page.jpg`, /not an image|type/i],
      ['a body too large', author, `${origin}/huge.jpg`, /larger than/],
      ['a body announced too large', author, `${origin}/announced-huge.jpg`, /larger than/],
      ['a server too slow', author, `${origin}/slow.jpg`, /timeout/],
      ['a missing file', author, `${origin}/missing.png`, /status 404/],
      ['an unreachable host', author, 'http://example.localhost/some-image.png', /could not be fetched/],
      ['a loopback address', author, 'https://127.0.0.1/a.png', /blocked/],
      ['not a URL', author, 'foo bar', /Invalid parameter/],
      ['no such image', author, 999_999, /does not exist/],
      ['an event’s id', author, event.id, /does not exist/],
    ];
    const before = await stored();
    const fetchedBefore = hits.filter((hit) => hit.endsWith('contributor')).length;
    for (const [what, auth, image, reason] of cases) {
      const response = await server.request(EVENTS, {
        method: 'POST',
        auth,
        body: { title: what, start_date: 'tomorrow 10am', end_date: 'tomorrow 11am', image },
      });
      assert.equal(response.status, 400, `${what}: ${response.text}`);
      assert.equal(response.body.code, 'rest_invalid_param', what);
      assert.equal(response.body.message, 'Invalid parameter(s): image', what);
      assert.match(response.body.data.params.image, reason, what);
    }
    assert.equal(await stored(), before, 'nothing stored');
    assert.equal(hits.filter((hit) => hit.endsWith('contributor')).length, fetchedBefore, "a contributor's URL is never fetched");
    const titles = (await server.request(`${EVENTS}?per_page=50&status=publish,draft,pending`, { auth: admin })).body.events.map(
      (item: { title: string }) => item.title,
    );
    assert.deepEqual(
      titles.filter((title: string) => cases.some(([what]) => what === title)),
      [],
      'no event written',
    );
  });

  it('refuses bad side-loading settings at start', () => {
    for (const [name, value] of [
      ['MEDIA_SIDELOAD', 'maybe'],
      ['MEDIA_FETCH_ALLOW_HOSTS', 'not a host!'],
      ['MEDIA_FETCH_ALLOW_HOSTS', '10.0.0.0/99'],
      ['MEDIA_FETCH_TIMEOUT_MS', '5'],
      ['MEDIA_FETCH_TIMEOUT_MS', 'soon'],
    ] as const) {
      assert.throws(() => loadConfig({ [name]: value }), new RegExp(name), `${name}=${value}`);
    }
    const defaults = loadConfig({});
    assert.deepEqual([defaults.mediaSideload, defaults.mediaFetchTimeoutMs, defaults.mediaFetchAllowHosts.hosts.size], [true, 10_000, 0]);
  });
});
