import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeViolations as axe, launchChromium, SCREENSHOTS } from './chromium.helper.ts';
import { ADMIN, startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * The import page in a real Chromium (Debian's, CHROMIUM_PATH to use another), at desktop and phone sizes: the form,
 * then a spreadsheet uploaded by its label and the report with a problem row, axe-core with no WCAG 2.2 AA
 * violation; the Italian form at phone size. Screenshots go to SCREENSHOT_DIR (default: the system's temporary directory).
 */

const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const CSV = 'Event Name,Event Start Date,Event Start Time\nBrowser fair,2031-05-01,10:00\nBroken row,31/31/2031,10:00\n';

describe('the import page in Chromium', () => {
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    server = await startTestServer({ SITE_TIMEZONE: 'UTC' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const fits = async (page: Page, width: number) => {
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(scrollWidth <= width, `no sideways scrolling at ${width} px (${scrollWidth})`);
  };

  it('uploads a spreadsheet by the labels and shows its report, with no axe violation in English and Italian', async () => {
    const violations: string[] = [];
    for (const size of SIZES) {
      const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
      const page = await context.newPage();
      await page.goto(`${server.url}/admin/login?lang=en&next=${encodeURIComponent('/admin/import')}`);
      await page.getByLabel('Username').fill(ADMIN.username);
      await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(/\/admin\/import$/);
      assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Import');
      violations.push(...(await axe(page, `form ${size.name}`)));
      await fits(page, size.width);
      await page.screenshot({ path: path.join(SCREENSHOTS, `import-en-${size.name}.png`), fullPage: true });
      await page
        .getByLabel('Events', { exact: true })
        .setInputFiles({ name: 'events.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
      await page.getByLabel(/Dry run/).check();
      await page.getByRole('button', { name: 'Import' }).click();
      await page.getByRole('heading', { name: 'Report' }).waitFor();
      assert.match((await page.getByRole('status').textContent()) ?? '', /Dry run: nothing was written/);
      assert.match((await page.locator('.problems li').textContent()) ?? '', /events\.csv, line 3, column 2/);
      violations.push(...(await axe(page, `report ${size.name}`)));
      await fits(page, size.width);
      await page.screenshot({ path: path.join(SCREENSHOTS, `import-report-en-${size.name}.png`), fullPage: true });
      if (size.name === 'phone') {
        await page.goto(`${server.url}/admin/import?lang=it`);
        assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Importa');
        violations.push(...(await axe(page, `form it ${size.name}`)));
        await page.screenshot({ path: path.join(SCREENSHOTS, `import-it-${size.name}.png`), fullPage: true });
      }
      await context.close();
    }
    assert.deepEqual(violations, []);
  });
});
