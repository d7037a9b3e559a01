/**
 * The media library (`/wp/v2/media`, docs/media.md): uploads as WordPress clients send them (a raw body with
 * Content-Disposition, or a multipart form), the sizes made from them, their files served at stable URLs, the
 * list and its filters, changes and deletion, and who may do each.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from './events.factories.ts';
import { blob, jpeg, MEDIA, pathOf, picture, raw } from './media.factories.ts';

describe('media library', () => {
  let server: TestServer;
  let author: Credentials;
  before(async () => {
    server = await startTestServer();
    author = await server.createUser('author');
  });
  after(() => server.close());

  it('uploads a raw body as wpapi sends it, with WordPress sizes that never upscale', async () => {
    const uploaded = await server.request(MEDIA, { method: 'POST', auth: author, ...raw(await jpeg(800, 600), 'Concert Poster.JPG') });
    assert.equal(uploaded.status, 201, uploaded.text);
    const media = uploaded.body;
    assert.equal(media.type, 'attachment');
    assert.equal(media.media_type, 'image');
    assert.equal(media.mime_type, 'image/jpeg');
    assert.equal(media.title.rendered, 'Concert Poster');
    assert.equal(media.slug, 'concert-poster');
    assert.equal(media.author, author.id);
    assert.equal(media.status, 'inherit');
    assert.match(media.media_details.file, /^\d{4}\/\d{2}\/concert-poster\.jpg$/);
    assert.equal(media.source_url, `${server.url}/media/${media.media_details.file}`);
    assert.deepEqual([media.media_details.width, media.media_details.height], [800, 600]);
    const sizes = media.media_details.sizes;
    assert.deepEqual(Object.keys(sizes).sort(), ['full', 'medium', 'medium_large', 'thumbnail']);
    assert.deepEqual([sizes.thumbnail.width, sizes.thumbnail.height], [150, 150]);
    assert.deepEqual([sizes.medium.width, sizes.medium.height], [300, 225]);
    assert.deepEqual([sizes.medium_large.width, sizes.medium_large.height], [768, 576]);
    assert.equal(sizes.thumbnail.file, 'concert-poster-150x150.jpg');
    assert.equal(sizes.full.source_url, media.source_url);

    const read = await server.request(`${MEDIA}/${media.id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, media);
  });

  it('serves each size at its URL, immutable, with a strong ETag and 304s', async () => {
    const { body: media } = await server.request(MEDIA, { method: 'POST', auth: author, ...raw(await jpeg(1200, 900), 'hall.jpg') });
    for (const size of Object.values<any>(media.media_details.sizes)) {
      const file = await fetch(size.source_url);
      assert.equal(file.status, 200, size.source_url);
      assert.equal(file.headers.get('content-type'), 'image/jpeg');
      assert.equal(file.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(file.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      const bytes = Buffer.from(await file.arrayBuffer());
      assert.equal(bytes.length, size.filesize);
      const { width, height } = await sharp(bytes).metadata();
      assert.deepEqual([width, height], [size.width, size.height]);
      const etag = file.headers.get('etag')!;
      assert.match(etag, /^"[^"]+"$/);
      const again = await fetch(size.source_url, { headers: { 'if-none-match': etag } });
      assert.equal(again.status, 304);
    }
    assert.deepEqual([media.media_details.sizes.large.width, media.media_details.sizes.large.height], [1024, 768]);
    const missing = await server.request(pathOf(media.source_url).replace('hall', 'nothing-here'));
    assert.equal(missing.status, 404);
  });

  it('names a second upload of the same name apart, as WordPress does', async () => {
    const first = await server.request(MEDIA, { method: 'POST', auth: author, ...raw(await jpeg(20, 20), 'twin.jpg') });
    const second = await server.request(MEDIA, { method: 'POST', auth: author, ...raw(await jpeg(20, 20), 'twin.jpg') });
    assert.equal(first.body.slug, 'twin');
    assert.equal(second.body.slug, 'twin-1');
    assert.notEqual(first.body.source_url, second.body.source_url);
    assert.deepEqual(Object.keys(second.body.media_details.sizes), ['full'], 'a small image has no smaller size');
  });

  it("never gives a deleted image's file names to another upload: a cache may keep them for a year", async () => {
    const upload = async (name: string, width = 400) =>
      (await server.request(MEDIA, { method: 'POST', auth: author, ...raw(await jpeg(width, 300), name) })).body;
    const first = await upload('flyer.jpg');
    assert.equal((await server.request(`${MEDIA}/${first.id}?force=true`, { method: 'DELETE', auth: author })).status, 200);
    const again = await upload('flyer.jpg');
    assert.equal(again.slug, 'flyer-1');
    const served = new Set(Object.values<any>(first.media_details.sizes).map((size) => size.source_url));
    for (const size of Object.values<any>(again.media_details.sizes)) assert.ok(!served.has(size.source_url), size.source_url);
    assert.equal((await fetch(first.source_url)).status, 404, 'the old URL stays gone');
    // An upload whose sizes would take a deleted one's file: `flyer-150x150.jpg` was the first flyer's thumbnail.
    const named = await upload('flyer-150x150.jpg', 20);
    assert.equal(named.slug, 'flyer-150x150-1');
  });

  it('uploads a multipart form with its fields, as browsers and curl -F send it', async () => {
    const event = await makeEvent(server, author);
    const form = new FormData();
    form.append('title', 'Main stage');
    form.append('alt_text', 'The stage, lit in red');
    form.append('caption', 'Opening night');
    form.append('post', String(event.id));
    form.append('file', blob(await picture(400, 100, 'png', '#0a0')), 'stage.png');
    const uploaded = await server.request(MEDIA, { method: 'POST', auth: author, body: form });
    assert.equal(uploaded.status, 201, uploaded.text);
    assert.equal(uploaded.body.title.rendered, 'Main stage');
    assert.equal(uploaded.body.alt_text, 'The stage, lit in red');
    assert.equal(uploaded.body.caption.rendered, '<p>Opening night</p>\n');
    assert.equal(uploaded.body.post, event.id);
    assert.equal(uploaded.body.mime_type, 'image/png');
    assert.match(uploaded.body.source_url, /\/stage\.png$/);
    assert.deepEqual([uploaded.body.media_details.sizes.thumbnail.width, uploaded.body.media_details.sizes.thumbnail.height], [150, 100]);
  });

  it('takes its ids from the sequence of events, venues and organizers', async () => {
    const event = await makeEvent(server, author);
    const { body: media } = await server.request(MEDIA, { method: 'POST', auth: author, ...raw(await jpeg(10, 10), 'seq.jpg') });
    const next = await makeEvent(server, author);
    assert.ok(event.id < media.id && media.id < next.id);
  });

  it('lists newest first, filtered as WordPress filters, with X-WP-Total', async () => {
    const other = await server.createUser('author');
    const event = await makeEvent(server, author);
    await server.request(MEDIA, { method: 'POST', auth: author, ...raw(await jpeg(20, 20), 'older.jpg') });
    const tagged = `needle${Date.now()}`;
    const form = new FormData();
    form.append('post', String(event.id));
    form.append('file', blob(await picture(30, 30, 'webp', '#00f')), `${tagged}.webp`);
    const mine = (await server.request(MEDIA, { method: 'POST', auth: other, body: form })).body;
    const all = await server.request(`${MEDIA}?per_page=2`);
    assert.equal(all.status, 200);
    assert.equal(all.body.length, 2);
    assert.equal(all.body[0].id, mine.id, 'newest first');
    const total = Number(all.headers.get('x-wp-total'));
    assert.ok(total >= 2);
    assert.equal(all.headers.get('x-wp-totalpages'), String(Math.ceil(total / 2)));
    const ids = async (query: string) => (await server.request(`${MEDIA}?${query}`)).body.map((item: any) => item.id);
    assert.deepEqual(await ids(`search=${tagged}`), [mine.id]);
    assert.deepEqual(await ids('mime_type=image/webp'), [mine.id]);
    assert.deepEqual(await ids(`author=${other.id}`), [mine.id]);
    assert.deepEqual(await ids(`parent=${event.id}`), [mine.id]);
    assert.deepEqual(await ids('media_type=video'), []);
    assert.ok((await ids('parent=0&per_page=100')).every((id: number) => id !== mine.id));
    assert.equal((await ids('media_type=image&per_page=100')).length, total);
    const fields = await server.request(`${MEDIA}?per_page=1&_fields=id,source_url`);
    assert.deepEqual(fields.body, [{ id: mine.id, source_url: mine.source_url }]);
    const options = await server.request(MEDIA, { method: 'OPTIONS' });
    assert.equal(options.status, 200);
    assert.deepEqual(options.body.methods, ['GET', 'POST']);
    assert.ok(options.body.endpoints[0].args.media_type, 'the list arguments are described');
    const index = await server.request('/');
    assert.ok(index.body.routes['/wp/v2/media/(?P<id>\\d+)'], 'the root index lists the media routes');
    const beyond = await server.request(`${MEDIA}?page=999`);
    assert.equal(beyond.status, 400);
    assert.equal(beyond.body.code, 'rest_post_invalid_page_number');
    const badAuthor = await server.request(`${MEDIA}?author=abc`);
    assert.equal(badAuthor.status, 400);
    const missing = await server.request(`${MEDIA}/999999`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'rest_post_invalid_id');
  });

  it('changes title, alt text and caption for the uploader and editors, no one else', async () => {
    const { body: media } = await server.request(MEDIA, { method: 'POST', auth: author, ...raw(await jpeg(40, 40), 'texts.jpg') });
    const changed = await server.request(`${MEDIA}/${media.id}`, {
      method: 'POST',
      auth: author,
      body: { title: 'New <b>title</b>', alt_text: 'Described', caption: { raw: 'Said below' } },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.title.rendered, 'New title');
    assert.equal(changed.body.alt_text, 'Described');
    assert.equal(changed.body.caption.rendered, '<p>Said below</p>\n');
    const otherAuthor = await server.createUser('author');
    const refused = await server.request(`${MEDIA}/${media.id}`, { method: 'POST', auth: otherAuthor, body: { title: 'Mine now' } });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'rest_cannot_edit');
    const editor = await server.createUser('editor');
    const byEditor = await server.request(`${MEDIA}/${media.id}`, { method: 'POST', auth: editor, body: { title: 'Edited' } });
    assert.equal(byEditor.status, 200);
    assert.equal((await server.request(`${MEDIA}/${media.id}`)).body.title.rendered, 'Edited');
    const nul = await server.request(`${MEDIA}/${media.id}`, { method: 'POST', auth: author, body: { title: 'a\u0000b' } });
    assert.equal(nul.status, 400);
  });

  it('deletes only with force=true, removing its files and the image of what showed it', async () => {
    const { body: media } = await server.request(MEDIA, { method: 'POST', auth: author, ...raw(await jpeg(400, 300), 'gone.jpg') });
    const event = await makeEvent(server, author, { image: media.id, status: 'publish' });
    assert.equal(event.image.id, media.id);
    const venue = await server.request('/calendar/events/v1/venues', {
      method: 'POST',
      auth: author,
      body: { venue: 'Gone Hall', image: media.id },
    });
    // Read anonymously first, so that what the server caches of the event is what the deletion must change.
    assert.equal((await server.request(`${EVENTS}/${event.id}`)).body.image.id, media.id);
    // And its files, so that the deletion must take them back from the read cache.
    for (const size of Object.values<any>(media.media_details.sizes)) assert.equal((await fetch(size.source_url)).status, 200);
    const trash = await server.request(`${MEDIA}/${media.id}`, { method: 'DELETE', auth: author, expectServerError: 501 });
    assert.equal(trash.status, 501);
    assert.equal(trash.body.code, 'rest_trash_not_supported');
    const otherAuthor = await server.createUser('author');
    const refused = await server.request(`${MEDIA}/${media.id}?force=true`, { method: 'DELETE', auth: otherAuthor });
    assert.equal(refused.status, 403);
    const deleted = await server.request(`${MEDIA}/${media.id}?force=true`, { method: 'DELETE', auth: author });
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.body.deleted, true);
    assert.equal(deleted.body.previous.id, media.id);
    assert.equal((await server.request(`${MEDIA}/${media.id}`)).status, 404);
    for (const size of Object.values<any>(media.media_details.sizes)) {
      assert.equal((await fetch(size.source_url)).status, 404, size.source_url);
    }
    const stored = await server.server.store.db.selectFrom('media_files').select('key').where('key', 'like', `%/gone%`).execute();
    assert.deepEqual(stored, []);
    const after = await server.request(`${EVENTS}/${event.id}`, { auth: author });
    assert.equal(after.body.image, false);
    assert.equal((await server.request(`${EVENTS}/${event.id}`)).body.image, false, 'the anonymous representation too');
    const venueAfter = await server.request(`/calendar/events/v1/venues/${venue.body.id}`, { auth: author });
    assert.equal(venueAfter.body.image, undefined, 'a venue without an image has no image key');
  });

  it('lets authors and above upload; contributors, subscribers and anonymous callers are refused', async () => {
    const bytes = await jpeg(10, 10);
    for (const role of ['contributor', 'subscriber'] as const) {
      const refused = await server.request(MEDIA, { method: 'POST', auth: await server.createUser(role), ...raw(bytes, 'no.jpg') });
      assert.equal(refused.status, 403, role);
    }
    const anonymous = await server.request(MEDIA, { method: 'POST', ...raw(bytes, 'no.jpg') });
    assert.equal(anonymous.status, 401);
    const { body: media } = await server.request(MEDIA, { method: 'POST', auth: author, ...raw(bytes, 'yes.jpg') });
    const contributor = await server.createUser('contributor');
    assert.equal((await server.request(`${MEDIA}/${media.id}`, { method: 'POST', auth: contributor, body: { title: 'x' } })).status, 403);
    assert.equal((await server.request(`${MEDIA}/${media.id}?force=true`, { method: 'DELETE', auth: contributor })).status, 403);
    assert.equal((await server.request(`${MEDIA}/${media.id}?force=true`, { method: 'DELETE' })).status, 401);
  });

  it("gives events, venues and organizers an uploaded image's sizes, as the reference shows an attachment", async () => {
    const { body: media } = await server.request(MEDIA, { method: 'POST', auth: author, ...raw(await jpeg(800, 600), 'featured.jpg') });
    const sizes = media.media_details.sizes;
    const expected = {
      url: media.source_url,
      id: media.id,
      extension: 'jpg',
      width: 800,
      height: 600,
      filesize: media.media_details.filesize,
      sizes: Object.fromEntries(
        ['thumbnail', 'medium', 'medium_large'].map((name) => [
          name,
          {
            width: sizes[name].width,
            height: sizes[name].height,
            'mime-type': 'image/jpeg',
            filesize: sizes[name].filesize,
            url: sizes[name].source_url,
          },
        ]),
      ),
    };
    const event = await makeEvent(server, author, { image: media.id, status: 'publish' });
    assert.deepEqual(event.image, expected);
    assert.deepEqual(Object.keys(event.image), ['url', 'id', 'extension', 'width', 'height', 'filesize', 'sizes']);
    assert.deepEqual((await server.request(`${EVENTS}/${event.id}`)).body.image, expected);
    const listed = (await server.request(`${EVENTS}?per_page=50`)).body.events.find((item: any) => item.id === event.id);
    assert.deepEqual(listed.image, expected);
    for (const kind of ['venues', 'organizers']) {
      const name = kind === 'venues' ? { venue: `Hall ${media.id}` } : { organizer: `Org ${media.id}` };
      const created = await server.request(`/calendar/events/v1/${kind}`, {
        method: 'POST',
        auth: author,
        body: { ...name, image: media.id, status: 'publish' },
      });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(created.body.image, expected, kind);
    }
    const contributor = await server.createUser('contributor');
    const byUrl = await makeEvent(server, contributor, { image: media.source_url });
    assert.deepEqual(byUrl.image, expected, "an upload's URL is that upload, for anyone who may name it by id");
    const small = (await server.request(MEDIA, { method: 'POST', auth: author, ...raw(await jpeg(100, 80), 'small.jpg') })).body;
    const withSmall = await makeEvent(server, author, { image: small.id });
    assert.deepEqual(withSmall.image, {
      url: small.source_url,
      id: small.id,
      extension: 'jpg',
      width: 100,
      height: 80,
      filesize: small.media_details.filesize,
    });
    const notAnImage = await server.request(EVENTS, {
      method: 'POST',
      auth: author,
      body: { title: 'x', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00', image: event.id },
    });
    assert.equal(notAnImage.status, 400);
    assert.equal(notAnImage.body.code, 'rest_invalid_param');
  });

  it('serves a file once read from the read cache, and answers a revalidation with its ETag before reading anything', async () => {
    const { body: media } = await server.request(MEDIA, { method: 'POST', auth: author, ...raw(await jpeg(400, 300), 'cached.jpg') });
    const thumbnail = media.media_details.sizes.thumbnail;
    const first = await fetch(thumbnail.source_url);
    const bytes = Buffer.from(await first.arrayBuffer());
    const etag = first.headers.get('etag')!;
    // The stored bytes gone behind the server's back: what it answers now comes from its cache.
    const key = `${media.media_details.file.slice(0, 8)}${thumbnail.file}`;
    await server.server.store.db.deleteFrom('media_files').where('key', '=', key).execute();
    const again = await fetch(thumbnail.source_url);
    assert.equal(again.status, 200);
    assert.ok(Buffer.from(await again.arrayBuffer()).equals(bytes));
    assert.equal(again.headers.get('etag'), etag);
    assert.equal(again.headers.get('content-type'), 'image/jpeg');
    assert.equal(again.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(again.headers.get('x-content-type-options'), 'nosniff');
    const revalidated = await fetch(thumbnail.source_url, { headers: { 'if-none-match': etag } });
    assert.equal(revalidated.status, 304);
    assert.equal(revalidated.headers.get('etag'), etag);
    assert.equal(revalidated.headers.get('content-type'), null);
    assert.equal((await revalidated.arrayBuffer()).byteLength, 0);
  });

  it('stores one file for two sizes of the same dimensions, as a 3:4 portrait photo has', async () => {
    const uploaded = await server.request(MEDIA, { method: 'POST', auth: author, ...raw(await jpeg(900, 1200), 'portrait.jpg') });
    assert.equal(uploaded.status, 201, uploaded.text);
    const { medium_large: mediumLarge, large } = uploaded.body.media_details.sizes;
    assert.deepEqual([mediumLarge.width, mediumLarge.height, large.width, large.height], [768, 1024, 768, 1024]);
    assert.equal(mediumLarge.file, large.file);
    const file = await fetch(large.source_url);
    assert.equal(file.status, 200);
    assert.equal((await sharp(Buffer.from(await file.arrayBuffer())).metadata()).width, 768);
  });

  it('shows an image uploaded to a draft or protected post only to those who may see that post, and to its uploader', async () => {
    const draft = await makeEvent(server, author, { status: 'draft' });
    const form = new FormData();
    form.append('post', String(draft.id));
    form.append('file', blob(await jpeg(30, 30)), 'draft-poster.jpg');
    const { body: media } = await server.request(MEDIA, { method: 'POST', auth: author, body: form });
    const listedTo = async (auth?: Credentials) =>
      (await server.request(`${MEDIA}?parent=${draft.id}`, { auth })).body.map((item: any) => item.id);
    const otherAuthor = await server.createUser('author');
    const editor = await server.createUser('editor');
    assert.equal((await server.request(`${MEDIA}/${media.id}`)).status, 404);
    assert.deepEqual(await listedTo(), []);
    assert.equal((await server.request(`${MEDIA}/${media.id}`, { auth: otherAuthor })).status, 404);
    assert.deepEqual(await listedTo(otherAuthor), []);
    assert.deepEqual(await listedTo(author), [media.id]);
    assert.deepEqual(await listedTo(editor), [media.id]);
    const published = await server.request(`${EVENTS}/${draft.id}`, { method: 'POST', auth: author, body: { status: 'publish' } });
    assert.equal(published.status, 200, published.text);
    assert.equal((await server.request(`${MEDIA}/${media.id}`)).status, 200);
    assert.deepEqual(await listedTo(), [media.id]);
    const protectedEvent = await server.request(`${EVENTS}/${draft.id}`, { method: 'POST', auth: author, body: { password: 'secret' } });
    assert.equal(protectedEvent.status, 200, protectedEvent.text);
    assert.equal((await server.request(`${MEDIA}/${media.id}`)).status, 404);
    assert.deepEqual(await listedTo(editor), [media.id]);
  });
});
