/**
 * The calendar driven by `@wordpress/api-fetch`, the client of the block
 * editor, through its default middlewares: `_locale=user` on every request,
 * PUT/PATCH/DELETE sent as POST with X-HTTP-Method-Override, JSON bodies, and
 * a root URL either pretty (`/`) or plain (`/?rest_route=/`), as a WordPress
 * site without pretty permalinks gives it (issue 18).
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import type { APIFetchMiddleware } from '@wordpress/api-fetch';
import sharp from 'sharp';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';

const EVENTS = '/calendar/events/v1/events';

// Its CommonJS build: the package's types describe that build's exports, not the ES module's default.
const { default: apiFetch }: typeof import('@wordpress/api-fetch') = createRequire(import.meta.url)('@wordpress/api-fetch');

describe('@wordpress/api-fetch against the calendar', () => {
  let server: TestServer;
  let editor: Credentials;
  /** What each request looked like on the wire, to prove the middlewares ran. */
  const sent: { method: string; url: string; override: string | null }[] = [];
  let root = '';

  before(async () => {
    server = await startTestServer();
    editor = await server.admin();
    // The root and the credentials are middlewares, as a site's script registers them.
    const rootAndAuth: APIFetchMiddleware = (options, next) =>
      apiFetch.createRootURLMiddleware(root)({ ...options, headers: { ...options.headers, Authorization: editor.bearer } }, next);
    apiFetch.use(rootAndAuth);
    apiFetch.setFetchHandler((options) => {
      const headers = new Headers(options.headers);
      sent.push({ method: options.method ?? 'GET', url: options.url ?? '', override: headers.get('x-http-method-override') });
      return apiFetch.defaultFetchHandler(options);
    });
  });
  after(async () => server.close());

  for (const [name, rootOf] of [
    ['pretty permalinks (/)', (url: string) => `${url}/`],
    ['plain permalinks (/?rest_route=/)', (url: string) => `${url}/?rest_route=/`],
  ] as const) {
    it(`reads, creates, updates and deletes an event with ${name}`, async () => {
      root = rootOf(server.url);
      sent.length = 0;
      const created = await apiFetch<any>({
        path: EVENTS,
        method: 'POST',
        data: { title: 'Block editor event', start_date: '2031-07-01 18:00', end_date: '2031-07-01 20:00', categories: ['talks'] },
      });
      assert.equal(created.title, 'Block editor event');
      assert.deepEqual(
        created.categories.map((category: { slug: string }) => category.slug),
        ['talks'],
      );

      const list = await apiFetch<any>({ path: `${EVENTS}?start_date=2031-07-01&end_date=2031-07-02&categories=talks` });
      assert.ok(list.events.some((event: { id: number }) => event.id === created.id));

      const updated = await apiFetch<any>({
        path: `${EVENTS}/${created.id}`,
        method: 'PUT',
        data: { title: 'Block editor event, renamed' },
      });
      assert.equal(updated.title, 'Block editor event, renamed');
      assert.equal(updated.start_date, '2031-07-01 18:00:00', 'PUT through the override is partial');

      const trashed = await apiFetch<any>({ path: `${EVENTS}/${created.id}`, method: 'DELETE' });
      assert.equal(trashed.status, 'trash');
      await apiFetch({ path: `${EVENTS}/${created.id}?force=true`, method: 'DELETE' });
      await assert.rejects(
        apiFetch({ path: `${EVENTS}/${created.id}` }),
        (error: any) => error.code === 'rest-event-not-found' && error.data?.status === 404,
      );

      // The default middlewares did what the block editor relies on.
      assert.ok(sent.every((request) => new URL(request.url).searchParams.get('_locale') === 'user'));
      const overridden = sent.filter((request) => request.override !== null);
      assert.deepEqual(
        overridden.map((request) => `${request.method} ${request.override}`),
        ['POST PUT', 'POST DELETE', 'POST DELETE'],
      );
      if (root.includes('rest_route')) {
        assert.ok(sent.every((request) => new URL(request.url).searchParams.get('rest_route')?.startsWith(EVENTS)));
      }
    });
  }

  it('surfaces a refusal as WordPress error data', async () => {
    root = `${server.url}/`;
    await assert.rejects(
      apiFetch({ path: EVENTS, method: 'POST', data: { title: 'No dates' } }),
      (error: any) => error.code === 'rest_missing_callback_param' && error.data?.status === 400,
    );
  });

  it('uploads an image as the block editor does (a FormData body) and as a raw body with Content-Disposition', async () => {
    root = `${server.url}/`;
    const bytes = new Uint8Array(
      await sharp({ create: { width: 320, height: 200, channels: 4, background: '#3a6' } })
        .png()
        .toBuffer(),
    );
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'image/png' }), 'editor-upload.png');
    form.append('alt_text', 'Uploaded from the editor');
    const fromForm = await apiFetch<any>({ path: '/wp/v2/media', method: 'POST', body: form });
    assert.equal(fromForm.mime_type, 'image/png');
    assert.equal(fromForm.alt_text, 'Uploaded from the editor');
    const fromBody = await apiFetch<any>({
      path: '/wp/v2/media?title=Raw%20upload',
      method: 'POST',
      body: bytes,
      headers: { 'Content-Type': 'image/png', 'Content-Disposition': 'attachment; filename="raw-upload.png"' },
    });
    assert.equal(fromBody.title.rendered, 'Raw upload');
    assert.match(fromBody.source_url, /\/raw-upload\.png$/);
    const read = await apiFetch<any>({ path: `/wp/v2/media/${fromBody.id}` });
    assert.equal(read.id, fromBody.id);
  });
});
