import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { launchChromium as launch } from '../helpers/chromium.ts';

/** What the editor's browser tests share: Debian's Chromium (CHROMIUM_PATH for another), axe at WCAG 2.2 AA, screenshots. */

const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
/** Where screenshots go (CI keeps the folder): SCREENSHOT_DIR, else the system's temporary directory. */
export const SCREENSHOTS = process.env.SCREENSHOT_DIR ?? path.join(os.tmpdir(), 'almanac-admin-screenshots');

export async function launchChromium(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return launch();
}

/** axe's WCAG 2.2 AA violations on the page, one line each, named for `name`. */
export async function axeViolations(page: Page, name: string): Promise<string[]> {
  // The page as a person sees it: a document still loading has no stylesheet yet, and its links look too small to tap.
  await page.waitForLoadState('load');
  // In the page itself: the default finishes each run in a new blank page, for frames of other origins the editor lacks.
  const results = await new AxeBuilder({ page }).setLegacyMode().withTags(WCAG_TAGS).analyze();
  assert.ok(results.passes.length > 5, `axe ran on ${name}`);
  return results.violations.map(
    (violation) => `${name}: ${violation.id} — ${violation.help}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
  );
}

/** Tabs until what has the focus is named `accessibleName`: a field by its label (`for` its id), a link or a button by its text. */
export async function tabTo(page: Page, accessibleName: string, steps = 40): Promise<void> {
  for (let step = 0; step < steps; step += 1) {
    await page.keyboard.press('Tab');
    const name = await page.evaluate(() => {
      const active = document.activeElement;
      const label = active?.id ? document.querySelector(`label[for="${active.id}"]`) : null;
      return (label ?? active)?.textContent ?? '';
    });
    if (name.trim() === accessibleName) return;
  }
  assert.fail(`no focusable "${accessibleName}"`);
}
