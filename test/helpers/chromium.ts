import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (CHROMIUM_PATH to use another), headless, as the pages' browser tests drive it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
}
