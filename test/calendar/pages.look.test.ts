import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { launchChromium } from '../helpers/chromium.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { makeEvent } from './events.factories.ts';
import { MEDIA, raw } from './media.factories.ts';

/**
 * The calendar's look in a real Chromium: the site's logo, accent and category colours, multi-day events as bars
 * across the days of a row, the list's cards; axe finds no WCAG 2.2 AA violation in either language or colour scheme,
 * a 390 px phone never scrolls sideways; each page is photographed (1280 and 390 px, en and it, light and dark)
 * into SCREENSHOT_DIR.
 */

const SCREENSHOTS = process.env.SCREENSHOT_DIR ?? path.join(os.tmpdir(), 'almanac-pages-screenshots');
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
const SIZES = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;
/** A month whose first day is a Monday (the default first day of the week): its rows are its weeks. */
const MONTH = '2027-03';
const FESTIVAL_ALT = 'A river at sunset';

describe('the calendar’s look in Chromium', () => {
  let server: TestServer;
  let admin: Credentials;
  let browser: Browser;
  const pages = new Map<string, string>();
  let thumbnail = '';
  let matThumbnail = '';
  let logoId = 0;

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
    admin = await server.admin();
    const logo = await sharp(
      Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="480" height="120"><rect width="480" height="120" rx="24" fill="#7c3aed"/>' +
          '<circle cx="60" cy="60" r="34" fill="#fff"/><rect x="116" y="40" width="320" height="40" rx="20" fill="#fff"/></svg>',
      ),
    )
      .png()
      .toBuffer();
    const upload = await server.request(MEDIA, { method: 'POST', auth: admin, ...raw(logo, 'logo.png', 'image/png') });
    assert.equal(upload.status, 201, upload.text);
    const settings = await server.request('/wp/v2/settings', {
      method: 'POST',
      auth: admin,
      body: {
        title: 'Turin Nights',
        description: 'Music, theatre and more',
        description_it: 'Musica, teatro e altro',
        site_logo: upload.body.id,
        almanac_accent_color: '#7C3AED',
      },
    });
    assert.equal(settings.status, 200, settings.text);
    const category = async (name: string, color: string) =>
      (await server.request('/calendar/events/v1/categories', { method: 'POST', auth: admin, body: { name, color } })).body.id as number;
    const music = await category('Music', '#0f766e');
    const sport = await category('Sport', '#facc15');
    const poster = await sharp(
      Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="400"><defs><linearGradient id="g"><stop offset="0" stop-color="#0f766e"/>' +
          '<stop offset="1" stop-color="#f59e0b"/></linearGradient></defs><rect width="600" height="400" fill="url(#g)"/></svg>',
      ),
    )
      .jpeg()
      .toBuffer();
    const image = await server.request(`${MEDIA}?alt_text=${encodeURIComponent(FESTIVAL_ALT)}`, {
      method: 'POST',
      auth: admin,
      ...raw(poster, 'festival.jpg'),
    });
    assert.equal(image.status, 201, image.text);
    thumbnail = image.body.media_details.sizes.thumbnail.source_url;
    logoId = upload.body.id;
    const festival = await makeEvent(server, admin, {
      image: image.body.id,
      title: 'Jazz festival',
      start_date: `${MONTH}-09 19:00`,
      end_date: `${MONTH}-11 23:00`,
      categories: [music],
      excerpt: 'Three nights of jazz by the river.',
      venue: { venue: 'Parco del Valentino', city: 'Torino' },
      cost: '25',
    });
    await makeEvent(server, admin, {
      title: 'Spring fair',
      all_day: true,
      start_date: `${MONTH}-13`,
      end_date: `${MONTH}-16`,
      categories: [sport],
    });
    // A decorative picture: no alternative text.
    const mat = await server.request(MEDIA, { method: 'POST', auth: admin, ...raw(poster, 'mat.jpg') });
    assert.equal(mat.status, 201, mat.text);
    matThumbnail = mat.body.media_details.sizes.thumbnail.source_url;
    await makeEvent(server, admin, {
      image: mat.body.id,
      title: 'Morning yoga',
      start_date: `${MONTH}-10 07:00`,
      end_date: `${MONTH}-10 08:00`,
      categories: [sport],
    });
    await makeEvent(server, admin, { title: 'Choir rehearsal', start_date: `${MONTH}-10 18:00`, end_date: `${MONTH}-10 19:30` });
    pages.set('look-month', `/events/month/${MONTH}/`);
    pages.set('look-list', '/events/list/');
    pages.set('look-week', `/events/week/${MONTH}-08/`);
    pages.set('look-day', `/events/${MONTH}-10/`);
    pages.set('look-event', new URL(festival.url).pathname);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const open = async (size: { readonly width: number; readonly height: number }, colorScheme: 'light' | 'dark'): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width: size.width, height: size.height }, colorScheme });
    return context.newPage();
  };

  it('draws a multi-day event as one bar over the days it runs in a row, and again after the row wraps', async () => {
    const page = await open(SIZES[0], 'light');
    await page.goto(`${server.url}/events/month/${MONTH}/`);
    const cell = (day: string) => page.locator(`td:has(a.daynum[href="/events/${MONTH}-${day}/"])`).boundingBox();
    const bar = (title: string) => page.locator('li.bar', { hasText: title });
    const festival = (await bar('Jazz festival').boundingBox())!;
    const [tuesday, thursday] = [(await cell('09'))!, (await cell('11'))!];
    assert.ok(Math.abs(festival.x - tuesday.x) < 8, `starts in Tuesday's cell: ${festival.x} vs ${tuesday.x}`);
    assert.ok(Math.abs(festival.x + festival.width - (thursday.x + thursday.width)) < 8, 'ends in Thursday’s cell');
    // The fair runs Saturday to Tuesday: two pieces, one a row, each with the title once.
    const fair = await bar('Spring fair').all();
    assert.equal(fair.length, 2);
    const [saturday, sunday, monday, tuesdayAfter] = await Promise.all(['13', '14', '15', '16'].map(cell));
    const [first, second] = [(await fair[0]!.boundingBox())!, (await fair[1]!.boundingBox())!];
    assert.ok(Math.abs(first.x - saturday!.x) < 8 && Math.abs(first.x + first.width - (sunday!.x + sunday!.width)) < 8);
    assert.ok(Math.abs(second.x - monday!.x) < 8 && Math.abs(second.x + second.width - (tuesdayAfter!.x + tuesdayAfter!.width)) < 8);
    // Every day it runs on still lists it to screen readers, in the list's order.
    assert.equal(await page.getByRole('link', { name: 'Jazz festival' }).count(), 3);
    // The category's colour fills the bar, with text that reads on it; today's and the header use the accent.
    const fill = await bar('Jazz festival').evaluate((element) => getComputedStyle(element).backgroundColor);
    assert.equal(fill, 'rgb(15, 118, 110)');
    assert.equal(await page.locator('header .logo img').getAttribute('alt'), 'Turin Nights');
    assert.equal(await page.locator('header .logo img').evaluate((image: HTMLImageElement) => image.naturalWidth > 0), true);
    await page.context().close();
  });

  it('paints each event with its category’s colour in every view, and lists cards with a badge, place, excerpt, cost and picture', async () => {
    const page = await open(SIZES[0], 'light');
    const classes = (locator: ReturnType<Page['locator']>) => locator.evaluate((element) => [...element.classList]);
    await page.goto(`${server.url}/events/month/${MONTH}/`);
    assert.ok((await classes(page.locator('table.month li.ev', { hasText: 'Morning yoga' }))).includes('cc-facc15'));
    assert.ok(!(await classes(page.locator('table.month li.ev', { hasText: 'Choir rehearsal' }))).some((name) => name.startsWith('cc-')));
    for (const address of [`/events/week/${MONTH}-10/`, `/events/${MONTH}-10/`, '/events/list/']) {
      await page.goto(`${server.url}${address}`);
      assert.ok((await classes(page.locator('li.card', { hasText: 'Jazz festival' }).first())).includes('cc-0f766e'), address);
      assert.ok((await classes(page.locator('li.card', { hasText: 'Morning yoga' }).first())).includes('cc-facc15'), address);
    }
    const card = page.locator('li.card', { hasText: 'Jazz festival' });
    assert.deepEqual(
      await card
        .locator('.badge')
        .innerText()
        .then((text) => text.split(/\s+/)),
      ['MAR', '9'],
    );
    assert.equal(await card.locator('.card-venue').innerText(), 'Parco del Valentino, Torino');
    assert.equal(await card.locator('.card-excerpt').innerText(), 'Three nights of jazz by the river.');
    assert.equal(await card.locator('.card-cost').innerText(), '$25');
    assert.equal(await card.locator('img.thumb').getAttribute('src'), thumbnail);
    assert.equal(await page.locator('li.card', { hasText: 'Choir rehearsal' }).locator('img, .card-venue, .card-cost').count(), 0);
    await page.context().close();
  });

  it('draws the week as seven columns with one bar per multi-day event, clipped and marked at the week’s edges', async () => {
    const page = await open(SIZES[0], 'light');
    await page.goto(`${server.url}/events/week/${MONTH}-08/`);
    const grid = page.locator('table.week-grid');
    assert.equal(await grid.locator('tbody td').count(), 7);
    assert.equal(await page.locator('.week-agenda').isVisible(), false);
    const cell = async (day: string) => (await grid.locator(`td:has(a.daynum[href="/events/${MONTH}-${day}/"])`).boundingBox())!;
    const bar = (title: string) => grid.locator('li.bar', { hasText: title });
    // The festival, Tuesday to Thursday: one bar over three columns, its title once, its first day's time.
    assert.equal(await bar('Jazz festival').count(), 1);
    const festival = (await bar('Jazz festival').boundingBox())!;
    const [tuesday, thursday] = [await cell('09'), await cell('11')];
    assert.ok(Math.abs(festival.x - tuesday.x) < 8, `starts in Tuesday's column: ${festival.x} vs ${tuesday.x}`);
    assert.ok(Math.abs(festival.x + festival.width - (thursday.x + thursday.width)) < 8, 'ends in Thursday’s column');
    assert.equal((await bar('Jazz festival').locator('.time').innerText()).replace(/\s/g, ' '), 'from 7:00 PM');
    assert.equal(await grid.getByRole('link', { name: 'Jazz festival' }).count(), 3);
    // The fair runs Saturday to Tuesday: clipped at Sunday, saying that it goes on; the next week says where it came from.
    const fair = (await bar('Spring fair').boundingBox())!;
    const [saturday, sunday] = [await cell('13'), await cell('14')];
    assert.ok(Math.abs(fair.x - saturday.x) < 8 && Math.abs(fair.x + fair.width - (sunday.x + sunday.width)) < 8);
    assert.match((await bar('Spring fair').getAttribute('class'))!, /\bclip-after\b/);
    assert.doesNotMatch((await bar('Spring fair').getAttribute('class'))!, /\bclip-before\b/);
    assert.equal(await bar('Spring fair').locator('.sr-only').textContent(), '(continues next week)');
    await page.goto(`${server.url}/events/week/${MONTH}-15/?lang=it`);
    const rest = page.locator('table.week-grid li.bar', { hasText: 'Spring fair' });
    assert.match((await rest.getAttribute('class'))!, /\bclip-before\b/);
    assert.equal(await rest.locator('.sr-only').textContent(), '(continua dalla settimana precedente)');
    await page.context().close();
    // A phone gets the week as its list of days, no grid.
    const phone = await open(SIZES[1], 'light');
    await phone.goto(`${server.url}/events/week/${MONTH}-08/`);
    assert.equal(await phone.locator('table.week-grid').isVisible(), false);
    assert.equal(await phone.locator('.week-agenda h2').count(), 7);
    assert.equal(await phone.locator('.week-agenda').getByRole('link', { name: 'Jazz festival' }).first().isVisible(), true);
    await phone.context().close();
  });

  it('shows each event’s thumbnail in the week and day views and the list, with its alternative text or none', async () => {
    const page = await open(SIZES[0], 'light');
    const attributes = (image: ReturnType<Page['locator']>) =>
      image.evaluate((element) =>
        Object.fromEntries(['src', 'alt', 'width', 'height', 'loading'].map((name) => [name, element.getAttribute(name)])),
      );
    const festival = { src: thumbnail, alt: FESTIVAL_ALT, width: '150', height: '150', loading: 'lazy' };
    const yoga = { ...festival, src: matThumbnail, alt: '' };
    for (const address of [`/events/week/${MONTH}-08/`, `/events/${MONTH}-10/`, '/events/list/']) {
      await page.goto(`${server.url}${address}`);
      const card = (title: string) => page.locator('li.card', { hasText: title }).first().locator('img.thumb');
      assert.deepEqual(await attributes(card('Jazz festival')), festival, address);
      assert.deepEqual(await attributes(card('Morning yoga')), yoga, address);
      assert.equal(await page.locator('li.card', { hasText: 'Choir rehearsal' }).locator('img').count(), 0, address);
    }
    // The week's columns show the picture of a day's event (a bar, across days, has none).
    await page.goto(`${server.url}/events/week/${MONTH}-08/`);
    const chip = page.locator('table.week-grid li.chip', { hasText: 'Morning yoga' }).locator('img.thumb');
    assert.deepEqual(await attributes(chip), yoga);
    assert.equal(await chip.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth === 150), true);
    assert.equal(await page.locator('table.week-grid li.bar img').count(), 0);
    await page.context().close();
  });

  it('keeps a month chip’s time whole, at 1280 px and in the narrowest cells the grid has, in both languages', async () => {
    // 40rem (640 px) and less is a phone's compact grid: 641 px is the narrowest screen that shows titles and times.
    for (const width of [1280, 641]) {
      const page = await open({ width, height: 900 }, 'light');
      for (const language of ['en', 'it']) {
        await page.goto(`${server.url}/events/month/${MONTH}/?lang=${language}`);
        const chips = await page.locator('table.month li.chip').evaluateAll((items) =>
          items.map((item) => {
            const time = item.querySelector('.time')!;
            const [box, cell, own] = [
              time.getBoundingClientRect(),
              item.closest('td')!.getBoundingClientRect(),
              item.getBoundingClientRect(),
            ];
            return {
              text: time.textContent,
              clipped:
                time.scrollWidth > time.clientWidth ||
                box.right > own.right + 0.5 ||
                box.bottom > own.bottom + 0.5 ||
                own.right > cell.right,
              visible: box.width > 0 && box.height > 0,
            };
          }),
        );
        assert.ok(chips.length >= 2, `${width} ${language}: ${chips.length} chips`);
        for (const chip of chips) assert.deepEqual([chip.visible, chip.clipped], [true, false], `${width} ${language}: ${chip.text}`);
        await page.screenshot({ path: path.join(SCREENSHOTS, `look-month-chips-${language}-${width}.png`) });
      }
      await page.context().close();
    }
  });

  it('serves the theme made from its address, forever cacheable, and the logo only at the setting’s address', async () => {
    const theme = await fetch(`${server.url}/events/assets/theme.css?accent=7c3aed&colors=0f766e.facc15`);
    assert.equal(theme.status, 200);
    assert.match(theme.headers.get('content-type')!, /^text\/css/);
    assert.match(theme.headers.get('cache-control')!, /immutable/);
    const css = await theme.text();
    assert.match(css, /\.cc-0f766e\{--cat:#0f766e;--cat-ink:#ffffff\}/);
    assert.match(css, /\.cc-facc15\{--cat:#facc15;--cat-ink:#000000\}/);
    for (const [query, name] of <Array<[string, string]>>[
      ['', 'accent'],
      ['accent=7c3aed&colors=red', 'colors'],
      ['accent=%237c3aed', 'accent'],
      ['accent=7c3aed&colors=0f766e..facc15', 'colors'],
    ]) {
      const bad = await fetch(`${server.url}/events/assets/theme.css?${query}`);
      assert.equal(bad.status, 400, query);
      assert.match(await bad.text(), new RegExp(name));
    }
    const logo = await fetch(`${server.url}/events/assets/logo/${logoId}`, { redirect: 'manual' });
    assert.equal(logo.status, 302);
    assert.equal((await fetch(logo.headers.get('location')!)).headers.get('content-type'), 'image/png');
    for (const other of [String(logoId + 1), 'x', '0']) {
      assert.equal((await fetch(`${server.url}/events/assets/logo/${other}`, { redirect: 'manual' })).status, 404, other);
    }
  });

  for (const language of ['en', 'it'] as const) {
    it(`finds no WCAG 2.2 AA violation and no sideways scroll in ${language}, light and dark, at 1280 and 390 px`, async () => {
      const problems: string[] = [];
      for (const size of SIZES) {
        for (const scheme of ['light', 'dark'] as const) {
          const page = await open(size, scheme);
          for (const [name, address] of pages) {
            await page.goto(`${server.url}${address}?lang=${language}`);
            const axe = new AxeBuilder({ page }).setLegacyMode();
            // The whole rule set once per page; colours again wherever the size or the scheme changes them.
            const full = size.name === 'desktop' && scheme === 'light';
            const results = await (full ? axe.withTags(WCAG_TAGS) : axe.withRules(['color-contrast'])).analyze();
            for (const violation of results.violations) {
              problems.push(
                `${name} ${size.name} ${scheme}: ${violation.id} ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
              );
            }
            const width = await page.evaluate(() => document.documentElement.scrollWidth);
            if (width > size.width) problems.push(`${name} ${size.name} ${scheme}: ${width} px wide`);
            await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${language}-${size.width}-${scheme}.png`), fullPage: true });
          }
          await page.context().close();
        }
      }
      assert.deepEqual(problems, []);
    });
  }
});
