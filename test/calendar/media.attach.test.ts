/**
 * An image belongs to the first post that shows it (docs/media.md): side-loaded for a post, uploaded to it
 * (`post`) or set on it by id, it is listed and read only by those who may see that post — never to anonymous
 * callers while the post is a draft, trashed or protected by a password — while its files stay public.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from './events.factories.ts';
import { blob, jpeg, MEDIA, pathOf, raw } from './media.factories.ts';
import { VENUES } from './venues-organizers.factories.ts';

describe('images attached to the posts that show them', () => {
  let server: TestServer;
  let author: Credentials;
  let editor: Credentials;
  let images: http.Server;
  let origin: string;
  let fetched = 0;

  before(async () => {
    const poster = await jpeg(200, 100, '#36c');
    images = http.createServer((_request, response) => {
      fetched += 1;
      response.writeHead(200, { 'content-type': 'image/jpeg' }).end(poster);
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    origin = `http://localhost:${(images.address() as AddressInfo).port}`;
    server = await startTestServer({ MEDIA_SIDELOAD: 'true', MEDIA_FETCH_ALLOW_HOSTS: 'localhost' });
    [author, editor] = await Promise.all([server.createUser('author'), server.createUser('editor')]);
  });
  after(async () => {
    images.closeAllConnections();
    await new Promise((resolve) => images.close(resolve));
    await server.close();
  });

  /** Where `auth` finds the image: read by id, in the list, found by its slug, listed by its post. */
  async function seenBy(auth: Credentials | undefined, media: { id: number; slug: string; post: number | null }) {
    const listed = async (query: string) => {
      const response = await server.request(`${MEDIA}?per_page=100${query}`, { auth });
      assert.equal(response.status, 200, response.text);
      return response.body.some((item: { id: number }) => item.id === media.id);
    };
    return {
      item: (await server.request(`${MEDIA}/${media.id}`, { auth })).status === 200,
      list: await listed(''),
      search: await listed(`&search=${media.slug}`),
      parent: await listed(`&parent=${media.post}`),
    };
  }
  const everywhere = { item: true, list: true, search: true, parent: true };
  const nowhere = { item: false, list: false, search: false, parent: false };

  /** The image as its uploader reads it (its `post`, its slug). */
  const mediaOf = async (id: number) => (await server.request(`${MEDIA}/${id}`, { auth: author })).body;

  const edit = async (id: number, body: Record<string, unknown>) => {
    const response = await server.request(`${EVENTS}/${id}`, { method: 'POST', auth: author, body });
    assert.equal(response.status, 200, response.text);
  };

  /** The image follows its event: hidden as a draft, shown once published, hidden again in the trash. */
  async function followsItsEvent(event: { id: number; image: { id: number } }) {
    const media = await mediaOf(event.image.id);
    assert.equal(media.post, event.id);
    assert.deepEqual(await seenBy(undefined, media), nowhere);
    assert.deepEqual(await seenBy(editor, media), everywhere);
    assert.deepEqual(await seenBy(author, media), everywhere);
    await edit(event.id, { status: 'publish' });
    assert.deepEqual(await seenBy(undefined, media), everywhere);
    assert.equal((await server.request(`${EVENTS}/${event.id}`, { method: 'DELETE', auth: author })).status, 200);
    assert.deepEqual(await seenBy(undefined, media), nowhere);
    assert.deepEqual(await seenBy(editor, media), everywhere);
  }

  it('hides the image side-loaded for a draft from anonymous callers until the event is published', async () => {
    const before = fetched;
    const event = await makeEvent(server, author, { status: 'draft', image: `${origin}/draft-sideloaded.jpg` });
    assert.equal(fetched, before + 1);
    await followsItsEvent(event);
  });

  it('hides an image uploaded to a draft (post), or set on it by id, the same way', async () => {
    const draft = await makeEvent(server, author, { status: 'draft' });
    const form = new FormData();
    form.append('post', String(draft.id));
    form.append('file', blob(await jpeg(40, 40)), 'draft-uploaded.jpg');
    const uploaded = await server.request(MEDIA, { method: 'POST', auth: author, body: form });
    assert.equal(uploaded.status, 201, uploaded.text);
    await edit(draft.id, { image: uploaded.body.id });
    await followsItsEvent({ id: draft.id, image: uploaded.body });

    const loose = await server.request(MEDIA, { method: 'POST', auth: author, ...raw(await jpeg(40, 40), 'draft-by-id.jpg') });
    assert.equal(loose.status, 201, loose.text);
    assert.equal(loose.body.post, null);
    assert.equal((await server.request(`${MEDIA}/${loose.body.id}`)).status, 200);
    await followsItsEvent(await makeEvent(server, author, { status: 'draft', image: loose.body.id }));
  });

  it('hides the image of a password-protected event from anonymous callers, whatever way it came', async () => {
    const sideloaded = await makeEvent(server, author, { status: 'publish', password: 'secret', image: `${origin}/protected.jpg` });
    const loose = await server.request(MEDIA, { method: 'POST', auth: author, ...raw(await jpeg(40, 40), 'protected-by-id.jpg') });
    const byId = await makeEvent(server, author, { status: 'publish', password: 'secret', image: loose.body.id });
    for (const event of [sideloaded, byId]) {
      const media = await mediaOf(event.image.id);
      assert.equal(media.post, event.id);
      assert.deepEqual(await seenBy(undefined, media), nowhere);
      assert.deepEqual(await seenBy(editor, media), everywhere);
      await edit(event.id, { password: '' });
      assert.deepEqual(await seenBy(undefined, media), everywhere);
    }
  });

  it('attaches an image once: the first post that shows it keeps it, a later draft does not hide it', async () => {
    const published = await makeEvent(server, author, { status: 'publish', image: `${origin}/shared.jpg` });
    const draft = await makeEvent(server, author, { status: 'draft', image: published.image.id });
    assert.equal(draft.image.id, published.image.id);
    const media = await mediaOf(published.image.id);
    assert.equal(media.post, published.id);
    assert.deepEqual(await seenBy(undefined, media), everywhere);

    // Its post deleted, an image is free again: the next post that shows it takes it.
    assert.equal((await server.request(`${EVENTS}/${published.id}?force=true`, { method: 'DELETE', auth: editor })).status, 200);
    assert.equal((await server.request(`${MEDIA}/${media.id}`)).status, 200);
    await edit(draft.id, { image: published.image.id });
    assert.equal((await mediaOf(published.image.id)).post, draft.id);
    assert.deepEqual(await seenBy(undefined, { ...media, post: draft.id }), nowhere);
  });

  it('hides the image of a draft venue, side-loaded or set on an update', async () => {
    const venue = await server.request(VENUES, {
      method: 'POST',
      auth: author,
      body: { venue: 'Draft hall', status: 'draft', image: `${origin}/venue.jpg` },
    });
    assert.equal(venue.status, 201, venue.text);
    const media = await mediaOf(venue.body.image.id);
    assert.equal(media.post, venue.body.id);
    assert.deepEqual(await seenBy(undefined, media), nowhere);
    const loose = await server.request(MEDIA, { method: 'POST', auth: author, ...raw(await jpeg(40, 40), 'venue-by-id.jpg') });
    const updated = await server.request(`${VENUES}/${venue.body.id}`, { method: 'POST', auth: author, body: { image: loose.body.id } });
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(await seenBy(undefined, await mediaOf(loose.body.id)), nowhere);
    assert.deepEqual(await seenBy(editor, await mediaOf(loose.body.id)), everywhere);
  });

  it('serves the files of a hidden image to anyone who has their URL, as WordPress serves its uploads', async () => {
    const event = await makeEvent(server, author, { status: 'draft', image: `${origin}/draft-file.jpg` });
    assert.deepEqual(await seenBy(undefined, await mediaOf(event.image.id)), nowhere);
    const file = await server.request(pathOf(event.image.url));
    assert.equal(file.status, 200);
    assert.equal(file.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal((await server.request(pathOf(event.image.sizes.thumbnail.url))).status, 200);
  });
});
