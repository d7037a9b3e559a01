/**
 * Images where people look: the event page's hero (`srcset`, `sizes`, dimensions, the upload's alternative text),
 * venue and organizer pages' images, Open Graph and JSON-LD, and RFC 7986's IMAGE in feeds with ATTACH in one
 * event's file; a hidden event's image shows nowhere to anonymous readers. One Chromium screenshot per width.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DomUtils, parseDocument } from 'htmlparser2';
import { chromium } from 'playwright-core';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { makeEvent, utcDay } from './events.factories.ts';
import { jpeg, MEDIA, pathOf, raw } from './media.factories.ts';
import { makeOrganizer, makeVenue } from './venues-organizers.factories.ts';

const ICS = '/calendar/events/v1/events';

describe('images on pages and feeds', () => {
  let server: TestServer;
  let author: Credentials;
  let poster: any;
  let event: any;

  const upload = async (width: number, height: number, name: string, alt: string) => {
    const uploaded = await server.request(`${MEDIA}?alt_text=${encodeURIComponent(alt)}`, {
      method: 'POST',
      auth: author,
      ...raw(await jpeg(width, height, '#b3262d'), name),
    });
    assert.equal(uploaded.status, 201, uploaded.text);
    return uploaded.body;
  };
  /** A page as a browser asks for it (pages are not in the API's OpenAPI document). */
  const page = async (path: string) => {
    const response = await fetch(`${server.url}${path}`, { redirect: 'manual' });
    return { status: response.status, text: await response.text() };
  };
  const documentOf = async (url: string) => {
    const response = await page(pathOf(url));
    assert.equal(response.status, 200, response.text);
    return parseDocument(response.text);
  };
  const metaOf = (document: ReturnType<typeof parseDocument>, property: string) =>
    DomUtils.findAll((node) => node.name === 'meta' && node.attribs.property === property, document.children).map(
      (node) => node.attribs.content,
    );

  before(async () => {
    server = await startTestServer();
    author = await server.createUser('author');
    poster = await upload(1600, 900, 'harbour-poster.jpg', 'A red poster of the harbour concert');
    event = await makeEvent(server, author, {
      title: 'Harbour concert',
      start_date: `${utcDay(5)} 20:00`,
      end_date: `${utcDay(5)} 22:00`,
      status: 'publish',
      image: poster.id,
    });
  });
  after(() => server.close());

  it('gives the event page a responsive hero with its dimensions and alternative text', async () => {
    const document = await documentOf(event.url);
    const [hero, ...others] = DomUtils.findAll((node) => node.name === 'img' && node.attribs.class === 'event-image', document.children);
    assert.ok(hero, 'a hero image');
    assert.equal(others.length, 0);
    const sizes = poster.media_details.sizes;
    assert.equal(hero.attribs.src, poster.source_url);
    assert.deepEqual([hero.attribs.width, hero.attribs.height], ['1600', '900']);
    assert.equal(hero.attribs.alt, 'A red poster of the harbour concert');
    assert.equal(
      hero.attribs.srcset,
      [
        `${sizes.medium.source_url} 300w`,
        `${sizes.medium_large.source_url} 768w`,
        `${sizes.large.source_url} 1024w`,
        `${poster.source_url} 1600w`,
      ].join(', '),
      'every size of the image’s shape (not the square thumbnail), and the full one',
    );
    assert.equal(hero.attribs.sizes, '(max-width: 72rem) 100vw, 72rem');
    for (const candidate of hero.attribs.srcset!.split(', ')) {
      const file = await server.request(pathOf(candidate.split(' ')[0]!));
      assert.equal(file.status, 200, candidate);
    }

    assert.deepEqual(metaOf(document, 'og:image'), [sizes.large.source_url], 'previews take the large size');
    assert.deepEqual(metaOf(document, 'og:image:width'), ['1024']);
    assert.deepEqual(metaOf(document, 'og:image:height'), ['576']);
    assert.deepEqual(metaOf(document, 'og:image:alt'), ['A red poster of the harbour concert']);
    const [script] = DomUtils.findAll((node) => node.name === 'script' && node.attribs.type === 'application/ld+json', document.children);
    const jsonLd = JSON.parse(DomUtils.textContent(script!));
    assert.equal((Array.isArray(jsonLd) ? jsonLd[0] : jsonLd).image, poster.source_url);
  });

  it('shows an image recorded by URL without dimensions, and an image without alternative text with an empty alt', async () => {
    const plain = await upload(200, 100, 'small.jpg', '');
    const small = await makeEvent(server, author, { status: 'publish', image: plain.id });
    const document = await documentOf(small.url);
    const [hero] = DomUtils.findAll((node) => node.name === 'img' && node.attribs.class === 'event-image', document.children);
    assert.equal(hero!.attribs.alt, '');
    assert.equal(hero!.attribs.srcset, `${plain.source_url} 200w`);
    assert.deepEqual(metaOf(document, 'og:image'), [plain.source_url]);
    assert.deepEqual(metaOf(document, 'og:image:alt'), []);

    const recorded = await makeEvent(server, author, { status: 'publish', image: 'https://cdn.example/outside.jpg' });
    const page = await documentOf(recorded.url);
    const [outside] = DomUtils.findAll((node) => node.name === 'img' && node.attribs.class === 'event-image', page.children);
    assert.equal(outside!.attribs.src, 'https://cdn.example/outside.jpg');
    assert.deepEqual([outside!.attribs.srcset, outside!.attribs.width], [undefined, undefined]);
    assert.deepEqual(metaOf(page, 'og:image:width'), []);
  });

  it('shows the images of venues and organizers on their pages', async () => {
    const photo = await upload(900, 600, 'hall.jpg', 'The hall from the square');
    const venue = await makeVenue(server, author, { venue: 'Harbour hall', image: photo.id, status: 'publish' });
    const organizer = await makeOrganizer(server, author, { organizer: 'Harbour club', image: photo.id, status: 'publish' });
    for (const item of [venue, organizer]) {
      const document = await documentOf(item.url);
      const [image] = DomUtils.findAll((node) => node.name === 'img' && node.attribs.class === 'event-image', document.children);
      assert.ok(image, item.url);
      assert.equal(image.attribs.alt, 'The hall from the square');
      assert.deepEqual([image.attribs.width, image.attribs.height], ['900', '600']);
    }
  });

  it('writes RFC 7986 IMAGE in feeds, and the full image with ATTACH in one event’s file', async () => {
    const thumbnail = poster.media_details.sizes.thumbnail.source_url;
    const feed = await server.request(`${ICS}.ics?start_date=${utcDay(4)}&end_date=${utcDay(6)}`);
    assert.equal(feed.status, 200);
    const unfolded = feed.text.replace(/\r\n /g, '');
    assert.ok(unfolded.includes(`IMAGE;VALUE=URI;DISPLAY=BADGE;FMTTYPE=image/jpeg:${thumbnail}\r\n`), unfolded);
    assert.equal(unfolded.includes('ATTACH'), false, 'a feed names its images, it does not attach them');
    const single = (await server.request(`${ICS}/${event.id}.ics`)).text.replace(/\r\n /g, '');
    assert.ok(single.includes(`IMAGE;VALUE=URI;DISPLAY=BADGE;FMTTYPE=image/jpeg:${thumbnail}\r\n`));
    assert.ok(single.includes(`IMAGE;VALUE=URI;DISPLAY=FULLSIZE;FMTTYPE=image/jpeg:${poster.source_url}\r\n`));
    assert.ok(single.includes(`ATTACH;FMTTYPE=image/jpeg:${poster.source_url}\r\n`));

    // The import reads past them: the event comes in, with no image of another calendar taken for its own.
    const admin = await server.admin();
    const imported = await server.request(`${ICS}.ics`, {
      method: 'POST',
      auth: admin,
      body: single.replace(/UID:[^\r]*/, 'UID:image-import-test@elsewhere.example'),
      headers: { 'content-type': 'text/calendar' },
    });
    assert.equal(imported.status < 300, true, imported.text);
  });

  it('shows a hidden event’s image nowhere to anonymous readers', async () => {
    const secret = await upload(640, 480, 'secret-poster.jpg', 'A secret');
    const draft = await makeEvent(server, author, { title: 'Secret party', status: 'draft', image: secret.id });
    assert.equal((await page(pathOf(draft.url))).status, 404);
    const feed = await server.request(`${ICS}.ics`);
    assert.equal(feed.text.includes('secret-poster'), false);
    assert.equal((await server.request(`${ICS}/${draft.id}.ics`)).status >= 400, true);
    const list = await page('/events/list/');
    assert.equal(list.text.includes('secret-poster'), false);
    assert.equal(
      (await server.request(`${MEDIA}/${secret.id}`)).status,
      404,
      'uploaded to no post, it became the draft’s: hidden as it is',
    );
  });

  it('looks right at desktop and phone widths (screenshots)', async () => {
    const dir = process.env.SCREENSHOT_DIR ?? path.join(os.tmpdir(), 'almanac-pages-screenshots');
    mkdirSync(dir, { recursive: true });
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox'],
    });
    try {
      for (const [width, height] of [
        [1280, 900],
        [390, 844],
      ] as const) {
        const page = await browser.newPage({ viewport: { width, height } });
        await page.goto(event.url);
        const box = await page.locator('img.event-image').boundingBox();
        assert.ok(box !== null && box.width > 0 && box.width <= width, `${width}: ${JSON.stringify(box)}`);
        assert.equal(await page.locator('img.event-image').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), true);
        await page.screenshot({ path: path.join(dir, `event-hero-${width}.png`), fullPage: true });
        await page.close();
      }
    } finally {
      await browser.close();
    }
  });
});
