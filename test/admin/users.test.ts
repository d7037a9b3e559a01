import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { Browser } from './admin.helper.ts';

describe('the editor’s users', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const idOf = (html: string, username: string) => {
    const found = new RegExp(`href="/admin/users/(\\d+)/edit">${username}<`).exec(html)?.[1];
    assert.ok(found !== undefined, `${username} is listed`);
    return found;
  };

  it('adds a user, refusing bad input with the values kept', async () => {
    const browser = new Browser(server.url);
    const csrf = await browser.logIn('admin', 'admin-password-1');
    const bad = await browser.post('/admin/users/new', {
      csrf,
      username: 'has space',
      email: 'mara@example.org',
      role: 'editor',
      password: 'long-enough-1',
    });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /id="field-username-error"/);
    assert.match(bad.text, /value="has space"/);
    assert.match(bad.text, /value="mara@example.org"/);
    assert.match(bad.text, /<option value="editor" selected>Editor<\/option>/);
    assert.doesNotMatch(bad.text, /long-enough-1/, 'a password is never sent back');
    const short = await browser.post('/admin/users/new', { csrf, username: 'mara', email: '', role: 'editor', password: 'short' });
    assert.equal(short.status, 400);
    assert.match(short.text, /id="field-password-error"/);
    assert.doesNotMatch((await browser.get('/admin/users/')).text, />mara</, 'nothing was added');
    const added = await browser.post('/admin/users/new', {
      csrf,
      username: 'mara',
      email: 'mara@example.org',
      role: 'editor',
      password: 'long-enough-1',
    });
    assert.equal(added.status, 303, added.text);
    const again = await browser.post('/admin/users/new', { csrf, username: 'mara', email: '', role: 'author', password: 'long-enough-2' });
    assert.equal(again.status, 400);
    assert.match(again.text, /id="field-username-error">Another item already has this\./);
    const list = await browser.get('/admin/users/?saved=1');
    assert.match(list.text, /<td data-label="Role">Editor<\/td>/);
    const mara = new Browser(server.url);
    await mara.logIn('mara', 'long-enough-1');
  });

  it('changes a role and a password at once for the user’s open sessions', async () => {
    const browser = new Browser(server.url);
    const csrf = await browser.logIn('admin', 'admin-password-1');
    const credentials = await server.createUser('editor', 'luca');
    const id = idOf((await browser.get('/admin/users/')).text, 'luca');
    const luca = new Browser(server.url);
    await luca.logIn('luca', credentials.password);
    assert.equal((await luca.get('/admin/tags/')).status, 200, 'an editor manages tags');

    const demoted = await browser.post(`/admin/users/${id}/edit`, { csrf, role: 'contributor', password: '' });
    assert.equal(demoted.status, 303, demoted.text);
    assert.equal((await luca.get('/admin/tags/')).status, 403, 'the new role applies to the next page');
    assert.equal((await luca.get('/admin/')).status, 200, 'the session itself goes on');

    const refused = await browser.post(`/admin/users/${id}/edit`, { csrf, role: 'editor', password: 'short' });
    assert.equal(refused.status, 400);
    assert.match(refused.text, /<option value="editor" selected>/);
    assert.equal((await luca.get('/admin/tags/')).status, 403, 'a refused form changes neither');
    assert.equal((await browser.post(`/admin/users/${id}/edit`, { csrf, role: 'overlord', password: '' })).status, 400);

    const reset = await browser.post(`/admin/users/${id}/edit`, { csrf, role: 'contributor', password: 'luca-password-2' });
    assert.equal(reset.status, 303);
    const ended = await luca.get('/admin/');
    assert.equal(ended.status, 303, 'a new password ends the sessions opened before it');
    assert.match(ended.headers.get('location') ?? '', /\/admin\/login\?next=.*&ended=1/);
    await new Browser(server.url).logIn('luca', 'luca-password-2');
  });

  it('creates an API token shown once, and revokes it', async () => {
    const browser = new Browser(server.url);
    const csrf = await browser.logIn('admin', 'admin-password-1');
    const id = idOf((await browser.get('/admin/users/')).text, 'admin');
    const created = await browser.post(`/admin/users/${id}/tokens`, { csrf, name: 'laptop' });
    assert.equal(created.status, 200, created.text);
    const token = /<code class="secret">([^<]+)<\/code>/.exec(created.text)?.[1];
    assert.ok(token !== undefined);
    assert.equal((await fetch(`${server.url}/wp/v2/settings`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
    const page = await browser.get(`/admin/users/${id}/edit`);
    assert.doesNotMatch(page.text, new RegExp(token), 'shown only once');
    const revoke = /action="(\/admin\/users\/\d+\/tokens\/\d+\/revoke)"[^]*?Revoke: laptop/.exec(page.text)?.[1];
    assert.ok(revoke !== undefined);
    assert.equal((await browser.post(revoke, { csrf })).status, 303);
    assert.equal((await fetch(`${server.url}/wp/v2/settings`, { headers: { authorization: `Bearer ${token}` } })).status, 401);
  });

  it('is for administrators only, and every change needs the form token', async () => {
    const editor = await server.createUser('editor', 'users-editor');
    const browser = new Browser(server.url);
    const csrf = await browser.logIn(editor.username, editor.password);
    assert.equal((await browser.get('/admin/users/')).status, 403);
    assert.equal(
      (await browser.post('/admin/users/new', { csrf, username: 'x1', email: '', role: 'administrator', password: 'long-enough-1' }))
        .status,
      403,
    );
    assert.equal((await browser.post(`/admin/users/${editor.id}/edit`, { csrf, role: 'administrator', password: '' })).status, 403);
    const admin = new Browser(server.url);
    await admin.logIn('admin', 'admin-password-1');
    assert.equal((await admin.post(`/admin/users/${editor.id}/edit`, { role: 'administrator', password: '' })).status, 403);
    assert.doesNotMatch((await admin.get('/admin/users/')).text, />x1</);
    assert.match((await admin.get(`/admin/users/${editor.id}/edit`)).text, /<option value="editor" selected>/);
  });
});
