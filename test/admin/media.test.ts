import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { blob, jpeg, MEDIA } from '../calendar/media.factories.ts';
import { Browser } from './admin.helper.ts';

describe('the editor’s media library', () => {
  let server: TestServer;
  let admin: Credentials;

  before(async () => {
    // A small limit, so that a file past it is cheap to send.
    server = await startTestServer({ MEDIA_MAX_BYTES: '300000' });
    admin = await server.admin();
  });
  after(() => server.close());

  /** Sends the upload form as a browser does: multipart, the token among its parts. */
  const upload = async (browser: Browser, parts: Record<string, string | { bytes: Buffer; filename: string }>) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(parts)) {
      if (typeof value === 'string') form.append(name, value);
      else form.append(name, blob(value.bytes), value.filename);
    }
    const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const answer = await fetch(`${server.url}/admin/media/new`, { method: 'POST', headers: { cookie }, body: form, redirect: 'manual' });
    return { status: answer.status, headers: answer.headers, text: await answer.text() };
  };
  const library = async () => (await server.request(`${MEDIA}?per_page=100`, { auth: admin })).body as { id: number; alt_text: string }[];

  it("says a file past MEDIA_MAX_BYTES is too large, in the person's language, and stores nothing", async () => {
    const browser = new Browser(server.url);
    const csrf = await browser.logIn('admin', 'admin-password-1');
    await browser.get('/admin/?lang=it');
    const answer = await upload(browser, { csrf, title: 'Huge', file: { bytes: Buffer.alloc(400_000, 1), filename: 'huge.jpg' } });
    assert.equal(answer.status, 413);
    assert.match(answer.text, /<h1[^>]*>File troppo grande<\/h1>/);
    assert.deepEqual(await library(), []);
  });

  it('uploads an image through the media service, lists it with its thumbnail, edits its texts and deletes it', async () => {
    const browser = new Browser(server.url);
    const csrf = await browser.logIn('admin', 'admin-password-1');
    assert.match((await browser.get('/admin/media/new')).text, /enctype="multipart\/form-data"/);
    const added = await upload(browser, {
      csrf,
      title: 'Piazza',
      alt_text: 'The square at dusk',
      file: { bytes: await jpeg(400, 300), filename: 'piazza.jpg' },
    });
    assert.equal(added.status, 303, added.text);
    const [image] = await library();
    assert.ok(image !== undefined);
    assert.equal(image.alt_text, 'The square at dusk');
    const list = await browser.get('/admin/media/?saved=1');
    assert.match(list.text, /<img class="thumb" src="[^"]*piazza[^"]*150x150[^"]*" alt=""> Piazza<\/a>/);
    assert.match(list.text, /400×300/);

    const bad = await browser.post(`/admin/media/${image.id}/edit`, { csrf, title: 'Piazza dei Signori', alt_text: 'x'.repeat(1001) });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /id="field-alt_text-error"/);
    assert.match(bad.text, /value="Piazza dei Signori"/);
    assert.equal((await library())[0]?.alt_text, 'The square at dusk', 'nothing changed');
    const saved = await browser.post(`/admin/media/${image.id}/edit`, { csrf, title: 'Piazza dei Signori', alt_text: 'The square' });
    assert.equal(saved.status, 303, saved.text);
    assert.equal((await library())[0]?.alt_text, 'The square');

    assert.equal((await browser.post(`/admin/media/${image.id}/delete`, { csrf })).status, 303);
    assert.deepEqual(await library(), []);
  });

  it('links an author to the forms of their own images only', async () => {
    const theirs = new Browser(server.url);
    const adminCsrf = await theirs.logIn('admin', 'admin-password-1');
    assert.equal(
      (await upload(theirs, { csrf: adminCsrf, title: 'Admin image', file: { bytes: await jpeg(20, 20), filename: 'a.jpg' } })).status,
      303,
    );
    const author = await server.createUser('author', 'media-author');
    const browser = new Browser(server.url);
    const csrf = await browser.logIn(author.username, author.password);
    assert.equal(
      (await upload(browser, { csrf, title: 'Author image', file: { bytes: await jpeg(20, 20), filename: 'b.jpg' } })).status,
      303,
    );
    const list = (await browser.get('/admin/media/')).text;
    assert.match(list, /<a href="\/admin\/media\/\d+\/edit"><img class="thumb" src="[^"]*" alt=""> Author image<\/a>/);
    assert.match(list, /<th scope="row"><img class="thumb" src="[^"]*" alt=""> Admin image<\/th>/, 'seen, not offered to change');
    const adminImage = (await library()).find((image) => (image as { title?: { rendered: string } }).title?.rendered === 'Admin image');
    assert.ok(adminImage !== undefined);
    assert.equal((await browser.get(`/admin/media/${adminImage.id}/edit`)).status, 403);
    assert.match(
      (await theirs.get('/admin/media/')).text,
      /<a href="\/admin\/media\/\d+\/edit"><img[^>]*> Author image<\/a>/,
      'an editor changes anyone’s',
    );
    for (const image of await library()) await server.request(`${MEDIA}/${image.id}?force=true`, { method: 'DELETE', auth: admin });
  });

  it('refuses a missing file, a file that is no image, or a missing token, keeping the texts', async () => {
    const browser = new Browser(server.url);
    const csrf = await browser.logIn('admin', 'admin-password-1');
    const none = await upload(browser, { csrf, title: 'Nothing', alt_text: '' });
    assert.equal(none.status, 400);
    assert.match(none.text, /id="field-file-error">This is required\./);
    assert.match(none.text, /value="Nothing"/);
    const text = await upload(browser, { csrf, title: 'Notes', file: { bytes: Buffer.from('not an image'), filename: 'notes.jpg' } });
    assert.equal(text.status, 400, text.text);
    assert.match(text.text, /id="field-file-error"/);
    assert.match(text.text, /value="Notes"/);
    const forged = await upload(browser, { title: 'Forged', file: { bytes: await jpeg(20, 20), filename: 'forged.jpg' } });
    assert.equal(forged.status, 403);
    assert.deepEqual(await library(), []);

    const contributor = await server.createUser('contributor', 'media-contributor');
    const other = new Browser(server.url);
    const contributorCsrf = await other.logIn(contributor.username, contributor.password);
    assert.equal((await other.get('/admin/media/')).status, 403);
    const refused = await upload(other, { csrf: contributorCsrf, file: { bytes: await jpeg(20, 20), filename: 'c.jpg' } });
    assert.equal(refused.status, 403, 'uploads are for authors and above, as in the API');
    assert.deepEqual(await library(), []);
  });
});
