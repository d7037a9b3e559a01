import assert from 'node:assert/strict';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeViolations as axe, launchChromium, SCREENSHOTS, tabTo } from './chromium.helper.ts';
import { Browser as Visitor } from './admin.helper.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { picture } from '../calendar/media.factories.ts';
import { makeOrganizer, makeVenue } from '../calendar/venues-organizers.factories.ts';

/**
 * The event editor's script in a real Chromium (Debian's, CHROMIUM_PATH to use another): type-ahead pickers driven
 * by keyboard alone, the Repeats preview following the fields, an upload with its progress, axe with the script
 * running in both languages, and the same form with JavaScript off. Then the script's address, size and caching,
 * and the JSON it asks for, over HTTP.
 */

const SCRIPT_MAX_GZIP_BYTES = 50 * 1024;

describe('the event editor’s script', () => {
  let server: TestServer;
  let browser: Browser;
  let editor: Credentials;
  let desktop: BrowserContext;
  let venueId: number;
  let barId: number;

  const logIn = async (context: BrowserContext, user: Credentials, language = 'en'): Promise<Page> => {
    const page = await context.newPage();
    page.setDefaultTimeout(5000);
    await page.goto(`${server.url}/admin/login?lang=${language}`);
    if (!page.url().includes('/admin/login')) return page;
    await page.locator('#username').fill(user.username);
    await page.locator('#password').fill(user.password);
    await Promise.all([page.waitForURL(/\/admin\/$/), page.locator('#password').press('Enter')]);
    return page;
  };
  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
  const newEventPage = async (language = 'en', context = desktop) => {
    const page = await logIn(context, editor, language);
    await page.goto(`${server.url}/admin/events/new?lang=${language}`);
    return page;
  };

  before(async () => {
    server = await startTestServer({ SITE_TIMEZONE: 'UTC' });
    const admin = await server.admin();
    editor = await server.createUser('editor', 'script-editor');
    venueId = (await makeVenue(server, admin, { venue: 'Giardini Margherita', status: 'publish' })).id;
    await makeVenue(server, admin, { venue: 'Giardino Segreto', status: 'draft' });
    await makeVenue(server, admin, { venue: 'Teatro Duse', status: 'publish' });
    barId = (await makeVenue(server, admin, { venue: 'Bar & Grill', status: 'publish' })).id;
    await makeOrganizer(server, admin, { organizer: 'Friends of Jazz', status: 'publish' });
    for (const name of ['jazz', 'jam session']) {
      const created = await server.request('/calendar/events/v1/tags', { method: 'POST', auth: admin, body: { name } });
      assert.equal(created.status, 201, created.text);
    }
    browser = await launchChromium();
    desktop = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('picks a venue, an organizer and tags by keyboard alone, and saves the event with the existing venue', async () => {
    const page = await newEventPage();
    const venue = page.getByRole('combobox', { name: 'Venue', exact: true });
    assert.equal(await venue.getAttribute('aria-expanded'), 'false');
    assert.equal(await venue.getAttribute('list'), null, 'the browser’s own list gives way to the script’s');
    await tabTo(page, 'Title');
    await page.keyboard.type('Picnic in the park');
    await tabTo(page, 'Start');
    await page.keyboard.type('07102031');
    await page.keyboard.press('Tab');
    await page.keyboard.type('1200P');
    await tabTo(page, 'End');
    await page.keyboard.type('07102031');
    await page.keyboard.press('Tab');
    await page.keyboard.type('0300P');
    await tabTo(page, 'Venue');
    await page.keyboard.type('giard');
    const options = page.getByRole('listbox', { name: 'Suggestions' }).first().getByRole('option');
    await options.first().waitFor();
    // An editor sees the draft venue too, as through the API.
    assert.deepEqual(await options.allTextContents(), ['Giardini Margherita', 'Giardino Segreto']);
    assert.equal(await venue.getAttribute('aria-expanded'), 'true');
    assert.match((await page.locator('form.editor > p[role="status"]').textContent()) ?? '', /^2 suggestions/);
    await page.keyboard.press('ArrowDown');
    assert.equal(await venue.getAttribute('aria-activedescendant'), await options.first().getAttribute('id'));
    assert.equal(await options.first().getAttribute('aria-selected'), 'true');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.equal(await options.first().getAttribute('aria-selected'), 'true', 'round from the last to the first');
    await page.keyboard.press('Enter');
    assert.equal(await venue.inputValue(), 'Giardini Margherita');
    assert.equal(await venue.getAttribute('aria-expanded'), 'false');
    assert.match(page.url(), /\/admin\/events\/new/, 'Enter on a suggestion chooses it, and does not save');

    await tabTo(page, 'Organizer 1');
    await page.keyboard.type('friends');
    const organizer = page.getByRole('combobox', { name: 'Organizer 1' });
    await page.locator('#organizer-0-suggestions [role="option"]').first().waitFor();
    await page.keyboard.press('Escape');
    assert.equal(await organizer.getAttribute('aria-expanded'), 'false');
    assert.equal(await organizer.inputValue(), 'friends', 'Escape closes and keeps what was typed');
    await page.keyboard.press('ArrowDown');
    await page.locator('#organizer-0-suggestions [role="option"]').first().waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    assert.equal(await organizer.inputValue(), 'Friends of Jazz');

    await tabTo(page, 'Tags');
    await page.keyboard.type('outdoor, ja');
    await page.locator('#tags-suggestions [role="option"]').first().waitFor();
    assert.deepEqual(await page.locator('#tags-suggestions [role="option"]').allTextContents(), ['jam session', 'jazz']);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    assert.equal(await page.getByRole('combobox', { name: 'Tags' }).inputValue(), 'outdoor, jazz, ');
    await shot(page, 'event-script-pickers-en-desktop');

    await tabTo(page, 'Save');
    await Promise.all([page.waitForURL(/saved=1$/), page.keyboard.press('Enter')]);
    const id = Number(/events\/(\d+)\/edit/.exec(page.url())?.[1]);
    const event = (await server.request(`/calendar/events/v1/events/${id}`, { auth: editor })).body;
    assert.equal(event.venue.id, venueId);
    assert.deepEqual(
      event.organizer.map((one: { organizer: string }) => one.organizer),
      ['Friends of Jazz'],
    );
    assert.deepEqual(event.tags.map((tag: { name: string }) => tag.name).sort(), ['jazz', 'outdoor']);
    await page.close();
  });

  it('shows the next dates as the Repeats fields change, without "Preview dates"', async () => {
    const page = await newEventPage();
    await page.getByLabel('Start', { exact: true }).fill('2031-11-04T19:00');
    await page.getByLabel('Repeats').selectOption('weekly');
    await page.getByLabel('Tuesday').check();
    await page.getByLabel('Ends').selectOption('count');
    await page.getByLabel('Times').fill('3');
    await page.getByLabel('Times').dispatchEvent('change');
    const dates = page.locator('#preview-dates time');
    await page.waitForFunction(() => document.querySelectorAll('#preview-dates time').length === 3);
    assert.deepEqual(await dates.allTextContents(), ['2031-11-04 19:00', '2031-11-11 19:00', '2031-11-18 19:00']);
    assert.equal(await page.locator('#preview-dates p').textContent(), 'Next dates:');
    await page.getByLabel(/Except on/).fill('2031-11-11');
    await page.getByLabel(/Except on/).dispatchEvent('change');
    await page.waitForFunction(() => document.querySelectorAll('#preview-dates time').length === 2);
    assert.deepEqual(await dates.allTextContents(), ['2031-11-04 19:00', '2031-11-18 19:00']);
    await page.getByLabel('Times').fill('0');
    await page.getByLabel('Times').dispatchEvent('change');
    await page.locator('#preview-dates p.error').waitFor();
    assert.equal(await page.locator('#preview-dates p.error').textContent(), 'Times: Enter a whole number from 1 to 1000.');
    await page.getByLabel('Repeats').selectOption('none');
    await page.getByText('The event does not repeat.').waitFor();
    assert.match(page.url(), /\/admin\/events\/new\?lang=en$/, 'nothing was submitted');
    await page.close();
  });

  it('has no axe violation with the script running and a list of suggestions open, in English at desktop size and Italian on a phone', async () => {
    const violations: string[] = [];
    const phone = await browser.newContext({ viewport: { width: 360, height: 740 } });
    for (const [language, context, size] of [
      ['en', desktop, 'desktop'],
      ['it', phone, 'phone'],
    ] as const) {
      const page = await newEventPage(language, context);
      await page.locator('#venue').pressSequentially('teatro');
      // The suggestions for what was typed so far come first: wait for those of the whole word.
      await page.waitForFunction(() => document.querySelectorAll('#venue-suggestions [role="option"]').length === 1);
      await page.keyboard.press('ArrowDown');
      const region = await page.locator('form.editor > p[role="status"]').textContent();
      assert.match(region ?? '', language === 'en' ? /^1 suggestion:/ : /^1 suggerimento:/);
      assert.equal(await page.getByRole('listbox').first().getAttribute('aria-label'), language === 'en' ? 'Suggestions' : 'Suggerimenti');
      violations.push(...(await axe(page, `editor script ${language} ${size}`)));
      await shot(page, `event-script-${language}-${size}`);
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(scrollWidth <= (size === 'phone' ? 360 : 1280), `no sideways scrolling at ${size} (${scrollWidth})`);
      await page.close();
    }
    await phone.close();
    assert.deepEqual(violations, []);
  });

  it('sends a chosen image with the form, its progress shown, and shows a refused form as the plain submit would', async () => {
    const page = await newEventPage();
    const png = await picture(40, 30, 'png');
    await page.getByLabel('Or upload a new image').setInputFiles({ name: 'poster.png', mimeType: 'image/png', buffer: png });
    // Ending before it starts: the form comes back, the uploaded image now chosen, the script at work again.
    await page.getByLabel('Title', { exact: true }).fill('Poster night');
    await page.getByLabel('Start', { exact: true }).fill('2031-06-01T20:00');
    await page.getByLabel('End', { exact: true }).fill('2031-06-01T18:00');
    const sent = page.waitForRequest((request) => request.resourceType() === 'xhr' && request.method() === 'POST');
    await page.getByRole('button', { name: 'Save' }).click();
    await sent;
    await page.getByRole('alert').waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'summary');
    assert.notEqual(await page.getByLabel('Featured image').inputValue(), '');
    assert.equal(await page.getByRole('combobox', { name: 'Venue', exact: true }).getAttribute('aria-expanded'), 'false');
    assert.equal(await page.getByLabel('Title', { exact: true }).inputValue(), 'Poster night');
    await page.getByLabel('End', { exact: true }).fill('2031-06-01T22:00');
    await page.getByLabel('Or upload a new image').setInputFiles({ name: 'second.png', mimeType: 'image/png', buffer: png });
    const progress = page.locator('progress');
    await Promise.all([page.waitForURL(/saved=1$/), page.getByRole('button', { name: 'Save' }).click()]);
    assert.equal(await progress.count(), 0, 'the saved event’s page, without the progress bar');
    const id = Number(/events\/(\d+)\/edit/.exec(page.url())?.[1]);
    const first = (await server.request(`/calendar/events/v1/events/${id}`, { auth: editor })).body.image;
    assert.equal(first.width, 40);
    // Saving an event already saved leads back to its own page.
    await page.getByLabel('Or upload a new image').setInputFiles({ name: 'third.png', mimeType: 'image/png', buffer: png });
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Save' }).click()]);
    assert.match(page.url(), new RegExp(`/admin/events/${id}/edit\\?saved=1$`));
    assert.notEqual((await server.request(`/calendar/events/v1/events/${id}`, { auth: editor })).body.image.id, first.id);
    assert.equal(await page.getByRole('status').filter({ hasText: 'Saved.' }).count(), 1);
    await page.close();
  });

  it('leaves the plain form whole with JavaScript off: lists, "Preview dates" and the upload', async () => {
    const plain = await browser.newContext({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
    const page = await logIn(plain, editor);
    await page.goto(`${server.url}/admin/events/new`);
    assert.equal(await page.getByLabel('Venue', { exact: true }).getAttribute('list'), 'venue-list');
    assert.equal(await page.getByLabel('Venue', { exact: true }).getAttribute('aria-expanded'), null);
    assert.equal(await page.getByRole('listbox').count(), 0);
    await page.getByLabel('Start', { exact: true }).fill('2031-11-04T19:00');
    await page.getByLabel('Repeats').selectOption('daily');
    await page.getByLabel('Ends').selectOption('count');
    await page.getByLabel('Times').fill('2');
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Preview dates' }).click()]);
    assert.deepEqual(await page.locator('#preview-dates time').allTextContents(), ['2031-11-04 19:00', '2031-11-05 19:00']);
    await page.getByLabel('Title', { exact: true }).fill('Plain upload');
    await page.getByLabel('End', { exact: true }).fill('2031-11-04T20:00');
    // A name with an ampersand, as the browser's list offers it, is the existing venue.
    assert.equal(await page.locator('#venue-list option[value="Bar & Grill"]').count(), 1);
    await page.getByLabel('Venue', { exact: true }).fill('Bar & Grill');
    await page
      .getByLabel('Or upload a new image')
      .setInputFiles({ name: 'plain.png', mimeType: 'image/png', buffer: await picture(20, 10, 'png') });
    await Promise.all([page.waitForURL(/saved=1$/), page.getByRole('button', { name: 'Save' }).click()]);
    const id = Number(/events\/(\d+)\/edit/.exec(page.url())?.[1]);
    const event = (await server.request(`/calendar/events/v1/events/${id}`, { auth: editor })).body;
    assert.equal(event.venue.id, barId);
    assert.equal(event.image.width, 20);
    await plain.close();
  });

  it('serves the script once per version: long cached, a strong ETag, under 50 kB compressed, allowed only on the editor’s form', async () => {
    const visitor = new Visitor(server.url);
    await visitor.logIn(editor.username, editor.password);
    const form = await visitor.get('/admin/events/new');
    const csp = form.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /connect-src 'self'/);
    assert.match(csp, /default-src 'none'/);
    const src = /<script type="module" src="([^"]+)" defer><\/script>/.exec(form.text)?.[1] ?? '';
    assert.match(src, /^\/admin\/assets\/editor\.js\?v=[\w-]{12}$/);
    const dashboard = await visitor.get('/admin/');
    assert.doesNotMatch(dashboard.headers.get('content-security-policy') ?? '', /script-src/);
    assert.doesNotMatch(dashboard.text, /<script/);

    // As it is: a browser gets it compressed, with a tag of its own (compression.test.ts).
    const script = await fetch(`${server.url}${src}`, { headers: { 'accept-encoding': 'identity' } });
    assert.equal(script.status, 200);
    assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(script.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const etag = script.headers.get('etag') ?? '';
    assert.match(etag, /^"[\w-]{43}"$/);
    const bytes = Buffer.from(await script.arrayBuffer());
    assert.ok(gzipSync(bytes).length <= SCRIPT_MAX_GZIP_BYTES, `the script is ${gzipSync(bytes).length} bytes compressed`);
    assert.ok(src.endsWith(etag.slice(1, 13)), 'the address names the version');
    for (const tag of [etag, `W/${etag}`, `"other", ${etag}`]) {
      const again = await fetch(`${server.url}${src}`, { headers: { 'if-none-match': tag } });
      assert.equal(again.status, 304, tag);
      assert.equal((await again.arrayBuffer()).byteLength, 0);
    }
    assert.equal((await fetch(`${server.url}${src}`, { headers: { 'if-none-match': '"other"' } })).status, 200);
  });

  it('answers the pickers and the preview as the signed-in user only, refusing bad questions', async () => {
    const anonymous = new Visitor(server.url);
    for (const address of ['/admin/choices/venues?search=giard', '/admin/events/preview-dates?start=2031-01-01T10:00&repeats=daily']) {
      const refused = await anonymous.get(address);
      assert.equal(refused.status, 303, address);
      assert.match(refused.headers.get('location') ?? '', /^\/admin\/login\?next=/);
      assert.doesNotMatch(refused.text, /Giard/);
    }
    const contributor = new Visitor(server.url);
    const credentials = await server.createUser('contributor', 'script-contributor');
    await contributor.logIn(credentials.username, credentials.password);
    const seen = JSON.parse((await contributor.get('/admin/choices/venues?search=giard')).text);
    assert.deepEqual(seen, { items: [{ id: venueId, name: 'Giardini Margherita' }] }, 'another’s draft venue stays hidden');
    const bar = JSON.parse((await contributor.get('/admin/choices/venues?search=grill')).text);
    assert.deepEqual(bar, { items: [{ id: barId, name: 'Bar & Grill' }] }, 'names as typed, not as HTML');
    assert.equal((await contributor.get('/admin/choices/people?search=a')).status, 400);
    assert.equal((await contributor.get(`/admin/choices/tags?search=${'a'.repeat(201)}`)).status, 400);
    const organizers = JSON.parse((await contributor.get('/admin/choices/organizers?search=jazz')).text);
    assert.deepEqual(
      organizers.items.map((item: { name: string }) => item.name),
      ['Friends of Jazz'],
    );

    const preview = async (query: string) => {
      const answer = await contributor.get(`/admin/events/preview-dates?lang=it&${query}`);
      return { status: answer.status, body: JSON.parse(answer.text) };
    };
    assert.deepEqual(await preview('start=2031-01-30T10:00&repeats=monthly&monthly=day&ends=count&count=2'), {
      status: 200,
      body: { heading: 'Prossime date:', dates: ['2031-01-30 10:00', '2031-03-30 10:00'] },
    });
    assert.deepEqual(await preview('start=2031-01-30T10:00&repeats=none'), {
      status: 200,
      body: { message: "L'evento non si ripete.", dates: [] },
    });
    assert.deepEqual(await preview('repeats=daily'), {
      status: 422,
      body: { field: 'start', error: "Inizio: Inserisci prima la data e l'ora di inizio." },
    });
    const custom = await preview('start=2031-01-30T10:00&repeats=custom&rrule=FREQ%3DSOMETIMES');
    assert.equal(custom.status, 422);
    assert.equal(custom.body.field, 'rrule');
    assert.match(custom.body.error, /FREQ/);
    assert.equal(
      (await contributor.get('/admin/events/preview-dates?start=2031-01-30T10:00&byday=MO&byday=TU&repeats=weekly')).status,
      200,
    );
    for (const query of ['start=2031-01-30T10:00&repeats=daily&timezone=Mars%2FBase', 'start=2031-13-45T10:00&repeats=daily']) {
      const refused = await preview(query);
      assert.equal(refused.status, 422, query);
      assert.ok(refused.body.error.length > 0, query);
    }
  });
});
