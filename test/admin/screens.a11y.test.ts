import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { ADMIN, startTestServer, type TestServer } from '../helpers/server.ts';
import { makeVenue } from '../calendar/venues-organizers.factories.ts';
import { axeViolations as axe, launchChromium, SCREENSHOTS, tabTo } from './chromium.helper.ts';

/**
 * The editor's screens of venues, organizers, categories, tags, media, settings, users and webhooks in a real Chromium:
 * each found by its menu link and used by its labels in both languages at desktop and phone sizes, axe-core with no
 * WCAG 2.2 AA violation, a refused form shown with its messages, and a category added by keyboard alone.
 * Screenshots go to SCREENSHOT_DIR (default: the system's temporary directory).
 */

const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const WORDS = {
  en: {
    logIn: 'Log in',
    venues: 'Venues',
    addVenue: 'Add a venue',
    name: 'Name',
    city: 'City',
    save: 'Save',
    organizers: 'Organizers',
    addOrganizer: 'Add an organizer',
    categories: 'Categories',
    addCategory: 'Add a category',
    tags: 'Tags',
    media: 'Media',
    upload: 'Upload an image',
    settings: 'Settings',
    siteTitle: 'Site title',
    users: 'Users',
    addUser: 'Add a user',
    webhooks: 'Webhooks',
    addWebhook: 'Add a webhook',
    problem: 'There is a problem',
  },
  it: {
    logIn: 'Accedi',
    venues: 'Luoghi',
    addVenue: 'Aggiungi un luogo',
    name: 'Nome',
    city: 'Città',
    save: 'Salva',
    organizers: 'Organizzatori',
    addOrganizer: 'Aggiungi un organizzatore',
    categories: 'Categorie',
    addCategory: 'Aggiungi una categoria',
    tags: 'Etichette',
    media: 'Media',
    upload: "Carica un'immagine",
    settings: 'Impostazioni',
    siteTitle: 'Titolo del sito',
    users: 'Utenti',
    addUser: 'Aggiungi un utente',
    webhooks: 'Webhook',
    addWebhook: 'Aggiungi un webhook',
    problem: 'C’è un problema',
  },
} as const;

describe('the editor’s screens in Chromium', () => {
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    server = await startTestServer();
    await makeVenue(server, await server.admin(), { venue: 'Teatro Comunale', city: 'Vicenza' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('walks every screen by its labels in English and Italian at 1280 and 390 px, with no axe violation', async () => {
    const violations: string[] = [];
    for (const size of SIZES) {
      const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
      const page = await context.newPage();
      await page.goto(`${server.url}/admin/login?lang=en`);
      await page.getByLabel('Username').fill(ADMIN.username);
      await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(/\/admin\/$/);
      for (const language of ['en', 'it'] as const) {
        const words = WORDS[language];
        await page.goto(`${server.url}/admin/?lang=${language}`);
        const look = async (name: string) => {
          // A heading is there as soon as the page is parsed; axe must see it styled (a loaded machine showed it bare).
          await page.waitForLoadState('load');
          assert.equal(await page.getAttribute('html', 'lang'), language);
          violations.push(...(await axe(page, `${name} ${language} ${size.name}`)));
          await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${language}-${size.name}.png`), fullPage: true });
          const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
          assert.ok(scrollWidth <= size.width, `${name}: no sideways scrolling at ${size.width} px (${scrollWidth})`);
        };
        const open = async (menu: string, heading: string) => {
          await page
            .getByRole('navigation', { name: language === 'en' ? 'Editor menu' : "Menu dell'editor" })
            .getByRole('link', { name: menu })
            .click();
          assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), heading);
        };

        await open(words.venues, words.venues);
        assert.ok((await page.getByRole('link', { name: 'Teatro Comunale' }).count()) > 0);
        await look('venues');
        await page.getByRole('link', { name: words.addVenue }).click();
        await page.getByRole('button', { name: words.save }).click();
        assert.equal(await page.getByRole('heading', { level: 2 }).first().textContent(), words.problem);
        await look('venue-refused');
        await page.getByLabel(words.name).fill(`Loggia ${language} ${size.name}`);
        await page.getByLabel(words.city, { exact: true }).fill('Vicenza');
        await page.getByRole('button', { name: words.save }).click();
        assert.ok((await page.getByRole('link', { name: `Loggia ${language} ${size.name}` }).count()) > 0);

        await open(words.organizers, words.organizers);
        await look('organizers');
        await page.getByRole('link', { name: words.addOrganizer }).click();
        await look('organizer');

        await open(words.categories, words.categories);
        await look('categories');
        await page.getByRole('link', { name: words.addCategory }).click();
        await page.getByRole('textbox', { name: words.name, exact: true }).fill(`Music ${language} ${size.name}`);
        await look('category');
        await page.getByRole('button', { name: words.save }).click();
        assert.ok((await page.getByRole('link', { name: `Music ${language} ${size.name}` }).count()) > 0);

        await open(words.tags, words.tags);
        await look('tags');

        await open(words.media, words.media);
        await look('media');
        await page.getByRole('link', { name: words.upload }).click();
        await look('media-upload');

        await open(words.users, words.users);
        await look('users');
        await page.getByRole('link', { name: words.addUser }).click();
        await look('user');
        await page.goBack();
        await page.getByRole('link', { name: ADMIN.username, exact: true }).click();
        await look('user-edit');

        await open(words.webhooks, words.webhooks);
        await look('webhooks');
        await page.getByRole('link', { name: words.addWebhook }).click();
        await look('webhook');

        await open(words.settings, words.settings);
        assert.ok((await page.getByLabel(words.siteTitle, { exact: true }).inputValue()).length > 0);
        await look('settings');
      }
      await context.close();
    }
    assert.deepEqual(violations, []);
  });

  it('adds a category by keyboard alone', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${server.url}/admin/login?lang=en`);
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/admin\/$/);
    const focusOn = (accessibleName: string) => tabTo(page, accessibleName);
    await focusOn('Categories');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/admin\/categories\/$/);
    await focusOn('Add a category');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/admin\/categories\/new$/);
    await focusOn('Name *');
    await page.keyboard.type('Theatre');
    await focusOn('Name in Italian');
    await page.keyboard.type('Teatro');
    await focusOn('Save');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/admin\/categories\/\?saved=1$/);
    assert.match((await page.getByRole('status').first().textContent()) ?? '', /Saved/);
    assert.ok((await page.getByRole('link', { name: 'Theatre' }).count()) > 0);
    await context.close();
  });
});
