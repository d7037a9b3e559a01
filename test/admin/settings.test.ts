import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { Browser } from './admin.helper.ts';

describe('the editor’s settings', () => {
  let server: TestServer;
  let admin: Credentials;
  let editor: Credentials;

  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
    editor = await server.createUser('editor', 'settings-editor');
  });
  after(() => server.close());

  const settings = async () => (await server.request('/wp/v2/settings', { auth: admin })).body;

  it('shows every setting and saves what changed through the settings service', async () => {
    const browser = new Browser(server.url);
    const csrf = await browser.logIn('admin', 'admin-password-1');
    const form = await browser.get('/admin/settings');
    assert.equal(form.status, 200, form.text);
    for (const label of [
      'Site title',
      'Tagline',
      'Default time zone',
      'Default language',
      'First day of the week',
      'Date format',
      'Time format',
      'Currency symbol',
      'Currency position',
    ]) {
      assert.match(form.text, new RegExp(`<label for="field-[a-z_]+">${label}`), label);
    }
    const before = await settings();
    const saved = await browser.post('/admin/settings', {
      csrf,
      title: 'Vicenza events',
      description: 'What is on',
      title_it: before.title_it,
      description_it: 'Cosa succede',
      timezone: 'Europe/Rome',
      language: 'it_IT',
      start_of_week: '1',
      date_format: 'j F Y',
      time_format: 'H:i',
      currency_symbol: '€',
      currency_position: 'postfix',
    });
    assert.equal(saved.status, 303, saved.text);
    assert.equal(saved.headers.get('location'), '/admin/settings?saved=1');
    const after = await settings();
    assert.deepEqual(
      { ...after },
      {
        ...before,
        title: 'Vicenza events',
        description: 'What is on',
        // Sent unchanged, the Italian title was not set: it keeps following the English one.
        title_it: 'Vicenza events',
        description_it: 'Cosa succede',
        timezone: 'Europe/Rome',
        language: 'it_IT',
        start_of_week: 1,
        date_format: 'j F Y',
        time_format: 'H:i',
        currency_symbol: '€',
        currency_position: 'postfix',
      },
    );
    assert.match((await browser.get('/admin/settings?saved=1')).text, /role="status">Saved\./);
  });

  it('refuses a bad value with the form as typed, changing nothing; administrators only', async () => {
    const browser = new Browser(server.url);
    const csrf = await browser.logIn('admin', 'admin-password-1');
    const before = await settings();
    const bad = await browser.post('/admin/settings', {
      csrf,
      title: 'Changed title',
      timezone: 'Mars/Olympus',
      date_format: 'Q%',
      time_format: 'H:i',
      start_of_week: '1',
    });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /id="field-date_format-error"/);
    assert.match(bad.text, /value="Changed title"/);
    assert.match(bad.text, /value="Q%"/);
    const zone = await browser.post('/admin/settings', { csrf, title: 'Changed title', timezone: 'Mars/Olympus' });
    assert.equal(zone.status, 400);
    assert.match(zone.text, /id="field-timezone-error"/);
    assert.deepEqual(await settings(), before, 'nothing changed');
    assert.equal((await browser.post('/admin/settings', { title: 'No token' })).status, 403);
    assert.deepEqual(await settings(), before);

    const other = new Browser(server.url);
    const editorCsrf = await other.logIn(editor.username, editor.password);
    assert.equal((await other.get('/admin/settings')).status, 403);
    assert.equal((await other.post('/admin/settings', { csrf: editorCsrf, title: 'Editor title' })).status, 403);
    assert.deepEqual(await settings(), before);
  });
});
