/**
 * The import from The Events Calendar's REST API (`almanac import tec`): another Almanac server, which answers in
 * the reference's format, imported into a test server and compared field by field through the API, with and
 * without credentials; a second run writes nothing. Then recorded answers of the reference, served by a small
 * local server: a 429 and a 500 are waited out, and what is no TEC API (an HTML page, other JSON, an address not
 * allowed) writes nothing.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { commandLineCaller } from '../../src/calendar/ical/ical.import.ts';
import { TecImport, tecReportLines, type TecImportOptions, type TecImportReport } from '../../src/calendar/import/tec.import.ts';
import { TecImportError } from '../../src/calendar/import/tec.client.ts';
import { PostPasswords } from '../../src/calendar/posts/posts.passwords.ts';
import { parseAllowList } from '../../src/platform/http/outbound.ts';
import { picture } from './media.factories.ts';

const NS = '/calendar/events/v1';
const EVERYTHING = 'per_page=50&start_date=1970-01-01&end_date=2200-12-31';
const QUICK = { allow: parseAllowList('127.0.0.1'), rate: 1000, backoffMs: 5 } as const;
const runFile = promisify(execFile);

describe('TEC REST import', () => {
  let source: TestServer;
  let target: TestServer;
  let sourceAdmin: Credentials;
  let targetAdmin: Credentials;
  before(async () => {
    [source, target] = await Promise.all([startTestServer({ SITE_TIMEZONE: 'Europe/Rome' }), startTestServer({ SITE_TIMEZONE: 'UTC' })]);
    [sourceAdmin, targetAdmin] = await Promise.all([source.admin(), target.admin()]);
  });
  after(async () => {
    await Promise.all([source?.close(), target?.close()]);
  });

  const runImport = async (url: string, options: Partial<TecImportOptions> = {}): Promise<TecImportReport> => {
    const store = target.server.store;
    const caller = await commandLineCaller(store.db, target.config, targetAdmin.username);
    const deps = {
      db: store.db,
      config: target.config,
      passwords: new PostPasswords(store.db, target.config),
      translateError: store.translateError,
    };
    return new TecImport(deps).importSite(url, caller, { ...QUICK, ...options });
  };
  const counted = (report: TecImportReport) => ({
    categories: report.categories,
    tags: report.tags,
    venues: report.venues,
    organizers: report.organizers,
    events: report.events,
  });
  const none = { created: 0, updated: 0, unchanged: 0 };
  const list = async (server: TestServer, auth: Credentials, collection: string, query = 'per_page=50&status=any') => {
    const response = await server.request(`${NS}/${collection}?${query}`, { auth });
    assert.equal(response.status, 200, response.text);
    return response.body[collection] as any[];
  };
  const totals = async () => ({
    events: (await list(target, targetAdmin, 'events', `${EVERYTHING}&status=any`)).length,
    venues: (await list(target, targetAdmin, 'venues')).length,
    organizers: (await list(target, targetAdmin, 'organizers')).length,
    categories: (await list(target, targetAdmin, 'categories', 'hide_empty=false&per_page=50')).length,
  });

  /** What must match between two sites: every field but ids, addresses, and the dates of writing. */
  const comparable = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(comparable);
    if (typeof value !== 'object' || value === null) return value;
    // An event without a website of its own shows its page's address, which is of its site.
    const item = value as Record<string, unknown>;
    const fields = 'website' in item && item.website === item.url ? { ...item, website: '(its page)' } : item;
    const skipped = new Set([
      'id',
      'global_id',
      'global_id_lineage',
      'url',
      'rest_url',
      'urls',
      'author',
      'date',
      'date_utc',
      'modified',
      'modified_utc',
      'term_taxonomy_id',
      'parent',
      'recurring_event_id',
      'count',
    ]);
    return Object.fromEntries(
      Object.entries(fields)
        .filter(([key]) => !skipped.has(key))
        .map(([key, entry]) => [key, key === 'image' && entry !== false ? (entry as { url: string }).url : comparable(entry)]),
    );
  };
  const byTitle = (events: any[]) => new Map(events.map((event) => [`${event.title} ${event.start_date}`, event]));

  it('imports a whole calendar from another server: published items without credentials, drafts with; every field alike; a second run writes nothing', async () => {
    const post = async (path: string, body: unknown) => {
      const response = await source.request(`${NS}${path}`, { method: 'POST', auth: sourceAdmin, body });
      assert.ok(response.status < 300, response.text);
      return response.body;
    };
    const music = await post('/categories', { name: 'Music', description: 'All music' });
    const jazz = await post('/categories', { name: 'Jazz', parent: music.id });
    await post('/tags', { name: 'outdoor' });
    const teatro = await post('/venues', {
      venue: 'Teatro Goldoni',
      address: 'Via Roma 1',
      city: 'Livorno',
      country: 'Italy',
      zip: '57123',
      phone: '+39 0586 1',
      website: 'https://goldoni.example/',
      geo_lat: 43.55,
      geo_lng: 10.31,
    });
    const secretVenue = await post('/venues', { venue: 'Cantina', city: 'Bolgheri', password: 'cellar' });
    const club = await post('/organizers', { organizer: 'Jazz Club', email: 'info@jazz.example', phone: '+39 0586 2' });
    const friends = await post('/organizers', { organizer: 'Amici della Musica, APS', website: 'https://amici.example/' });
    await post('/events', {
      title: 'Livorno Jazz',
      description: '<p>Tre set, una notte: è così.</p>',
      excerpt: 'Jazz',
      start_date: '2019-03-05 20:30:00',
      end_date: '2019-03-05 23:15:00',
      timezone: 'Europe/Rome',
      venue: teatro.id,
      organizer: [friends.id, club.id],
      categories: [jazz.id],
      tags: ['outdoor'],
      cost: '20€',
      website: 'https://livornojazz.example/?a=1&b=2',
      image: 'https://img.example/jazz.jpg',
      featured: true,
      sticky: true,
      show_map: true,
    });
    await post('/events', {
      title: 'Market',
      start_date: '2027-03-06',
      end_date: '2027-03-07',
      all_day: true,
      venue: secretVenue.id,
      cost: ['0', '5'],
    });
    await post('/events', { title: 'Rehearsal', status: 'draft', start_date: '2027-04-01 18:00:00', end_date: '2027-04-01 20:00:00' });
    await post('/events', {
      title: 'Board meeting',
      status: 'private',
      start_date: '2027-04-02 18:00:00',
      end_date: '2027-04-02 19:00:00',
    });
    await post('/events', {
      title: 'Members only',
      password: 'soci',
      description: 'Secret programme',
      start_date: '2027-04-03 18:00:00',
      end_date: '2027-04-03 19:00:00',
    });
    await post('/events', {
      title: 'Weekly class',
      start_date: '2027-01-04 10:00:00',
      end_date: '2027-01-04 11:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
      categories: [music.id],
    });
    const api = `${source.url}${NS}/`;
    const before = await totals();

    const anonymous = await runImport(api);
    assert.deepEqual(anonymous.errors, []);
    assert.deepEqual(counted(anonymous), {
      categories: { ...none, created: 2 },
      tags: { ...none, created: 1 },
      venues: { ...none, created: 2 },
      organizers: { ...none, created: 2 },
      events: { ...none, created: 4 },
    });
    const afterAnonymous = await totals();
    assert.equal(
      afterAnonymous.events - before.events,
      3 + 3,
      'Jazz, Market, Members only, and the class three times; no draft, no private event',
    );
    assert.deepEqual(anonymous.notices.map((notice) => `${notice.kind} ${notice.name}`).sort(), ['event Members only', 'venue Cantina']);

    const credentials = { user: sourceAdmin.username, password: sourceAdmin.password };
    const dry = await runImport(api, { credentials, dryRun: true });
    assert.equal(dry.events.created, 2);
    assert.deepEqual(await totals(), afterAnonymous, 'a dry run writes nothing');

    const whole = await runImport(api, { credentials });
    assert.deepEqual(whole.errors, []);
    assert.deepEqual(whole.events, { created: 2, updated: 1, unchanged: 3 }, 'the drafts come, the protected event is read whole');
    assert.deepEqual(whole.venues, { created: 0, updated: 1, unchanged: 1 });

    const remote = byTitle(await list(source, sourceAdmin, 'events', `${EVERYTHING}&status=any&context=edit`));
    const here = byTitle(await list(target, targetAdmin, 'events', `${EVERYTHING}&status=any&context=edit`));
    assert.deepEqual([...here.keys()].sort(), [...remote.keys()].sort());
    for (const [key, event] of remote) assert.deepEqual(comparable(here.get(key)), comparable(event), key);
    const venues = async (server: TestServer, auth: Credentials) =>
      (await list(server, auth, 'venues', 'per_page=50&status=any&context=edit'))
        .map(comparable)
        .sort((a: any, b: any) => a.venue.localeCompare(b.venue));
    assert.deepEqual(await venues(target, targetAdmin), await venues(source, sourceAdmin));
    const [child] = (await list(target, targetAdmin, 'categories', 'hide_empty=false&per_page=50')).filter((term) => term.name === 'Jazz');
    const [parent] = (await list(target, targetAdmin, 'categories', 'hide_empty=false&per_page=50')).filter(
      (term) => term.name === 'Music',
    );
    assert.equal(child.parent, parent.id, 'the hierarchy is kept');
    const seriesIds = [...here.values()].filter((event) => event.title === 'Weekly class').map((event) => event.id);

    const again = await runImport(api, { credentials });
    assert.deepEqual(counted(again), {
      categories: { ...none, unchanged: 2 },
      tags: { ...none, unchanged: 1 },
      venues: { ...none, unchanged: 2 },
      organizers: { ...none, unchanged: 2 },
      events: { ...none, unchanged: 6 },
    });
    assert.match(tecReportLines(again, false)[0] as string, /events: 0 created, 0 updated, 6 unchanged; errors 0$/);
    const later = byTitle(await list(target, targetAdmin, 'events', `${EVERYTHING}&status=any&context=edit`));
    for (const [key, event] of here) assert.equal(later.get(key).modified_utc, event.modified_utc, `${key} is not written again`);
    assert.deepEqual(
      [...later.values()].filter((event) => event.title === 'Weekly class').map((event) => event.id),
      seriesIds,
      'the occurrences keep their ids',
    );
  });

  describe('recorded answers of the reference', () => {
    let fixture: Server;
    let base: string;
    const hits = new Map<string, number>();
    const json = (body: unknown) => ({ status: 200, type: 'application/json; charset=UTF-8', body: JSON.stringify(body) });
    const event = {
      id: 31,
      global_id: 'site.test?id=31',
      author: '12',
      status: 'publish',
      date: '2017-01-05 14:23:36',
      date_utc: '2017-01-05 14:23:36',
      url: 'http://site.test/event/event-01/',
      rest_url: 'http://site.test/wp-json/tribe/events/v1/events/31',
      title: 'Event 01',
      description: '<p>Event 01 description</p>',
      excerpt: '<p>Event 01 excerpt</p>',
      slug: 'event-01',
      // The fixture server's address, written in as it answers.
      image: { url: '{base}/ok/wp-content/uploads/image.png', id: 30, extension: 'png' },
      all_day: false,
      start_date: '2017-01-05 14:23:36',
      end_date: '2017-01-05 16:23:36',
      utc_start_date: '2017-01-05 19:23:36',
      utc_end_date: '2017-01-05 21:23:36',
      timezone: 'America/New_York',
      timezone_abbr: 'EST',
      cost: '$23',
      cost_details: { currency_symbol: '$', currency_code: '', currency_position: 'prefix', values: ['23'] },
      website: 'http://tri.be/?a=1&#038;b=2',
      show_map: true,
      show_map_link: true,
      hide_from_listings: false,
      sticky: false,
      featured: false,
      categories: [{ name: 'category-1', slug: 'category-1', taxonomy: 'tribe_events_cat', description: 'Category 1', parent: 0, id: 7 }],
      tags: [],
      venue: {
        id: 40,
        status: 'publish',
        venue: 'Venue 01',
        slug: 'venue-01',
        address: '1 Main St',
        city: 'Boston',
        show_map: true,
        show_map_link: true,
      },
      organizer: [{ id: 41, status: 'publish', organizer: 'Organizer 01', slug: 'organizer-01', email: 'one@one.example' }],
      custom_fields: [],
    };
    /** Answers by path: a list of answers, the last one repeated. */
    const answers: Record<string, { status: number; type: string; body: string | Buffer; headers?: Record<string, string> }[]> = {
      '/ok/wp-json/tribe/events/v1/events': [
        { status: 429, type: 'application/json', body: '{"code":"too_many"}', headers: { 'retry-after': '1' } },
        json({ events: [event], rest_url: 'x', total: 1, total_pages: 1 }),
      ],
      '/ok/wp-json/tribe/events/v1/venues': [
        { status: 500, type: 'text/html', body: '<h1>Error</h1>' },
        json({ venues: [event.venue], rest_url: 'x', total: 1, total_pages: 1 }),
      ],
      '/ok/wp-json/tribe/events/v1/organizers': [json({ organizers: event.organizer, rest_url: 'x', total: 1, total_pages: 1 })],
      '/ok/wp-json/tribe/events/v1/categories': [json({ rest_url: 'x', total: 1, total_pages: 1, categories: event.categories })],
      '/ok/wp-json/tribe/events/v1/tags': [json({ rest_url: 'x', total: 0, total_pages: 0, tags: [] })],
      '/html/events': [{ status: 200, type: 'text/html; charset=UTF-8', body: '<!doctype html><title>Blog</title>' }],
      '/other/events': [json({ posts: [{ id: 1 }] })],
      '/missing/events': [{ status: 404, type: 'application/json', body: '{"code":"rest_no_route"}' }],
    };
    before(async () => {
      const png = await picture(40, 30, 'png');
      answers['/ok/wp-content/uploads/image.png'] = [{ status: 200, type: 'image/png', body: png }];
      fixture = createServer((request, response) => {
        const path = new URL(request.url ?? '/', 'http://x').pathname;
        const count = hits.get(path) ?? 0;
        hits.set(path, count + 1);
        const list = answers[path] ?? [{ status: 404, type: 'text/html', body: 'not found' }];
        const answer = list[Math.min(count, list.length - 1)]!;
        response.writeHead(answer.status, { 'content-type': answer.type, ...answer.headers });
        response.end(typeof answer.body === 'string' ? answer.body.replaceAll('{base}', base) : answer.body);
      });
      await new Promise<void>((resolve) => fixture.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(fixture.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((resolve) => fixture.close(() => resolve())));

    it('waits out a 429 (Retry-After) and a 500, then maps the reference fields', async () => {
      const started = Date.now();
      const report = await runImport(`${base}/ok/wp-json/tribe/events/v1`);
      assert.ok(Date.now() - started >= 1000, 'Retry-After: 1 is honoured');
      assert.equal(hits.get('/ok/wp-json/tribe/events/v1/events'), 2);
      assert.equal(hits.get('/ok/wp-json/tribe/events/v1/venues'), 2);
      assert.deepEqual(report.errors, []);
      assert.deepEqual(report.events, { ...none, created: 1 });
      const [imported] = (await list(target, targetAdmin, 'events', `${EVERYTHING}&search=${encodeURIComponent('Event 01')}`)) as any[];
      assert.equal(imported.description.includes('Event 01 description'), true);
      assert.equal(imported.start_date, '2017-01-05 14:23:36');
      assert.equal(imported.utc_start_date, '2017-01-05 19:23:36');
      assert.equal(imported.timezone, 'America/New_York');
      assert.equal(imported.cost, '$23');
      assert.equal(imported.website, 'http://tri.be/?a=1&b=2');
      assert.ok(imported.image.url.startsWith(`${target.url}/`), `the image is stored here: ${imported.image.url}`);
      assert.equal(imported.image.width, 40);
      assert.equal(imported.venue.venue, 'Venue 01');
      assert.equal(imported.venue.city, 'Boston');
      assert.deepEqual(
        imported.organizer.map((organizer: any) => organizer.email),
        ['one@one.example'],
      );
      assert.deepEqual(
        imported.categories.map((term: any) => term.description),
        ['Category 1'],
      );
    });

    it('refuses what is no TEC API, and an address not allowed, writing nothing', async () => {
      const before = await totals();
      for (const [path, message] of [
        ['/html/', /answered text\/html, not JSON/],
        ['/other/', /no list of events/],
        ['/missing/', /status 404/],
      ] as const)
        await assert.rejects(runImport(`${base}${path}`), (error: Error) => error instanceof TecImportError && message.test(error.message));
      await assert.rejects(
        runImport(`${base}/ok/wp-json/tribe/events/v1/`, { allow: parseAllowList('') }),
        /blocked address range \(loopback\)|http is accepted only/,
      );
      assert.deepEqual(await totals(), before);
    });

    it('the command says what is wrong in one line and exits 1', async () => {
      const command = runFile(
        process.execPath,
        ['--import', 'tsx', 'src/cli/main.ts', 'import', 'tec', `${base}/html/`, '--allow', '127.0.0.1'],
        {
          env: { ...process.env, LOG_LEVEL: 'silent', DATABASE_URL: target.config.databaseUrl },
        },
      );
      await assert.rejects(command, (error: { code: number; stdout: string; stderr: string }) => {
        assert.equal(error.code, 1);
        assert.equal(error.stdout, '');
        assert.match(error.stderr, /^[^\n]*answered text\/html, not JSON: not The Events Calendar's API; nothing imported\n$/);
        return true;
      });
    });
  });
});
