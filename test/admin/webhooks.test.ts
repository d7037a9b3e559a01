import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { Browser } from './admin.helper.ts';

const WEBHOOKS = '/calendar/events/v1/webhooks';

describe('the editor’s webhooks', () => {
  let server: TestServer;
  let admin: Credentials;

  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(() => server.close());

  const subscriptions = async () =>
    (await server.request(WEBHOOKS, { auth: admin })).body as { id: number; url: string; events: string[] }[];

  it('adds a subscription showing its secret once, edits it, lists its deliveries and deletes it', async () => {
    const browser = new Browser(server.url);
    const csrf = await browser.logIn('admin', 'admin-password-1');
    const form = await browser.get('/admin/webhooks/new');
    assert.match(form.text, /<legend>Changes it receives<\/legend>/);
    const body = new URLSearchParams({ csrf, url: 'https://hooks.example.org/almanac', description: 'Newsletter', active: '1' });
    body.append('events', 'event.created');
    body.append('events', 'event.updated');
    const created = await fetch(`${server.url}/admin/webhooks/new`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `almanac_session=${browser.cookies.get('almanac_session')}` },
      body: body.toString(),
      redirect: 'manual',
    });
    const page = await created.text();
    assert.equal(created.status, 200, page);
    assert.match(page, /<code class="secret">whsec_/);
    assert.match(page, /No deliveries yet\./);
    const [hook] = await subscriptions();
    assert.ok(hook !== undefined);
    assert.deepEqual(hook.events, ['event.created', 'event.updated']);

    const edit = await browser.get(`/admin/webhooks/${hook.id}/edit`);
    assert.doesNotMatch(edit.text, /whsec_/, 'the secret is shown once');
    assert.match(edit.text, /value="event.updated" checked>/);
    const saved = await browser.post(`/admin/webhooks/${hook.id}/edit`, { csrf, url: 'https://hooks.example.org/v2', events: '*' });
    assert.equal(saved.status, 303, saved.text);
    const [changed] = await subscriptions();
    assert.equal(changed?.url, 'https://hooks.example.org/v2');
    assert.deepEqual(changed?.events, ['*']);
    assert.match((await browser.get('/admin/webhooks/')).text, /<td data-label="State">Stopped<\/td>/, 'an unticked Active stops it');

    assert.equal((await browser.post(`/admin/webhooks/${hook.id}/delete`, { csrf })).status, 303);
    assert.deepEqual(await subscriptions(), []);
  });

  it('refuses a bad URL or no events with the form as typed, and adds nothing; administrators only', async () => {
    const browser = new Browser(server.url);
    const csrf = await browser.logIn('admin', 'admin-password-1');
    const bad = await browser.post('/admin/webhooks/new', {
      csrf,
      url: 'http://127.0.0.1/hook',
      description: 'Local',
      events: 'tag.deleted',
    });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /id="field-url-error"/);
    assert.match(bad.text, /value="http:\/\/127.0.0.1\/hook"/);
    assert.match(bad.text, />Local<\/textarea>/);
    assert.match(bad.text, /value="tag.deleted" checked>/);
    const none = await browser.post('/admin/webhooks/new', { csrf, url: 'https://hooks.example.org/x' });
    assert.equal(none.status, 400);
    assert.match(none.text, /id="field-events-error"/);
    assert.deepEqual(await subscriptions(), []);
    assert.equal((await browser.post('/admin/webhooks/new', { url: 'https://hooks.example.org/x', events: '*' })).status, 403);

    const editor = await server.createUser('editor', 'hooks-editor');
    const other = new Browser(server.url);
    const editorCsrf = await other.logIn(editor.username, editor.password);
    assert.equal((await other.get('/admin/webhooks/')).status, 403);
    assert.equal(
      (await other.post('/admin/webhooks/new', { csrf: editorCsrf, url: 'https://hooks.example.org/x', events: '*' })).status,
      403,
    );
    assert.deepEqual(await subscriptions(), []);
  });
});
