import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { makeEvent, utcDay } from './events.factories.ts';
import { makeOrganizer, makeVenue } from './venues-organizers.factories.ts';

/**
 * Password-protected venues and organizers have pages as protected events do (issue 25): a password form
 * until the right password is posted, nothing protected before it, over HTTP on every database.
 */

interface Page {
  readonly status: number;
  readonly headers: Headers;
  readonly html: string;
}

describe('calendar pages: protected venues and organizers', () => {
  let server: TestServer;
  let admin: Credentials;

  before(async () => {
    // A low limit of wrong passwords, the last test reaches it.
    server = await startTestServer({ AUTH_MAX_FAILURES: '6' });
    admin = await server.admin();
  });
  after(async () => server.close());

  const page = async (path: string, init: RequestInit = {}): Promise<Page> => {
    const response = await fetch(`${server.url}${path}`, { redirect: 'manual', ...init });
    return { status: response.status, headers: response.headers, html: await response.text() };
  };
  const post = (path: string, body: string, type = 'application/x-www-form-urlencoded') =>
    page(path, { method: 'POST', headers: { 'content-type': type }, body });
  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  const pathOf = (url: string) => new URL(url).pathname;

  /** A venue and an organizer behind `password`, with an event of theirs that is not protected. */
  const protectedPair = async (name: string, password: string) => {
    const venue = await makeVenue(server, admin, {
      venue: `${name} hall`,
      address: `${name} secret street 1`,
      city: 'Hidden city',
      phone: '+39 555 0101',
      description: `${name} venue code 4321`,
      password,
    });
    const organizer = await makeOrganizer(server, admin, {
      organizer: `${name} society`,
      email: `${name.toLowerCase()}@secret.example`,
      phone: '+39 555 0202',
      description: `${name} organizer code 8765`,
      password,
    });
    const event = await makeEvent(server, admin, {
      title: `${name} gathering`,
      start_date: `${utcDay(2)} 18:00`,
      end_date: `${utcDay(2)} 19:00`,
      venue: venue.id,
      organizer: [organizer.id],
    });
    return { venue, organizer, event };
  };

  /** Nothing a protected venue or organizer protects is on the page, nor its events. */
  const assertNothingProtected = (result: Page, name: string, label: string) => {
    assert.doesNotMatch(result.html, new RegExp(`secret street|Hidden city|555 0|code \\d|secret\\.example|${name} gathering`), label);
    assert.doesNotMatch(result.html, /application\/ld\+json/, label);
  };
  /** The password form, and nothing protected. */
  const assertLocked = (result: Page, name: string, label: string) => {
    assertNothingProtected(result, name, label);
    assert.match(result.html, /<input id="password" name="password" type="password" required/, label);
  };

  it('shows an anonymous visitor the password form only, and the whole page after the right password', async () => {
    const { venue, organizer } = await protectedPair('Ember', 'open-sesame');
    for (const [item, words] of [
      [venue, [/Ember venue code 4321/, /Ember secret street 1/, /Hidden city/, /\+39 555 0101/]],
      [organizer, [/Ember organizer code 8765/, /ember@secret\.example/, /\+39 555 0202/]],
    ] as const) {
      const path = pathOf(item.url);
      const locked = await page(path);
      assert.equal(locked.status, 200, locked.html.slice(0, 300));
      assertLocked(locked, 'Ember', path);
      assert.match(locked.html, /<h1>This page is protected by a password\.<\/h1>/);
      assert.match(locked.html, new RegExp(`<form class="password" method="post" action="${path}">`));
      assert.match(locked.html, /<meta name="robots" content="noindex/);
      // An Authorization header changes nothing: pages never act for a caller.
      assertLocked(await page(path, { headers: { authorization: admin.bearer } }), 'Ember', `${path}, as admin`);

      const wrong = await post(path, form({ password: 'sesame' }));
      assert.equal(wrong.status, 403, path);
      assert.match(wrong.html, /Wrong password\./);
      assert.match(wrong.html, /aria-invalid="true"/);
      assertLocked(wrong, 'Ember', `${path}, wrong password`);
      assert.equal(wrong.headers.get('cache-control'), 'no-store');

      const open = await post(path, form({ password: 'open-sesame' }));
      assert.equal(open.status, 200, open.html.slice(0, 300));
      assert.equal(open.headers.get('cache-control'), 'no-store');
      for (const fact of words) assert.match(open.html, fact, `${path}: ${fact}`);
      assert.match(open.html, /Ember gathering/, `${path}: its upcoming events`);
      // The right password is the reader's own: the next anonymous visitor sees the form again.
      assertLocked(await page(path), 'Ember', `${path}, after another reader's password`);
    }
  });

  it('keeps the language and the page of events asked for in the form, and answers in that language', async () => {
    const { venue } = await protectedPair('Cinder', 'chiave');
    const path = pathOf(venue.url);
    const italian = await page(`${path}?lang=it`);
    assert.equal(italian.status, 200);
    assert.match(italian.html, /<html lang="it">/);
    assert.match(italian.html, /Questa pagina è protetta da una password\./);
    assert.match(italian.html, new RegExp(`action="${path}\\?lang=it"`));
    const wrong = await post(`${path}?lang=it`, form({ password: 'sbagliata' }));
    assert.equal(wrong.status, 403);
    assert.match(wrong.html, /Password errata\./);
    const open = await post(`${path}?lang=it`, form({ password: 'chiave' }));
    assert.equal(open.status, 200);
    assert.match(open.html, /<html lang="it">/);
    assert.match(open.html, /Cinder venue code 4321/);
    const second = await page(`${path}?page=2`);
    assert.equal(second.status, 200);
    assert.match(second.html, new RegExp(`action="${path}\\?page=2"`));
    // Past the last page of its events, once open: as any address that shows nothing.
    assert.equal((await post(`${path}?page=2`, form({ password: 'chiave' }))).status, 404);
  });

  it('leaves unprotected venues and organizers as they were, and takes a password sent to them', async () => {
    const venue = await makeVenue(server, admin, { venue: 'Open hall', address: 'Open street 2' });
    const organizer = await makeOrganizer(server, admin, { organizer: 'Open society', email: 'open@example.org' });
    for (const [item, fact] of [
      [venue, /Open street 2/],
      [organizer, /open@example\.org/],
    ] as const) {
      const path = pathOf(item.url);
      const shown = await page(path);
      assert.equal(shown.status, 200);
      assert.match(shown.html, fact);
      assert.doesNotMatch(shown.html, /name="password"/);
      const posted = await post(path, form({ password: 'anything' }));
      assert.equal(posted.status, 200);
      assert.match(posted.html, fact);
    }
  });

  it('answers bad passwords, unknown and hidden venues and organizers with a clear 4xx page, never a 500', async () => {
    const { venue, organizer } = await protectedPair('Flint', 'flint-pass');
    const draft = await makeVenue(server, admin, { venue: 'Draft hall', status: 'draft', password: 'x' });
    for (const path of [pathOf(venue.url), pathOf(organizer.url)]) {
      for (const [body, type] of [
        [form({}), undefined],
        [form({ password: '' }), undefined],
        [form({ password: 'x'.repeat(501) }), undefined],
        [form({ password: 'flint-pass', lang: 'xx' }), undefined],
        ['{"password": {"a": 1}}', 'application/json'],
        ['{', 'application/json'],
      ] as const) {
        const result = await post(path, body, type);
        assert.equal(result.status, 400, `${path} ${body}: ${result.html.slice(0, 200)}`);
        assert.match(result.headers.get('content-type') ?? '', /^text\/html/, `${path} ${body}`);
        assertNothingProtected(result, 'Flint', `${path} ${body}`);
      }
      for (const query of ['?page=0', '?page=abc', '?lang=xx']) {
        const result = await post(`${path}${query}`, form({ password: 'flint-pass' }));
        assert.equal(result.status, 400, `${path}${query}`);
        assert.equal((await page(`${path}${query}`)).status, 400, `${path}${query}`);
      }
    }
    for (const path of [
      '/venue/no-such-venue/',
      '/organizer/no-such-organizer/',
      pathOf(draft.url),
      '/venue/a%00b/',
      `/organizer/${'a'.repeat(300)}/`,
    ]) {
      assert.equal((await page(path)).status, 404, path);
      const posted = await post(path, form({ password: 'x' }));
      assert.equal(posted.status, 404, `POST ${path}`);
      assert.match(posted.html, /Page not found/, `POST ${path}`);
    }
    // Wrong passwords are throttled with the API's: past the limit even the right one waits.
    let status = 403;
    for (let attempt = 0; attempt < 10 && status === 403; attempt += 1) {
      status = (await post(pathOf(venue.url), form({ password: `guess-${attempt}` }))).status;
    }
    assert.equal(status, 429);
    const throttled = await post(pathOf(venue.url), form({ password: 'flint-pass' }));
    assert.equal(throttled.status, 429);
    assert.match(throttled.headers.get('content-type') ?? '', /^text\/html/);
    assertNothingProtected(throttled, 'Flint', '429');
  });
});
