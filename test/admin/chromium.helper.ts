import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Where the editor's browser tests put their screenshots: SCREENSHOT_DIR, else the system's temporary directory. */
export const SCREENSHOTS = process.env.SCREENSHOT_DIR ?? path.join(os.tmpdir(), 'almanac-admin-screenshots');

const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/** Debian's Chromium (CHROMIUM_PATH to use another), headless; the screenshots' folder made. */
export function launchChromium(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
}

/** axe-core's WCAG 2.2 AA violations on the page, one line each, named `name`. */
export async function axeViolations(page: Page, name: string): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(WCAG_TAGS).analyze();
  assert.ok(results.passes.length > 5, `axe ran on ${name}`);
  return results.violations.map(
    (violation) => `${name}: ${violation.id} — ${violation.help}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
  );
}
