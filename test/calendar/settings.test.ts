/**
 * The site's settings (`/wp/v2/settings`): stored in the database, read by every process, used by the pages,
 * the feeds and the API; administrators only; a bad value is a 400 naming it that changes nothing.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server.ts';
import { startSecondServer, startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from './events.factories.ts';
import { jpeg, MEDIA, raw } from './media.factories.ts';

const SETTINGS = '/wp/v2/settings';
const NAMES = [
  'title',
  'description',
  'title_it',
  'description_it',
  'timezone',
  'date_format',
  'time_format',
  'start_of_week',
  'language',
  'currency_symbol',
  'currency_position',
  'site_logo',
  'almanac_accent_color',
];
const DEFAULTS = {
  title: 'Calendar',
  description: '',
  title_it: 'Calendario',
  description_it: '',
  timezone: 'UTC',
  date_format: '',
  time_format: '',
  start_of_week: 1,
  language: 'en_US',
  currency_symbol: '$',
  currency_position: 'prefix',
  site_logo: 0,
  almanac_accent_color: '#2563eb',
};
// Intl separates AM/PM with a narrow no-break space: pages are compared with plain spaces.
const plain = (html: string) => html.replace(/[\u202f\u00a0]/g, ' ');

describe('site settings', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());
  afterEach(async () => {
    const reset = await change(Object.fromEntries(NAMES.map((name) => [name, null])));
    assert.equal(reset.status, 200, reset.text);
  });

  const change = (body: Record<string, unknown>, auth: Credentials = admin) => server.request(SETTINGS, { method: 'POST', auth, body });
  // Pages are not API operations: read as a browser would.
  const page = async (path: string, base = server.url) => {
    const response = await fetch(`${base}${path}`);
    assert.equal(response.status, 200, path);
    return plain(await response.text());
  };

  it('answers every setting with its default when none was set, in WordPress’s names', async () => {
    const response = await server.request(SETTINGS, { auth: admin });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, DEFAULTS);
    assert.equal(response.headers.get('cache-control'), 'private, no-store');
    assert.match(await page('/events/list/'), /<title>[^<]* · Calendar<\/title>/);
  });

  it('is listed by the API index under WordPress’s namespace, with its arguments, and in the OpenAPI document', async () => {
    const index = await server.request('/');
    assert.ok(index.body.namespaces.includes('wp/v2'));
    const route = index.body.routes['/wp/v2/settings'];
    assert.equal(route.namespace, 'wp/v2');
    assert.deepEqual(route.methods, ['GET', 'POST']);
    const post = route.endpoints.find((endpoint: { methods: string[] }) => endpoint.methods.includes('POST'));
    assert.deepEqual(Object.keys(post.args).sort(), [...NAMES].sort());
    assert.deepEqual(post.args.start_of_week.type, ['integer', 'null']);
    const document = await server.request('/docs/openapi.json');
    assert.deepEqual(Object.keys(document.body.paths['/wp/v2/settings']).sort(), ['get', 'options', 'post']);
  });

  it('refuses anonymous callers (401) and editors (403), and changes nothing', async () => {
    const editor = await server.createUser('editor');
    for (const [auth, status] of [
      [undefined, 401],
      [editor, 403],
    ] as const) {
      const read = await server.request(SETTINGS, { auth });
      assert.equal(read.status, status, read.text);
      const write = await server.request(SETTINGS, { method: 'POST', auth, body: { title: 'Taken over' } });
      assert.equal(write.status, status, write.text);
      assert.equal(write.body.code, 'rest_forbidden');
    }
    assert.deepEqual((await server.request(SETTINGS, { auth: admin })).body, DEFAULTS);
  });

  it('refuses a bad value with a 400 naming it, and changes nothing of what was sent with it', async () => {
    const event = await makeEvent(server, admin);
    const bad: Array<[string, unknown]> = [
      ['start_of_week', 7],
      ['start_of_week', -1],
      ['start_of_week', 'monday'],
      ['time_format', 'Y-m-d'],
      ['time_format', 'g:i x'],
      ['date_format', 'F j, Y <b>'],
      ['timezone', 'Mars/Olympus_Mons'],
      ['language', 'fr_FR'],
      ['currency_position', 'left'],
      ['currency_symbol', 'x'.repeat(11)],
      ['title', 'x'.repeat(201)],
      ['title', 'nul\u0000byte'],
      ['title_it', { text: 'Jazz' }],
      ['almanac_accent_color', 'purple'],
      ['almanac_accent_color', '#fff'],
      ['almanac_accent_color', '7c3aed'],
      ['site_logo', -1],
      ['site_logo', 9_007_199_254_740_991],
      ['site_logo', 'logo.png'],
      // An id that is no image of the media library: none, or an event.
      ['site_logo', 999_999],
      ['site_logo', event.id],
    ];
    for (const [name, value] of bad) {
      const response = await change({ description: 'Changed', [name]: value });
      assert.equal(response.status, 400, `${name}=${JSON.stringify(value)}: ${response.text}`);
      assert.equal(response.body.code, 'rest_invalid_param');
      assert.ok(Object.keys(response.body.data.params).includes(name), `${name}: ${response.text}`);
    }
    assert.deepEqual((await server.request(SETTINGS, { auth: admin })).body, DEFAULTS);
  });

  it('changes only the settings sent, takes a form as WordPress clients send it, and sets one back with null', async () => {
    const changed = await change({ title: 'Turin Jazz', start_of_week: 0, currency_symbol: '€' });
    assert.equal(changed.status, 200, changed.text);
    // The Italian title follows the English one until it is set.
    assert.deepEqual(changed.body, { ...DEFAULTS, title: 'Turin Jazz', title_it: 'Turin Jazz', start_of_week: 0, currency_symbol: '€' });
    const form = await server.request(SETTINGS, { method: 'POST', auth: admin, form: { title_it: 'Jazz a Torino', start_of_week: '6' } });
    assert.equal(form.status, 200, form.text);
    assert.equal(form.body.title_it, 'Jazz a Torino');
    assert.equal(form.body.start_of_week, 6);
    const reset = await change({ title: null, currency_symbol: null });
    assert.deepEqual(reset.body, { ...DEFAULTS, title_it: 'Jazz a Torino', start_of_week: 6 });
  });

  it('names the site in every page’s header and <title>, with its tagline, in each language', async () => {
    await change({ title: 'Turin Jazz', description: 'Every night, somewhere', title_it: 'Jazz a Torino', description_it: 'Ogni sera' });
    const english = await page('/events/list/');
    assert.match(english, /<title>[^<]* · Turin Jazz<\/title>/);
    assert.match(english, /<p class="title"><a [^>]*>Turin Jazz<\/a><\/p>/);
    assert.match(english, /<p class="tagline">Every night, somewhere<\/p>/);
    const italian = await page('/events/list/?lang=it');
    assert.match(italian, /<title>[^<]* · Jazz a Torino<\/title>/);
    assert.match(italian, /<p class="tagline">Ogni sera<\/p>/);
  });

  it('gives the pages the accent (stored in lower case) through their theme, and the logo in the header, its alt the title', async () => {
    const changed = await change({ almanac_accent_color: '#7C3AED', title: 'Turin Jazz' });
    assert.equal(changed.body.almanac_accent_color, '#7c3aed');
    const html = await page('/events/list/');
    assert.match(html, /<link rel="stylesheet" href="\/events\/assets\/theme\.css\?accent=7c3aed">/);
    assert.doesNotMatch(html, /<img/);
    const logo = await server.request(MEDIA, { method: 'POST', auth: admin, ...raw(await jpeg(300, 100), 'logo.jpg') });
    assert.equal((await change({ site_logo: logo.body.id })).body.site_logo, logo.body.id);
    assert.match(
      await page('/events/list/?lang=it'),
      new RegExp(`<img src="/events/assets/logo/${logo.body.id}" alt="Turin Jazz" height="48">`),
    );
  });

  it('names the feeds after the site', async () => {
    await change({ title: 'Turin Jazz', title_it: 'Jazz a Torino' });
    const feed = await server.request(`${EVENTS}.ics`);
    assert.match(feed.text, /^X-WR-CALNAME:Turin Jazz\r$/m);
    const italian = await server.request(`${EVENTS}.ics?translation_language=it`);
    assert.match(italian.text, /^X-WR-CALNAME:Jazz a Torino\r$/m);
  });

  it('starts the month grid and the week on the chosen day: Monday by default, or Sunday', async () => {
    // 1 March 2027 is a Monday.
    const firstHeader = (html: string) => /<th scope="col"><abbr title="([^"]+)">/.exec(html)?.[1];
    const firstCell = (html: string) => /<a class="daynum" href="[^"]*\/events\/(\d{4}-\d{2}-\d{2})\/"/.exec(html)?.[1];
    const monday = await page('/events/month/2027-03/');
    assert.deepEqual([firstHeader(monday), firstCell(monday)], ['Monday', '2027-03-01']);
    await change({ start_of_week: 0 });
    const sunday = await page('/events/month/2027-03/');
    assert.deepEqual([firstHeader(sunday), firstCell(sunday)], ['Sunday', '2027-02-28']);
    const week = await page('/events/week/2027-03-03/');
    assert.match(week, /<link rel="canonical" href="[^"]*\/events\/week\/2027-02-28\/">/);
  });

  it('shows times in the chosen clock and dates in the chosen format', async () => {
    const event = await makeEvent(server, admin, {
      title: 'Late set',
      start_date: '2027-04-14 18:30:00',
      end_date: '2027-04-14 20:00:00',
      timezone: 'UTC',
    });
    assert.match(await page('/events/month/2027-04/'), /Late set<\/a> <span class="time">6:30 PM–8:00 PM<\/span>/);
    assert.match(await page('/events/month/2027-04/?lang=it'), /Late set<\/a> <span class="time">18:30–20:00<\/span>/);
    await change({ time_format: 'H:i', date_format: 'l, jS F Y' });
    assert.match(await page('/events/month/2027-04/'), /Late set<\/a> <span class="time">18:30–20:00<\/span>/);
    const eventPage = await page(new URL(event.url as string).pathname);
    assert.match(eventPage, /Wednesday, 14th April 2027, 18:30 – 20:00/);
    await change({ time_format: 'g:i a' });
    assert.match(await page('/events/month/2027-04/?lang=it'), /Late set<\/a> <span class="time">6:30 pm–8:00 pm<\/span>/);
  });

  it('puts the site’s currency on costs written without one, in the API and on the event’s page', async () => {
    const event = await makeEvent(server, admin, { cost: '20' });
    const read = async () => (await server.request(`${EVENTS}/${event.id}`)).body.cost;
    assert.equal(await read(), '$20');
    await change({ currency_symbol: '€', currency_position: 'postfix' });
    assert.equal(await read(), '20€');
    assert.match(await page(new URL(event.url as string).pathname), /<dd>20€<\/dd>/);
    // A cost with its own symbol keeps it.
    const own = await makeEvent(server, admin, { cost: '£5' });
    assert.equal((await server.request(`${EVENTS}/${own.id}`)).body.cost, '£5');
  });

  it('writes events without a time zone in the site’s, and answers in the site’s language when none is asked', async () => {
    await change({ timezone: 'Europe/Rome', language: 'it_IT' });
    const event = await makeEvent(server, admin, { title: 'Aperitivo', timezone: undefined });
    assert.equal(event.timezone, 'Europe/Rome');
    const list = await server.request(EVENTS);
    assert.equal(list.headers.get('content-language'), 'it');
    assert.match(await page('/events/list/'), /<html lang="it">/);
    assert.match((await server.request(`${EVENTS}.ics`)).text, /^X-WR-TIMEZONE:Europe\/Rome\r$/m);
  });

  describe('with a second process on the same database', () => {
    let second: RunningServer;
    before(async () => {
      second = await startSecondServer(server);
    });
    after(async () => second.close());

    it('shows a change made through the other process at its next request', async () => {
      const read = (path: string) => page(path, second.url);
      const cost = async (id: number) => ((await (await fetch(`${second.url}${EVENTS}/${id}`)).json()) as { cost: string }).cost;
      const event = await makeEvent(server, admin, { cost: '20' });
      // Read first, so that the second process has the page, the feed and the event cached.
      assert.match(await read('/events/list/'), /<title>[^<]* · Calendar<\/title>/);
      assert.match(await read(`${EVENTS}.ics`), /^X-WR-CALNAME:Calendar\r$/m);
      assert.equal(await cost(event.id), '$20');
      await change({ title: 'Turin Jazz', start_of_week: 0, currency_symbol: '€' });
      assert.equal(await cost(event.id), '€20');
      assert.match(await read('/events/list/'), /<title>[^<]* · Turin Jazz<\/title>/);
      assert.match(await read(`${EVENTS}.ics`), /^X-WR-CALNAME:Turin Jazz\r$/m);
      assert.match(await read('/events/month/2027-03/'), /<th scope="col"><abbr title="Sunday">/);
      const settings = await fetch(`${second.url}${SETTINGS}`, { headers: { authorization: admin.bearer } });
      assert.equal(((await settings.json()) as { title: string }).title, 'Turin Jazz');
    });
  });
});
