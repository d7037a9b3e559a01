import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import lighthouse, { desktopConfig, type Config, type Flags } from 'lighthouse';
import { chromium, type Browser } from 'playwright-core';
import { freePort, startTestServer, type TestServer } from '../helpers/server.ts';
import { makeEvent, utcDay } from './events.factories.ts';

/**
 * Lighthouse, driving Debian's Chromium (CHROMIUM_PATH to use another), scores the month, list, event and venue pages
 * at least 95 in performance, accessibility, best practices and SEO, with its mobile and its desktop settings. Not part
 * of `npm test` (eight audits take a minute of CPU, and a loaded machine lowers the performance score): CI runs it
 * alone with `npm run test:lighthouse`. Each report is kept in LIGHTHOUSE_DIR (default: a folder in the system's
 * temporary directory) as HTML, to read what an audit found.
 */

const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
const MINIMUM = 0.95;
const REPORTS = process.env.LIGHTHOUSE_DIR ?? path.join(os.tmpdir(), 'almanac-lighthouse');
const FORM_FACTORS: Record<string, Config | undefined> = { mobile: undefined, desktop: desktopConfig };

describe('calendar pages under Lighthouse', () => {
  let server: TestServer;
  let browser: Browser;
  let port: number;
  const pages = new Map<string, string>();

  before(async () => {
    mkdirSync(REPORTS, { recursive: true });
    server = await startTestServer();
    const admin = await server.admin();
    const day = utcDay(2);
    const local = (url: string) => new URL(url).pathname;
    const event = await makeEvent(server, admin, {
      title: 'Jazz night',
      description: 'Live jazz with the Trio.\n\nDoors open at 8.',
      excerpt: 'Live jazz in the old town.',
      start_date: `${day} 21:00`,
      end_date: `${day} 23:30`,
      timezone: 'Europe/Rome',
      categories: ['Music'],
      tags: 'jazz',
      venue: { venue: 'Blue Note', address: 'Via Borsieri 37', city: 'Milano', geo_lat: 45.48, geo_lng: 9.19 },
      organizer: [{ organizer: 'Jazz Club', email: 'club@jazz.example' }],
      cost: '10€',
    });
    for (const [title, days] of [
      ['Morning yoga', 1],
      ['Choir rehearsal', 3],
      ['Book club', 5],
    ] as const) {
      await makeEvent(server, admin, { title, start_date: `${utcDay(days)} 18:00`, end_date: `${utcDay(days)} 19:00` });
    }
    pages.set('month', '/events/');
    pages.set('list', '/events/list/');
    pages.set('event', local(event.url));
    pages.set('venue', local(event.venue.url));
    port = await freePort();
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', `--remote-debugging-port=${port}`],
    });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const [formFactor, config] of Object.entries(FORM_FACTORS)) {
    for (const name of ['month', 'list', 'event', 'venue']) {
      it(`scores the ${name} page at least ${MINIMUM * 100} in every category, as a ${formFactor}`, async (t) => {
        const flags: Flags = { port, output: 'html', onlyCategories: [...CATEGORIES], logLevel: 'error' };
        const result = await lighthouse(`${server.url}${pages.get(name)}`, flags, config);
        assert.ok(result !== undefined, 'Lighthouse gave a result');
        writeFileSync(path.join(REPORTS, `${name}-${formFactor}.html`), result.report as string);
        const { categories, audits } = result.lhr;
        t.diagnostic(CATEGORIES.map((category) => `${category} ${Math.round((categories[category]?.score ?? 0) * 100)}`).join(', '));
        const low = CATEGORIES.filter((category) => (categories[category]?.score ?? 0) < MINIMUM).map((category) => {
          const failing = categories[category]!.auditRefs.filter(
            (ref) => ref.weight > 0 && audits[ref.id]?.score !== null && (audits[ref.id]?.score ?? 1) < 0.9,
          );
          return `${category} ${Math.round((categories[category]?.score ?? 0) * 100)}: ${failing.map((ref) => `${ref.id} (${audits[ref.id]?.displayValue ?? audits[ref.id]?.score})`).join(', ')}`;
        });
        assert.deepEqual(low, []);
      });
    }
  }
});
