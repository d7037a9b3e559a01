import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { ADMIN, startSecondServer, startTestServer, type TestServer } from '../helpers/server.ts';
import { Browser } from './admin.helper.ts';

describe('editor sessions', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ AUTH_MAX_FAILURES: '3', AUTH_MAX_FAILURES_PER_ADDRESS: '0' });
  });
  after(() => server.close());

  it('sends a signed-out reader of a page to the login form, with the page to come back to', async () => {
    const browser = new Browser(server.url);
    const answer = await browser.get('/admin/events/?status=draft');
    assert.equal(answer.status, 303);
    assert.equal(answer.headers.get('location'), `/admin/login?next=${encodeURIComponent('/admin/events/?status=draft')}`);
    const dashboard = await browser.get('/admin');
    assert.equal(dashboard.status, 303);
    assert.equal(dashboard.headers.get('cache-control'), 'no-store');
  });

  it('sends /wp-admin/ and /login to the editor', async () => {
    for (const path of ['/wp-admin/', '/wp-admin', '/login']) {
      const answer = await new Browser(server.url).get(path);
      assert.equal(answer.status, 303, path);
      assert.equal(answer.headers.get('location'), '/admin/');
    }
  });

  it('shows the login form with its labels, a strict policy and no cache', async () => {
    const browser = new Browser(server.url);
    const form = await browser.get('/admin/login');
    assert.equal(form.status, 200);
    assert.match(form.text, /<label for="username">Username<\/label>/);
    assert.match(form.text, /<label for="password">Password<\/label>/);
    assert.doesNotMatch(form.text, /<script/);
    assert.equal(form.headers.get('cache-control'), 'no-store');
    const csp = form.headers.get('content-security-policy') ?? '';
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    assert.doesNotMatch(csp, /script-src/);
    const italian = await new Browser(server.url).get('/admin/login', { 'accept-language': 'it' });
    assert.match(italian.text, /<label for="username">Nome utente<\/label>/);
  });

  it('signs in with the right password: an HttpOnly, SameSite=Lax cookie for the editor only, then the dashboard', async () => {
    const browser = new Browser(server.url);
    const form = await browser.get('/admin/login?next=%2Fadmin%2Fevents%2F');
    const answer = await browser.post('/admin/login', {
      csrf: Browser.csrfOf(form.text),
      username: ADMIN.username,
      password: ADMIN.password,
      next: '/admin/events/',
    });
    assert.equal(answer.status, 303);
    assert.equal(answer.headers.get('location'), '/admin/events/');
    const session = browser.setCookies.find((line) => line.startsWith('almanac_session='));
    assert.ok(session !== undefined);
    assert.match(session, /; HttpOnly/);
    assert.match(session, /; SameSite=Lax/);
    assert.match(session, /; Path=\/admin/);
    assert.doesNotMatch(session, /Secure/, 'an http site cannot keep a Secure cookie');
    const dashboard = await browser.get('/admin/');
    assert.equal(dashboard.status, 200);
    assert.match(dashboard.text, /<h1>Dashboard<\/h1>/);
    assert.match(dashboard.headers.get('cache-control') ?? '', /no-store/);
    assert.match(dashboard.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  });

  it('refuses a wrong password with the form again, and locks out as the API does', async () => {
    const user = await server.createUser('editor', 'locked-editor');
    const browser = new Browser(server.url);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const answer = await browser.submitLogin(user.username, 'wrong-password');
      assert.equal(answer.status, 401);
      assert.match(answer.text, /role="alert"[^>]*>The username or the password is wrong\./);
      assert.match(answer.text, /value="locked-editor"/, 'the username typed is kept');
      assert.ok(!browser.cookies.has('almanac_session'));
    }
    const locked = await browser.submitLogin(user.username, user.password);
    assert.equal(locked.status, 429);
    assert.ok(locked.headers.get('retry-after') !== null);
    assert.ok(!browser.cookies.has('almanac_session'));
    // The same lockout holds for the API's Basic auth: one throttle.
    const api = await fetch(`${server.url}/calendar/events/v1/events`, { headers: { authorization: user.basic } });
    assert.equal(api.status, 429);
  });

  it('refuses a POST without its form token, or with another one, and changes nothing', async () => {
    const browser = new Browser(server.url);
    await browser.get('/admin/login');
    const missing = await browser.post('/admin/login', { username: ADMIN.username, password: ADMIN.password });
    assert.equal(missing.status, 403);
    const wrong = await browser.post('/admin/login', { csrf: 'x'.repeat(32), username: ADMIN.username, password: ADMIN.password });
    assert.equal(wrong.status, 403);
    assert.ok(!browser.cookies.has('almanac_session'));

    const signedIn = new Browser(server.url);
    const csrf = await signedIn.logIn(ADMIN.username, ADMIN.password);
    assert.equal((await signedIn.post('/admin/logout', {})).status, 403);
    assert.equal((await signedIn.post('/admin/logout', { csrf: `${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'B' : 'A'}` })).status, 403);
    assert.equal((await signedIn.get('/admin/')).status, 200, 'the session still stands');
    // Another session's token is no token for this one.
    const other = await new Browser(server.url).logIn(ADMIN.username, ADMIN.password);
    assert.equal((await signedIn.post('/admin/logout', { csrf: other })).status, 403);
    assert.equal((await signedIn.get('/admin/')).status, 200);
  });

  it('reads no file for a signed-out visitor: a multipart login is refused before its body is read', async () => {
    const form = new FormData();
    form.set('username', ADMIN.username);
    form.set('password', ADMIN.password);
    form.set('file', new Blob([new Uint8Array(2 * 1024 * 1024)]), 'big.bin');
    const response = await fetch(`${server.url}/admin/login`, { method: 'POST', body: form, redirect: 'manual' });
    assert.equal(response.status, 415);
    assert.equal(response.headers.get('set-cookie')?.includes('almanac_session=') ?? false, false);
  });

  it('never sends a sign-in elsewhere than the editor', async () => {
    for (const next of [
      '//evil.example/admin/',
      'https://evil.example/',
      '/\\evil.example',
      '/admin/../events/',
      'javascript:alert(1)',
      '/events/',
    ]) {
      const browser = new Browser(server.url);
      const form = await browser.get(`/admin/login?next=${encodeURIComponent(next)}`);
      assert.match(form.text, /name="next" value="\/admin\/"/);
      const answer = await browser.post('/admin/login', {
        csrf: Browser.csrfOf(form.text),
        username: ADMIN.username,
        password: ADMIN.password,
        next,
      });
      assert.equal(answer.status, 303);
      assert.equal(answer.headers.get('location'), '/admin/', next);
    }
  });

  it('keeps a subscriber out of the editor', async () => {
    const subscriber = await server.createUser('subscriber');
    const browser = new Browser(server.url);
    const answer = await browser.submitLogin(subscriber.username, subscriber.password);
    assert.equal(answer.status, 403);
    assert.match(answer.text, /This account cannot use the editor/);
    assert.ok(!browser.cookies.has('almanac_session'));
  });

  it('applies a role or a password change at once', async () => {
    const users = () => server.server.store.db;
    const author = await server.createUser('author', 'demoted-author');
    const browser = new Browser(server.url);
    await browser.logIn(author.username, author.password);
    await users().updateTable('users').set({ role: 'subscriber' }).where('id', '=', author.id).execute();
    assert.equal((await browser.get('/admin/')).status, 403);
    await users().updateTable('users').set({ role: 'author' }).where('id', '=', author.id).execute();
    assert.equal((await browser.get('/admin/')).status, 200);
    await users().updateTable('users').set({ password_hash: 'scrypt$changed' }).where('id', '=', author.id).execute();
    const after = await browser.get('/admin/');
    assert.equal(after.status, 303);
    assert.match(after.headers.get('location') ?? '', /ended=1/);
  });

  it('ends a session on logout in every process', async () => {
    const second = await startSecondServer(server);
    try {
      const browser = new Browser(server.url);
      const csrf = await browser.logIn(ADMIN.username, ADMIN.password);
      const cookie = `almanac_session=${browser.cookies.get('almanac_session')}`;
      const elsewhere = () => fetch(`${second.url}/admin/`, { headers: { cookie }, redirect: 'manual' });
      assert.equal((await elsewhere()).status, 200, 'the other process knows the session');
      const out = await browser.post('/admin/logout', { csrf });
      assert.equal(out.status, 303);
      assert.ok(!browser.cookies.has('almanac_session'));
      assert.equal((await elsewhere()).status, 303, 'and knows it ended');
    } finally {
      await second.close();
    }
  });

  it('ends a session left idle, and any session at its absolute end', async () => {
    const idle = await startSecondServer(server, { ADMIN_SESSION_IDLE_SECONDS: '1', ADMIN_SESSION_MAX_SECONDS: '2' });
    try {
      const browser = new Browser(idle.url);
      await browser.logIn(ADMIN.username, ADMIN.password);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      assert.equal((await browser.get('/admin/')).status, 303, 'idle for longer than allowed');

      const busy = new Browser(idle.url);
      const signedInAt = Date.now();
      await busy.logIn(ADMIN.username, ADMIN.password);
      let lastOpenMs = 0;
      let endedMs = Infinity;
      while (Date.now() - signedInAt < 4000) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        const status = (await busy.get('/admin/')).status;
        if (status === 303) {
          endedMs = Date.now() - signedInAt;
          break;
        }
        lastOpenMs = Date.now() - signedInAt;
      }
      assert.ok(lastOpenMs > 1000, 'activity keeps a session past the idle limit');
      assert.ok(endedMs >= 2000 && endedMs < 3500, `ended ${endedMs} ms after sign-in`);
    } finally {
      await idle.close();
    }
  });

  it('refuses bad session settings', () => {
    for (const [name, value] of [
      ['ADMIN_SESSION_IDLE_SECONDS', '0'],
      ['ADMIN_SESSION_IDLE_SECONDS', 'soon'],
      ['ADMIN_SESSION_MAX_SECONDS', '-5'],
    ] as const) {
      assert.throws(() => loadConfig({ [name]: value }), new RegExp(name));
    }
    assert.throws(
      () => loadConfig({ ADMIN_SESSION_IDLE_SECONDS: '600', ADMIN_SESSION_MAX_SECONDS: '60' }),
      /ADMIN_SESSION_MAX_SECONDS must be at least/,
    );
    const config = loadConfig({});
    assert.equal(config.adminSessionIdleSeconds, 3600);
    assert.equal(config.adminSessionMaxSeconds, 86_400);
  });

  it('marks the cookie Secure on an https site', async () => {
    const secure = await startSecondServer(server, { BASE_URL: 'https://calendar.example' });
    try {
      const browser = new Browser(secure.url);
      await browser.submitLogin(ADMIN.username, ADMIN.password);
      const session = browser.setCookies.find((line) => line.startsWith('almanac_session='));
      assert.match(session ?? '', /; Secure/);
    } finally {
      await secure.close();
    }
  });
});
