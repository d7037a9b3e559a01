import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { axeViolations as axe, launchChromium, SCREENSHOTS } from './chromium.helper.ts';
import { ADMIN, startTestServer, type TestServer } from '../helpers/server.ts';
import { makeEvent } from '../calendar/events.factories.ts';

/**
 * The editor in a real Chromium (Debian's, CHROMIUM_PATH to use another): signing in by the form's labels in both
 * languages at desktop and phone sizes, the dashboard and the events list, axe-core with no WCAG 2.2 AA violation,
 * and the same by keyboard alone. Screenshots go to SCREENSHOT_DIR (default: the system's temporary directory).
 */

const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 360, height: 740 },
] as const;
const WORDS = {
  en: { username: 'Username', password: 'Password', logIn: 'Log in', dashboard: 'Dashboard', events: 'Events' },
  it: { username: 'Nome utente', password: 'Password', logIn: 'Accedi', dashboard: 'Bacheca', events: 'Eventi' },
} as const;

describe('the editor in Chromium', () => {
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    server = await startTestServer();
    const admin = await server.admin();
    await makeEvent(server, admin, { title: 'Jazz night', status: 'publish', start_date: 'tomorrow 21:00', end_date: 'tomorrow 23:00' });
    await makeEvent(server, admin, { title: 'Draft talk', status: 'draft', start_date: 'tomorrow 18:00', end_date: 'tomorrow 19:00' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const language of ['en', 'it'] as const) {
    it(`signs in by the labels and shows the dashboard and the events list in ${language}, with no axe violation`, async () => {
      const words = WORDS[language];
      for (const size of SIZES) {
        const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
        const page = await context.newPage();
        const violations: string[] = [];
        await page.goto(`${server.url}/admin/events/?lang=${language}`);
        assert.match(page.url(), /\/admin\/login\?next=/);
        assert.equal(await page.getAttribute('html', 'lang'), language);
        violations.push(...(await axe(page, `login ${size.name}`)));
        await page.screenshot({ path: path.join(SCREENSHOTS, `login-${language}-${size.name}.png`), fullPage: true });
        await page.getByLabel(words.username).fill(ADMIN.username);
        await page.getByLabel(words.password, { exact: true }).fill(ADMIN.password);
        await page.getByRole('button', { name: words.logIn }).click();
        await page.waitForURL(/\/admin\/events\/\?lang=\w+$/);
        assert.equal(await page.getAttribute('html', 'lang'), language);
        assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), words.events);
        assert.ok((await page.getByRole('link', { name: 'Draft talk' }).count()) > 0);
        violations.push(...(await axe(page, `events ${size.name}`)));
        await page.screenshot({ path: path.join(SCREENSHOTS, `events-${language}-${size.name}.png`), fullPage: true });
        const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(scrollWidth <= size.width, `no sideways scrolling of the page at ${size.width} px (${scrollWidth})`);
        await page.getByRole('link', { name: words.dashboard }).click();
        assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), words.dashboard);
        violations.push(...(await axe(page, `dashboard ${size.name}`)));
        await page.screenshot({ path: path.join(SCREENSHOTS, `dashboard-${language}-${size.name}.png`), fullPage: true });
        await context.close();
        assert.deepEqual(violations, []);
      }
    });
  }

  it('works by keyboard alone: sign in, open the events list, log out', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${server.url}/admin/login?lang=en`);
    const focusOn = async (accessibleName: string) => {
      for (let step = 0; step < 30; step += 1) {
        await page.keyboard.press('Tab');
        // A field is named by its label (`for` its id), a link or a button by its text.
        const name = await page.evaluate(() => {
          const active = document.activeElement;
          const label = active?.id ? document.querySelector(`label[for="${active.id}"]`) : null;
          return (label ?? active)?.textContent ?? '';
        });
        if (name.trim() === accessibleName) return;
      }
      assert.fail(`no focusable "${accessibleName}"`);
    };
    await focusOn('Username');
    await page.keyboard.type(ADMIN.username);
    await focusOn('Password');
    await page.keyboard.type(ADMIN.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/admin\/$/);
    await focusOn('Events');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/admin\/events\/$/);
    await focusOn('Log out');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/admin\/login\?out=1$/);
    assert.match((await page.getByRole('status').textContent()) ?? '', /You are logged out/);
    await context.close();
  });
});
