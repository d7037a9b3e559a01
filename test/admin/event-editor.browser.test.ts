import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { makeEvent } from '../calendar/events.factories.ts';
import { makeOrganizer } from '../calendar/venues-organizers.factories.ts';
import { axeViolations as axe, launchChromium, SCREENSHOTS } from './chromium.helper.ts';

/**
 * The event editor in a real Chromium (Debian's, CHROMIUM_PATH to use another), driven by its labels as a person
 * would: an editor creates and publishes an event, a mistake keeps every typed value, the form is edited by
 * keyboard alone, and axe finds no WCAG 2.2 AA violation in either language at desktop and phone sizes.
 * Screenshots go to SCREENSHOT_DIR (default: the system's temporary directory).
 */

describe('the event editor in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let editor: Credentials;
  let desktop: BrowserContext;

  const logIn = async (context: BrowserContext, user: Credentials): Promise<Page> => {
    const page = await context.newPage();
    page.setDefaultTimeout(5000);
    await page.goto(`${server.url}/admin/login?lang=en`);
    // The context keeps its session: signed in once, the form leads on.
    if (!page.url().includes('/admin/login')) return page;
    await page.getByLabel('Username').fill(user.username);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/admin\/$/);
    return page;
  };
  /** A published event of the editor's, open in its form. */
  const openPublished = async (title: string, start: string, end: string) => {
    const event = await makeEvent(server, editor, { title, status: 'publish', start_date: start, end_date: end });
    const page = await logIn(desktop, editor);
    await page.goto(`${server.url}/admin/events/${event.id}/edit`);
    return { event, page };
  };
  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });

  before(async () => {
    server = await startTestServer();
    const admin = await server.admin();
    editor = await server.createUser('editor', 'browser-editor');
    await makeOrganizer(server, admin, { organizer: 'Friends of Jazz' });
    for (const name of ['Music', 'Talks']) {
      const created = await server.request('/calendar/events/v1/categories', { method: 'POST', auth: admin, body: { name } });
      assert.equal(created.status, 201, created.text);
    }
    browser = await launchChromium();
    desktop = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('an editor creates an event with a new venue, two organizers, categories, tags and Italian, and publishes it', async () => {
    const page = await logIn(desktop, editor);
    await page.getByRole('link', { name: 'Add an event' }).first().click();
    await page.waitForURL(/\/admin\/events\/new$/);
    const violations = await axe(page, 'new event desktop en');
    await shot(page, 'event-new-en-desktop');
    await page.getByLabel('Title', { exact: true }).fill('Summer jazz night');
    await page.getByLabel('Description', { exact: true }).fill('Bring friends.');
    await page.getByLabel('Start', { exact: true }).fill('2031-07-10T20:30');
    await page.getByLabel('End', { exact: true }).fill('2031-07-10T23:00');
    await page.getByLabel('Time zone').selectOption('Europe/Rome');
    await page.getByLabel('Venue', { exact: true }).fill('Giardini Margherita');
    await page.getByLabel('New venue: city').fill('Bologna');
    await page.getByLabel('Organizer 1').fill('Friends of Jazz');
    await page.getByLabel('Organizer 2').fill('Bologna Music Club');
    const categories = page.getByRole('group', { name: 'Categories' });
    await categories.getByLabel('Music').check();
    await categories.getByLabel('Talks').check();
    await page.getByLabel('Tags').fill('jazz, outdoor');
    await page.getByLabel('Cost').fill('15');
    await page.getByLabel('Featured', { exact: true }).check();
    await page.getByLabel('Title (Italiano)').fill('Serata jazz d’estate');
    await page.getByLabel('Description (Italiano)').fill('Porta gli amici.');
    await page.getByLabel('Status').selectOption('publish');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/admin\/events\/\d+\/edit\?saved=1$/);
    assert.equal(await page.getByRole('status').filter({ hasText: 'Saved.' }).count(), 1);
    violations.push(...(await axe(page, 'edit event desktop en')));
    await shot(page, 'event-edit-en-desktop');
    assert.deepEqual(violations, []);

    await page.goto(`${server.url}/events/month/2031-07/`);
    assert.ok((await page.getByRole('link', { name: /Summer jazz night/ }).count()) > 0, 'on the public month page');
    const listed = await server.request('/calendar/events/v1/events?start_date=2031-07-01&end_date=2031-07-31');
    const [event] = listed.body.events;
    assert.equal(event.title, 'Summer jazz night');
    assert.equal(event.start_date, '2031-07-10 20:30:00');
    assert.equal(event.venue.venue, 'Giardini Margherita');
    assert.deepEqual(
      event.organizer.map((organizer: { organizer: string }) => organizer.organizer),
      ['Friends of Jazz', 'Bologna Music Club'],
    );
    assert.deepEqual(event.categories.map((term: { name: string }) => term.name).sort(), ['Music', 'Talks']);
    assert.deepEqual(event.tags.map((term: { name: string }) => term.name).sort(), ['jazz', 'outdoor']);
    const italian = await server.request(`/calendar/events/v1/events/${event.id}?translation_language=it`);
    assert.equal(italian.body.title, 'Serata jazz d’estate');
    await page.close();
  });

  it('keeps every typed value after a mistake, and takes the focus to what to fix', async () => {
    const page = await logIn(desktop, editor);
    await page.goto(`${server.url}/admin/events/new`);
    await page.getByLabel('Title', { exact: true }).fill('Poetry reading');
    await page.getByLabel('Excerpt', { exact: true }).fill('Poems at dusk.');
    await page.getByLabel('Start', { exact: true }).fill('2031-08-02T19:00');
    await page.getByLabel('End', { exact: true }).fill('2031-08-01T19:00');
    await page.getByLabel('Organizer 1').fill('Poetry Society');
    await page.getByLabel('Tags').fill('poetry');
    await page.getByLabel('Title (Italiano)').fill('Lettura di poesie');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForLoadState();
    const summary = page.getByRole('alert');
    assert.match((await summary.textContent()) ?? '', /The event was not saved/);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'summary');
    await summary.getByRole('link', { name: /^End/ }).click();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'end');
    assert.equal(await page.getByLabel('End', { exact: true }).getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Title', { exact: true }).inputValue(), 'Poetry reading');
    assert.equal(await page.getByLabel('Excerpt', { exact: true }).inputValue(), 'Poems at dusk.');
    assert.equal(await page.getByLabel('Start', { exact: true }).inputValue(), '2031-08-02T19:00');
    assert.equal(await page.getByLabel('Organizer 1').inputValue(), 'Poetry Society');
    assert.equal(await page.getByLabel('Tags').inputValue(), 'poetry');
    assert.equal(await page.getByLabel('Title (Italiano)').inputValue(), 'Lettura di poesie');
    assert.deepEqual(await axe(page, 'error desktop en'), []);
    await shot(page, 'event-error-en-desktop');
    await page.close();
  });

  it('edits an event by keyboard alone', async () => {
    const { event, page } = await openPublished('Book club', '2031-09-03 18:00', '2031-09-03 19:00');
    const tabTo = async (test: (active: { id: string; text: string }) => boolean, what: string) => {
      for (let step = 0; step < 80; step += 1) {
        await page.keyboard.press('Tab');
        const active = await page.evaluate(() => ({
          id: document.activeElement?.id ?? '',
          text: document.activeElement?.textContent?.trim() ?? '',
        }));
        if (test(active)) return;
      }
      assert.fail(`no focusable ${what}`);
    };
    await tabTo((active) => active.id === 'title', 'Title');
    await page.keyboard.press('End');
    await page.keyboard.type(' (moved upstairs)');
    await tabTo((active) => active.text === 'Save', 'Save');
    await page.keyboard.press('Enter');
    await page.waitForURL(/saved=1$/);
    assert.equal((await server.request(`/calendar/events/v1/events/${event.id}`)).body.title, 'Book club (moved upstairs)');
    // Enter in a field saves, as in any form, and does not preview the dates.
    await tabTo((active) => active.id === 'title', 'Title');
    await page.keyboard.press('End');
    await page.keyboard.type(' again');
    await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')]);
    assert.match(page.url(), /saved=1$/);
    assert.equal((await server.request(`/calendar/events/v1/events/${event.id}`)).body.title, 'Book club (moved upstairs) again');
    await page.close();
  });

  it('a contributor submits an event for review, and an editor publishes it', async () => {
    const contributor = await server.createUser('contributor', 'browser-contributor');
    await desktop.clearCookies();
    const page = await logIn(desktop, contributor);
    await page.goto(`${server.url}/admin/events/new`);
    await page.getByLabel('Title', { exact: true }).fill('Street market');
    await page.getByLabel('Start', { exact: true }).fill('2031-10-04T09:00');
    await page.getByLabel('End', { exact: true }).fill('2031-10-04T13:00');
    await page.getByLabel('Status').selectOption({ label: 'Submit for review' });
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/saved=1$/);
    const id = Number(/events\/(\d+)\/edit/.exec(page.url())?.[1]);
    assert.equal((await server.request(`/calendar/events/v1/events/${id}`, { auth: editor })).body.status, 'pending');
    await page.close();
    await desktop.clearCookies();
    const review = await logIn(desktop, editor);
    await review.goto(`${server.url}/admin/events/?status=pending`);
    await review.getByRole('link', { name: 'Edit: Street market' }).click();
    await review.getByLabel('Status').selectOption('publish');
    await review.getByRole('button', { name: 'Save' }).click();
    await review.waitForURL(/saved=1$/);
    assert.equal((await server.request(`/calendar/events/v1/events/${id}`)).body.status, 'publish');
    await review.close();
  });

  it('builds a weekly series with one exception, then changes "this and following"', async () => {
    const page = await logIn(desktop, editor);
    await page.goto(`${server.url}/admin/events/new`);
    await page.getByLabel('Title', { exact: true }).fill('Choir');
    await page.getByLabel('Start', { exact: true }).fill('2031-11-04T19:00');
    await page.getByLabel('End', { exact: true }).fill('2031-11-04T21:00');
    await page.getByLabel('Repeats').selectOption('weekly');
    await page.getByLabel('Tuesday').check();
    await page.getByLabel('Ends').selectOption('count');
    await page.getByLabel('Times').fill('5');
    await page.getByLabel(/Except on/).fill('2031-11-18');
    await page.getByRole('button', { name: 'Preview dates' }).click();
    await page.waitForLoadState();
    const dates = await page.locator('#preview-dates time').allTextContents();
    assert.deepEqual(dates, ['2031-11-04 19:00', '2031-11-11 19:00', '2031-11-25 19:00', '2031-12-02 19:00']);
    await page.getByLabel('Status').selectOption('publish');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/saved=1$/);
    const listed = await server.request('/calendar/events/v1/events?start_date=2031-11-01&end_date=2031-12-31&search=Choir');
    const third = listed.body.events[2];
    assert.equal(third.start_date, '2031-11-25 19:00:00');
    await page.goto(`${server.url}/admin/events/${third.id}/edit`);
    await page.getByLabel('This and following').check();
    await page.getByLabel('Title', { exact: true }).fill('Choir (winter room)');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/saved=1$/);
    const after = await server.request('/calendar/events/v1/events?start_date=2031-11-01&end_date=2031-12-31&search=Choir');
    assert.deepEqual(
      after.body.events.map((event: { title: string }) => event.title),
      ['Choir', 'Choir', 'Choir (winter room)', 'Choir (winter room)'],
    );
    await page.close();
  });

  it('refuses to save over someone else’s newer save, keeping the text typed', async () => {
    const { event, page } = await openPublished('Film club', '2031-12-05 20:00', '2031-12-05 22:00');
    // Another editor saves first, here through the API.
    const other = await server.request(`/calendar/events/v1/events/${event.id}`, {
      method: 'POST',
      auth: editor,
      body: { title: 'Film club: Fellini' },
    });
    assert.equal(other.status, 200, other.text);
    await page.getByLabel('Description', { exact: true }).fill('Popcorn provided.');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForLoadState();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /Someone else saved this event[\s\S]*Title/);
    assert.equal(await page.getByLabel('Description', { exact: true }).inputValue(), 'Popcorn provided.');
    assert.equal(await page.getByLabel('Title', { exact: true }).inputValue(), 'Film club');
    assert.equal((await server.request(`/calendar/events/v1/events/${event.id}`)).body.description, '');
    await page.getByRole('link', { name: /Reload the saved version/ }).click();
    assert.equal(await page.getByLabel('Title', { exact: true }).inputValue(), 'Film club: Fellini');
    await page.close();
  });

  it('has no axe violation in Italian at desktop size, nor in either language on a 390 px phone', async () => {
    const event = await makeEvent(server, editor, { title: 'Open day', status: 'draft', recurrence: ['RRULE:FREQ=MONTHLY;COUNT=3'] });
    const violations: string[] = [];
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
    for (const [context, size] of [
      [desktop, 'desktop'],
      [phone, 'phone'],
    ] as const) {
      const page = await logIn(context, editor);
      for (const language of size === 'desktop' ? (['it'] as const) : (['en', 'it'] as const)) {
        for (const [screen, address] of [
          ['new', '/admin/events/new'],
          ['edit', `/admin/events/${event.id}/edit`],
        ] as const) {
          await page.goto(`${server.url}${address}?lang=${language}`);
          if (language === 'it') assert.equal(await page.getByLabel('Titolo (Italiano)').count(), 1);
          violations.push(...(await axe(page, `${screen} event ${size} ${language}`)));
          await shot(page, `event-${screen}-${language}-${size}`);
          const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
          assert.ok(scrollWidth <= (size === 'phone' ? 390 : 1280), `no sideways scrolling at ${size} (${scrollWidth})`);
        }
      }
      await page.goto(`${server.url}/admin/events/new?lang=en`);
      await page.close();
    }
    await phone.close();
    assert.deepEqual(violations, []);
  });
});
