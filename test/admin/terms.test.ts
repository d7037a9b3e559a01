import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { Browser } from './admin.helper.ts';

const CATEGORIES = '/calendar/events/v1/categories';

describe('the editor’s categories and tags', () => {
  let server: TestServer;
  let admin: Credentials;
  let author: Credentials;

  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
    author = await server.createUser('author', 'terms-author');
  });
  after(() => server.close());

  const rowsOf = (html: string) => [...html.matchAll(/<th scope="row"><a href="[^"]*">([^<]*)<\/a>/g)].map((match) => match[1]);
  const category = async (search: string, language = 'en') =>
    (await server.request(`${CATEGORIES}?hide_empty=false&search=${search}&translation_language=${language}`, { auth: admin })).body
      .categories[0];

  it('adds a category under a parent with its Italian name, lists the tree with counts, edits and deletes it', async () => {
    const browser = new Browser(server.url);
    const csrf = await browser.logIn('admin', 'admin-password-1');
    assert.equal((await browser.post('/admin/categories/new', { csrf, name: 'Music', slug: '', parent: '', description: '' })).status, 303);
    const music = await category('Music');
    const form = await browser.get('/admin/categories/new');
    assert.match(form.text, new RegExp(`<option value="${music.id}">Music</option>`));
    const added = await browser.post('/admin/categories/new', {
      csrf,
      name: 'Jazz',
      slug: '',
      parent: String(music.id),
      description: 'Swing and bebop',
      name_it: 'Jazz italiano',
      description_it: 'Swing e bebop',
    });
    assert.equal(added.status, 303, added.text);
    const jazz = await category('Jazz');
    assert.equal(jazz.parent, music.id);
    assert.equal((await category('Jazz', 'it')).name, 'Jazz italiano');
    const list = await browser.get('/admin/categories/?saved=1');
    assert.deepEqual(rowsOf(list.text), ['Music', '— Jazz']);
    assert.match(list.text, /<td data-label="Published events">0<\/td>/);

    const edit = await browser.get(`/admin/categories/${jazz.id}/edit`);
    assert.match(edit.text, /name="name_it" value="Jazz italiano"/);
    assert.doesNotMatch(edit.text, /<option value="">None<\/option>/, 'an existing category’s None sends 0, not nothing');
    const saved = await browser.post(`/admin/categories/${jazz.id}/edit`, {
      csrf,
      name: 'Jazz & blues',
      slug: 'jazz',
      parent: String(music.id),
      description: 'Swing',
      name_it: 'Jazz e blues',
      description_it: '',
    });
    assert.equal(saved.headers.get('location'), `/admin/categories/${jazz.id}/edit?saved=1`);
    assert.equal((await category('blues')).name, 'Jazz &amp; blues', 'the API stores names entity-escaped');
    const again = await browser.get(`/admin/categories/${jazz.id}/edit`);
    assert.match(again.text, /name="name" value="Jazz &amp; blues"/, 'shown as typed, escaped once by the page');
    assert.match((await browser.get('/admin/categories/')).text, />— Jazz &amp; blues<\/a>/);
    assert.equal((await category('blues', 'it')).name, 'Jazz e blues');

    assert.match(again.text, /<option value="0">None<\/option>/);
    const top = await browser.post(`/admin/categories/${jazz.id}/edit`, { csrf, name: 'Jazz & blues', slug: 'jazz', parent: '0' });
    assert.equal(top.status, 303, top.text);
    assert.equal((await category('blues')).parent, 0, 'back to the top level');
    assert.match((await browser.get(`/admin/categories/${jazz.id}/edit`)).text, /<option value="0" selected>None<\/option>/);

    assert.equal((await browser.post(`/admin/categories/${jazz.id}/delete`, { csrf })).status, 303);
    assert.deepEqual(rowsOf((await browser.get('/admin/categories/')).text), ['Music']);
  });

  it('keeps what was typed when the API refuses it, and writes nothing', async () => {
    const browser = new Browser(server.url);
    const csrf = await browser.logIn('admin', 'admin-password-1');
    await browser.post('/admin/tags/new', { csrf, name: 'Outdoor' });
    const taken = await browser.post('/admin/tags/new', { csrf, name: 'Outdoor', slug: '', description: 'Again', name_it: 'All’aperto' });
    assert.equal(taken.status, 400);
    assert.match(taken.text, /id="field-name-error">Another item already has this\./);
    assert.match(taken.text, /name="description" rows="4">Again<\/textarea>/);
    assert.match(taken.text, /name="name_it" value="All’aperto"/);
    const long = await browser.post('/admin/tags/new', { csrf, name: 'Indoor', name_it: 'x'.repeat(201) });
    assert.equal(long.status, 400);
    assert.match(long.text, /id="field-name_it-error"/);
    const tags = (await server.request('/calendar/events/v1/tags?hide_empty=false', { auth: admin })).body.tags;
    assert.deepEqual(
      tags.map((tag: { name: string }) => tag.name),
      ['Outdoor'],
      'neither the second Outdoor nor Indoor was written',
    );
    const noToken = await browser.post('/admin/tags/new', { name: 'Sneaky' });
    assert.equal(noToken.status, 403);
  });

  it('lets an author manage categories but not tags, as the API does', async () => {
    const browser = new Browser(server.url);
    const csrf = await browser.logIn(author.username, author.password);
    assert.equal((await browser.get('/admin/categories/')).status, 200);
    assert.equal((await browser.get('/admin/tags/')).status, 403);
    assert.equal((await browser.post('/admin/tags/new', { csrf, name: 'Forbidden' })).status, 403);
    const tags = (await server.request('/calendar/events/v1/tags?hide_empty=false&search=Forbidden', { auth: admin })).body.tags;
    assert.equal(tags.length, 0);
  });
});
