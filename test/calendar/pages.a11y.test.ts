import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import type { AxeResults } from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { makeEvent, utcDay } from './events.factories.ts';
import { makeOrganizer, makeVenue } from './venues-organizers.factories.ts';

/**
 * The calendar's pages in a real Chromium (Debian's, CHROMIUM_PATH to use another): axe-core finds no WCAG 2.2 AA
 * violation on any page type in either language, a reader can navigate, search, filter, open an event and switch
 * language without JavaScript on the page, and each page is photographed at desktop and phone sizes into
 * SCREENSHOT_DIR (default: a folder in the system's temporary directory), never into the repository.
 */

const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 360, height: 740 },
] as const;
type Size = (typeof SIZES)[number];
/** Colours follow the reader's `prefers-color-scheme`: both must pass, contrast included. */
const SCHEMES = ['light', 'dark'] as const;
type Scheme = (typeof SCHEMES)[number];
const SCREENSHOTS = process.env.SCREENSHOT_DIR ?? path.join(os.tmpdir(), 'almanac-pages-screenshots');

describe('calendar pages in Chromium', () => {
  let server: TestServer;
  let admin: Credentials;
  let browser: Browser;
  const day = utcDay(2);
  const pages = new Map<string, string>();

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    server = await startTestServer();
    admin = await server.admin();
    browser = await launchChromium();
    const event = await makeEvent(server, admin, {
      title: 'Jazz night',
      description: 'Live jazz with the <b>Trio</b>.\n\nDoors open at 8.',
      start_date: `${day} 21:00`,
      // Past midnight: "from 9:00 PM" on its day and "until 1:30 AM" on the next, in the grids.
      end_date: `${utcDay(3)} 01:30`,
      timezone: 'Europe/Rome',
      categories: ['Music'],
      tags: 'jazz',
      venue: { venue: 'Blue Note', address: 'Via Borsieri 37', city: 'Milano', geo_lat: 45.48, geo_lng: 9.19 },
      organizer: [{ organizer: 'Jazz Club', email: 'club@jazz.example' }],
      cost: ['10€', '15€'],
    });
    await makeEvent(server, admin, { title: 'Morning yoga', start_date: `${day} 07:00`, end_date: `${day} 08:00`, categories: ['Sport'] });
    const rehearsal = await makeEvent(server, admin, {
      title: 'Choir rehearsal',
      start_date: `${day} 18:00`,
      end_date: `${day} 19:00`,
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
    });
    const locked = await makeEvent(server, admin, {
      title: 'Members only',
      password: 's3cret',
      start_date: `${day} 18:00`,
      end_date: `${day} 19:00`,
    });
    const lockedVenue = await makeVenue(server, admin, { venue: 'Back room', address: 'Hidden street 1', password: 'v3nue' });
    const lockedOrganizer = await makeOrganizer(server, admin, {
      organizer: 'Secret society',
      email: 'x@secret.example',
      password: 'org4n',
    });
    await makeEvent(server, admin, {
      title: 'Past gathering',
      start_date: `${utcDay(-3)} 18:00`,
      end_date: `${utcDay(-3)} 19:00`,
      venue: lockedVenue.id,
      organizer: [lockedOrganizer.id],
    });
    const local = (url: string) => new URL(url).pathname;
    pages.set('month', '/events/');
    pages.set('week', `/events/week/${day}/`);
    pages.set('day', `/events/${day}/`);
    pages.set('list', '/events/list/');
    pages.set('past', '/events/list/?past=1');
    pages.set('event', local(event.url));
    // An occurrence: how its series repeats, its next dates and the series' page.
    pages.set('occurrence', `${local(rehearsal.url)}${day}/`);
    pages.set('password', local(locked.url));
    pages.set('venue', local(event.venue.url));
    pages.set('organizer', local(event.organizer[0].url));
    pages.set('venue-password', local(lockedVenue.url));
    pages.set('organizer-password', local(lockedOrganizer.url));
    pages.set('category', '/events/category/music/');
    pages.set('tag', '/tag/jazz/');
    pages.set('embed', '/embed/events/');
    pages.set('embed-month', '/embed/events/month/');
    pages.set('not-found', '/event/no-such-event/');
    pages.set('bad-request', '/events/month/2026-13/');
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const open = async (size: Size, colorScheme: Scheme = 'light'): Promise<Page> => {
    const context = await browser.newContext({
      viewport: { width: size.width, height: size.height },
      javaScriptEnabled: true,
      colorScheme,
    });
    return context.newPage();
  };

  for (const language of ['en', 'it'] as const) {
    it(`finds no WCAG 2.2 AA violation on any page type in ${language}, at desktop and phone sizes${language === 'en' ? ', in the light and the dark scheme' : ', its colours as in English'}`, async () => {
      for (const [size, scheme] of SIZES.flatMap((size) => SCHEMES.map((scheme) => [size, scheme] as const))) {
        const page = await open(size, scheme);
        const variant = `${size.name}${scheme === 'dark' ? ', dark' : ''}`;
        const violations: string[] = [];
        for (const [name, path] of pages) {
          const response = await page.goto(`${server.url}${path}${path.includes('?') ? '&' : '?'}lang=${language}`);
          assert.ok(response !== null);
          assert.equal(await page.getAttribute('html', 'lang'), language);
          const results = await audit(page, language, size, scheme);
          for (const violation of results?.violations ?? []) {
            violations.push(
              `${name} (${variant}): ${violation.id} — ${violation.help}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
            );
          }
          assert.ok(
            results === undefined || results.passes.length > (size.name === 'desktop' && scheme === 'light' ? 10 : 0),
            `axe ran on ${name}`,
          );
          // The layout is the same in either scheme: measured once.
          if (size.name === 'phone' && scheme === 'light') {
            violations.push(...(await phoneProblems(page)).map((problem) => `${name} (phone): ${problem}`));
          }
          await page.screenshot({ path: path_(name, language, variant.replace(', ', '-')), fullPage: true });
        }
        await page.context().close();
        assert.deepEqual(violations, []);
      }
    });
  }

  it('lets a reader navigate the views, search, filter, open an event and switch language', async () => {
    const page = await open(SIZES[0]);
    await page.goto(`${server.url}/events/`);
    await page.getByRole('link', { name: 'List', exact: true }).click();
    assert.match(page.url(), /\/events\/list\/$/);
    await page.getByLabel('Search events').fill('jazz');
    await page.getByRole('button', { name: 'Search' }).click();
    assert.match(page.url(), /search=jazz/);
    assert.equal(await page.getByRole('link', { name: 'Jazz night' }).count(), 1);
    assert.equal(await page.getByRole('link', { name: 'Morning yoga' }).count(), 0);
    await page.getByLabel('Search events').fill('');
    await page.getByLabel('Category').selectOption('sport');
    await page.getByRole('button', { name: 'Search' }).click();
    assert.equal(await page.getByRole('link', { name: 'Morning yoga' }).count(), 1);
    assert.equal(await page.getByRole('link', { name: 'Jazz night' }).count(), 0);
    // Subscribing takes the filter chosen.
    const outlook = new URL((await page.getByRole('link', { name: 'Add to Outlook' }).getAttribute('href'))!);
    assert.equal(new URL(outlook.searchParams.get('url')!).searchParams.get('categories'), 'sport');
    await page.getByRole('link', { name: 'Week', exact: true }).click();
    await page.getByRole('link', { name: 'Next week' }).click();
    await page.getByRole('link', { name: 'Previous week' }).click();
    await page.getByRole('link', { name: 'Day', exact: true }).click();
    await page.getByRole('link', { name: 'Month', exact: true }).click();
    await page.goto(`${server.url}/events/${day}/`);
    await page.getByRole('link', { name: 'Jazz night' }).first().click();
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Jazz night');
    await page.getByRole('link', { name: 'Italiano' }).click();
    assert.equal(await page.getAttribute('html', 'lang'), 'it');
    assert.equal(await page.getByRole('heading', { name: 'Aggiungi al calendario' }).count(), 1);
    assert.match((await page.getByRole('link', { name: "Nell'app calendario (webcal)" }).getAttribute('href'))!, /^webcal:\/\/.+\.ics$/);
    // Keyboard: the skip link is the first stop, and it leads to the main content.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Vai al contenuto');
    await page.context().close();
  });

  it('lets another site frame the embed, whose events open in the top window', async () => {
    const site = createServer((_request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end(
        `<!doctype html><html lang="en"><title>Another site</title><iframe src="${server.url}/embed/events/" title="Events"></iframe></html>`,
      );
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    try {
      const page = await open(SIZES[0]);
      // Another origin: another port.
      await page.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`);
      await page.frameLocator('iframe').getByRole('link', { name: 'Jazz night' }).click();
      await page.waitForURL(`${server.url}${pages.get('event')}`);
      assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Jazz night');
      await page.context().close();
    } finally {
      site.close();
    }
  });

  it('prints a view and an event without navigation, filters or subscriptions, the month as its grid', async () => {
    const page = await open(SIZES[1]);
    await page.emulateMedia({ media: 'print' });
    const hidden = ['header.site nav', '.pager', 'form.filters', '.subscribe', 'footer.site', '.agenda'];
    const visible = async (selector: string) => page.locator(selector).first().isVisible();
    await page.goto(`${server.url}/events/month/${day.slice(0, 7)}/`);
    for (const selector of hidden) assert.equal(await visible(selector), false, `month: ${selector}`);
    // Paper is not a phone: the month prints as its grid, titles and times in their days.
    assert.equal(await visible('table.month'), true);
    assert.equal(await page.locator('table.month').getByRole('link', { name: 'Morning yoga' }).isVisible(), true);
    await page.goto(`${server.url}/events/list/`);
    for (const selector of [...hidden, '.toggle']) assert.equal(await visible(selector), false, `list: ${selector}`);
    assert.equal(await page.getByRole('link', { name: 'Jazz night' }).isVisible(), true);
    await page.goto(`${server.url}${pages.get('event')}`);
    for (const selector of hidden) assert.equal(await visible(selector), false, `event: ${selector}`);
    for (const text of ['When', 'Where', 'Blue Note', 'Via Borsieri 37, Milano', 'Doors open at 8.']) {
      assert.equal(await page.getByText(text).first().isVisible(), true, text);
    }
    await page.screenshot({ path: path_('event-print', 'en', 'paper'), fullPage: true });
    await page.context().close();
  });

  it('asks for the password of a protected venue, says a wrong one accessibly, and opens the page with the right one', async () => {
    const page = await open(SIZES[1]);
    await page.goto(`${server.url}${pages.get('venue-password')}`);
    assert.equal(await page.getByText('Hidden street 1').count(), 0);
    await page.getByLabel('Password').fill('wrong');
    await page.getByRole('button', { name: 'Show' }).click();
    assert.equal(await page.getByText('Wrong password.').count(), 1);
    const results = await new AxeBuilder({ page }).withTags(WCAG_TAGS).analyze();
    assert.deepEqual(
      results.violations.map((violation) => violation.id),
      [],
    );
    await page.screenshot({ path: path_('venue-wrong-password', 'en', 'phone'), fullPage: true });
    await page.getByLabel('Password').fill('v3nue');
    await page.getByRole('button', { name: 'Show' }).click();
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Back room');
    assert.equal(await page.getByText('Hidden street 1').count(), 1);
    await page.context().close();
  });
});

/**
 * axe's rules for a page in a language, at a size and in a scheme. The document is the same at both sizes and in both
 * schemes: everything is checked at desktop size in the light scheme, and elsewhere only colour contrast (a phone
 * shows parts a desktop hides; the dark scheme changes colours), in English only, since the languages share every
 * colour and style and only their words differ (a phone's tap targets are measured by `phoneProblems` in both).
 * axe runs in the page itself (legacy mode): its default finishes each run in a new blank page, which doubles its
 * time, for frames of other origins that these pages do not have.
 */
function audit(page: Page, language: 'en' | 'it', size: Size, scheme: Scheme): Promise<AxeResults> | undefined {
  const axe = new AxeBuilder({ page }).setLegacyMode();
  if (size.name === 'desktop' && scheme === 'light') {
    return (language === 'en' ? axe : axe.disableRules(['color-contrast'])).withTags(WCAG_TAGS).analyze();
  }
  return language === 'en' ? axe.withRules(['color-contrast']).analyze() : undefined;
}

/**
 * What makes a page hard to use on a phone: a link, button or field smaller than 44×44 px (links in a description's
 * sentences aside, as WCAG's inline exception allows), a page wider than the screen, a word broken across lines.
 */
async function phoneProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    // No named function in here: tsx would wrap it in a helper the page does not have.
    const problems: string[] = [];
    for (const element of document.querySelectorAll('a[href], button, input, select, textarea, summary')) {
      if (element.closest('.description') !== null || element.getClientRects().length === 0) continue;
      const box = element.getBoundingClientRect();
      if (box.width < 44 || box.height < 44)
        problems.push(
          `<${element.tagName.toLowerCase()}> “${(element.textContent ?? '').trim().slice(0, 40)}” is ${Math.round(box.width)}×${Math.round(box.height)} px`,
        );
    }
    if (document.documentElement.scrollWidth > window.innerWidth) {
      problems.push(`the page is ${document.documentElement.scrollWidth} px wide on a ${window.innerWidth} px screen`);
    }
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      for (const word of (node.textContent ?? '').matchAll(/[^\s\-–—/]+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const lines = new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)));
        if (lines.size > 1) problems.push(`“${word[0]}” is broken across lines`);
      }
    }
    return problems;
  });
}

function path_(name: string, language: string, size: string): string {
  return path.join(SCREENSHOTS, `${name}-${language}-${size}.png`);
}
