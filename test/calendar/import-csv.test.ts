/**
 * The CSV import (`almanac import csv`): spreadsheets of events, venues and organizers imported into a test server's
 * database and read back through the API; a second run writes nothing; rows with problems are reported with their
 * line and column, the others imported; files that are no CSV write nothing.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS } from './events.factories.ts';
import { ORGANIZERS, VENUES } from './venues-organizers.factories.ts';
import { commandLineCaller } from '../../src/calendar/ical/ical.import.ts';
import {
  CsvImport,
  CsvImportError,
  csvReportLines,
  importSettingsOf,
  type CsvFiles,
  type CsvImportReport,
} from '../../src/calendar/import/csv.import.ts';
import { PostPasswords } from '../../src/calendar/posts/posts.passwords.ts';

const EVENT_HEADER =
  'Event Name,Event Description,Event Start Date,Event Start Time,Event End Date,Event End Time,All Day Event,Event Time Zone,Event Venue Name,Event Organizer Name,Event Category,Event Tags,Event Cost,Event Currency Symbol,Event Website,Event Featured Image';

describe('CSV import', () => {
  let server: TestServer;
  let admin: Credentials;
  const dir = mkdtempSync(path.join(tmpdir(), 'almanac-csv-'));
  before(async () => {
    server = await startTestServer({ SITE_TIMEZONE: 'UTC' });
    admin = await server.admin();
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  let files = 0;
  /** A file of these lines (or bytes), named uniquely. */
  const file = (content: string | Buffer, name = 'events.csv') => {
    files += 1;
    const at = path.join(dir, `${files}-${name}`);
    writeFileSync(at, typeof content === 'string' ? `${content}\n` : content);
    return at;
  };
  const runImport = async (
    paths: CsvFiles,
    settings: { order?: string; map?: string; dryRun?: boolean } = {},
  ): Promise<CsvImportReport> => {
    const store = server.server.store;
    const caller = await commandLineCaller(store.db, server.config, admin.username);
    const importer = new CsvImport({
      db: store.db,
      config: server.config,
      passwords: new PostPasswords(store.db, server.config),
      translateError: store.translateError,
    });
    return importer.importFiles(paths, caller, { ...importSettingsOf(settings.order, settings.map), dryRun: settings.dryRun });
  };
  const search = async (words: string) => {
    const response = await server.request(
      `${EVENTS}?per_page=50&start_date=2000-01-01&end_date=2100-01-01&status=any&search=${encodeURIComponent(words)}`,
      { auth: admin },
    );
    assert.equal(response.status, 200, response.text);
    return response.body.events as any[];
  };
  const totals = async () => {
    const count = async (route: string) =>
      Number(
        (await server.request(`${route}?per_page=1&status=any&start_date=2000-01-01&end_date=2100-01-01`, { auth: admin })).headers.get(
          'x-wp-total',
        ),
      );
    return { events: await count(EVENTS), venues: await count(VENUES), organizers: await count(ORGANIZERS) };
  };
  const counts = (report: CsvImportReport) => ({
    events: report.events,
    venues: report.venues,
    organizers: report.organizers,
  });

  it('imports events with venues and organizers from their files, every column read back through the API; a second run writes nothing', async () => {
    const venues = file(
      [
        'Venue Name,Venue Address,Venue Address 2,Venue City,Venue State/Province,Venue Zip,Venue Country,Venue Phone,Venue Website,Venue Latitude,Venue Longitude',
        'Teatro Goldoni,Via Roma 1,Primo piano,Livorno,LI,57123,Italy,+39 0586 1,https://goldoni.example/,"43,55",10.31',
      ].join('\n'),
      'venues.csv',
    );
    const organizers = file(
      [
        'Organizer Name,Organizer Email,Organizer Phone,Organizer Website',
        'Jazz Club Livorno,info@jazz.example,+39 0586 2,https://jazz.example/',
        '"Amici della Musica, APS",,,',
      ].join('\n'),
      'organizers.csv',
    );
    const events = file(
      [
        EVENT_HEADER,
        'Livorno Jazz,"<p>Three sets, one night.</p>",2027-03-05,8:30 pm,2027-03-05,23:15,no,Europe/Rome,teatro goldoni,"Jazz Club Livorno, Amici della Musica, APS, Comune di Livorno","Music, Jazz",live,20,€,https://livornojazz.example/,https://img.example/jazz.jpg',
        'Livorno Market,,2027-03-06,,,,yes,,Piazza Cavour,,Market,,,,,',
      ].join('\n'),
    );
    const before = await totals();
    const first = await runImport({ events, venues, organizers });
    assert.deepEqual(first.errors, []);
    assert.deepEqual(counts(first), {
      events: { created: 2, updated: 0, unchanged: 0 },
      venues: { created: 1, updated: 0, unchanged: 0 },
      organizers: { created: 2, updated: 0, unchanged: 0 },
    });
    const after = await totals();
    // The third organizer and the second venue came from the events file alone; an organizer's name may hold a comma.
    assert.deepEqual(after, { events: before.events + 2, venues: before.venues + 2, organizers: before.organizers + 3 });

    const [jazz] = await search('Livorno Jazz');
    assert.equal(jazz.title, 'Livorno Jazz');
    assert.match(jazz.description, /Three sets, one night\./);
    assert.equal(jazz.start_date, '2027-03-05 20:30:00');
    assert.equal(jazz.end_date, '2027-03-05 23:15:00');
    assert.equal(jazz.utc_start_date, '2027-03-05 19:30:00');
    assert.equal(jazz.timezone, 'Europe/Rome');
    assert.equal(jazz.all_day, false);
    assert.equal(jazz.cost, '€20');
    assert.equal(jazz.cost_details.currency_symbol, '€');
    assert.equal(jazz.website, 'https://livornojazz.example/');
    assert.equal(jazz.image.url, 'https://img.example/jazz.jpg');
    assert.deepEqual(jazz.categories.map((term: any) => term.name).sort(), ['Jazz', 'Music']);
    assert.deepEqual(
      jazz.tags.map((term: any) => term.name),
      ['live'],
    );
    assert.equal(jazz.venue.venue, 'Teatro Goldoni');
    assert.equal(jazz.venue.address, 'Via Roma 1, Primo piano');
    assert.equal(jazz.venue.city, 'Livorno');
    assert.equal(jazz.venue.zip, '57123');
    assert.equal(jazz.venue.country, 'Italy');
    assert.equal(jazz.venue.website, 'https://goldoni.example/');
    assert.equal(jazz.venue.geo_lat, 43.55);
    assert.equal(jazz.venue.geo_lng, 10.31);
    assert.deepEqual(
      jazz.organizer.map((organizer: any) => [organizer.organizer, organizer.email ?? null]),
      [
        ['Jazz Club Livorno', 'info@jazz.example'],
        ['Amici della Musica, APS', null],
        ['Comune di Livorno', null],
      ],
    );
    const [market] = await search('Livorno Market');
    assert.equal(market.all_day, true);
    assert.equal(market.start_date, '2027-03-06 00:00:00');
    assert.equal(market.end_date, '2027-03-06 23:59:59');
    assert.equal(market.venue.venue, 'Piazza Cavour');

    const again = await runImport({ events, venues, organizers });
    assert.deepEqual(again.errors, []);
    assert.deepEqual(counts(again), {
      events: { created: 0, updated: 0, unchanged: 2 },
      venues: { created: 0, updated: 0, unchanged: 1 },
      organizers: { created: 0, updated: 0, unchanged: 2 },
    });
    assert.deepEqual(await totals(), after);
    const [unchanged] = await search('Livorno Jazz');
    assert.equal(unchanged.modified, jazz.modified);
    assert.equal(unchanged.venue.modified, jazz.venue.modified);

    // A changed row updates its event, an emptied cell clears its field; the other rows stay as they are.
    const edited = file(
      [
        EVENT_HEADER,
        'Livorno Jazz,"<p>Four sets.</p>",2027-03-05,8:30 pm,2027-03-05,23:15,no,Europe/Rome,teatro goldoni,Jazz Club Livorno,Music,,20,€,,',
        'Livorno Market,,2027-03-06,,,,yes,,Piazza Cavour,,Market,,,,,',
      ].join('\n'),
    );
    const third = await runImport({ events: edited });
    assert.deepEqual(third.events, { created: 0, updated: 1, unchanged: 1 });
    const [changed] = await search('Livorno Jazz');
    assert.equal(changed.id, jazz.id);
    assert.match(changed.description, /Four sets\./);
    assert.deepEqual(changed.tags, []);
    assert.equal(changed.website, '');
    assert.equal(changed.image, false);
    assert.deepEqual(
      changed.organizer.map((organizer: any) => organizer.organizer),
      ['Jazz Club Livorno'],
    );
  });

  it('reads mapped headers, semicolons, and day-first or month-first dates as --date-order says', async () => {
    const lines = ['Titolo;Data;Ora;Luogo', 'Sagra;04/05/2027;18.00;Borgo', 'Sagra bis;13/05/2027;9 am;Borgo'].join('\n');
    const settings = { map: 'Titolo=title,Data=start_date, Ora = start_time,Luogo=venue' };
    const dmy = await runImport({ events: file(lines) }, { ...settings, order: 'dmy' });
    assert.deepEqual(dmy.errors, []);
    assert.equal(dmy.events.created, 2);
    const [sagra] = await search('Sagra');
    assert.equal(sagra.start_date, '2027-05-04 18:00:00');
    assert.equal(sagra.venue.venue, 'Borgo');

    const mdy = await runImport({ events: file(lines.replaceAll('Sagra', 'Fiera')) }, { ...settings, order: 'mdy' });
    // 13/05/2027 is no month-first date: that row alone is refused.
    assert.equal(mdy.events.created, 1);
    assert.deepEqual(
      mdy.errors.map((error) => [error.line, error.column, error.header]),
      [[3, 2, 'Data']],
    );
    assert.equal((await search('Fiera'))[0].start_date, '2027-04-05 18:00:00');

    // Without an order, 04/05 could be either: refused; 13/05 can only be day-first.
    const unordered = await runImport({ events: file(lines.replaceAll('Sagra', 'Palio')) }, settings);
    assert.deepEqual(
      unordered.errors.map((error) => [error.line, error.column, error.message]),
      [[2, 2, '"04/05/2027" could be day/month or month/day: pass --date-order dmy or mdy']],
    );
    assert.equal((await search('Palio bis'))[0].start_date, '2027-05-13 09:00:00');
    assert.throws(() => importSettingsOf('ymd', undefined), /--date-order is dmy or mdy: not ymd/);
    assert.throws(() => importSettingsOf(undefined, 'Titolo=titel'), /--map names no field titel/);
    assert.throws(() => importSettingsOf(undefined, 'Titolo'), /--map takes "Header=field" pairs/);
  });

  it('reports each row with a problem by its line and column and imports the others', async () => {
    const events = file(
      [
        'Event Name,Event Start Date,Event Start Time,Event End Date,All Day Event,Event Time Zone,Event Website',
        'Good one,2027-06-01,10:00,,,,',
        ',2027-06-01,10:00,,,,',
        'No date,,10:00,,,,',
        'Bad time,2027-06-01,25:00,,,,',
        'Backwards,2027-06-05,10:00,2027-06-04,,,',
        'Bad flag,2027-06-01,10:00,,maybe,,',
        'Bad zone,2027-06-01,10:00,,,Mars/Olympus,',
        '"Multi',
        'line",2027-06-01,10:00,,,,not a url',
        'Good one,2027-06-01,10:00,,,,',
        'Good two,2027-06-02,10:00,,,,',
      ].join('\n'),
    );
    const report = await runImport({ events });
    assert.equal(report.events.created, 2);
    assert.deepEqual(
      report.errors.map((error) => [error.line, error.column, error.header]),
      [
        [3, 1, 'Event Name'],
        [4, 2, 'Event Start Date'],
        [5, 3, 'Event Start Time'],
        [6, 4, 'Event End Date'],
        [7, 5, 'All Day Event'],
        [8, 6, 'Event Time Zone'],
        [9, 7, 'Event Website'],
        [11, null, null],
      ],
    );
    assert.match(report.errors[7]!.message, /the same event as line 2/);
    assert.equal((await search('Good two')).length, 1);
    assert.equal((await search('Good one')).length, 1);
  });

  it('lists the first thousand errors of a file whose every row is wrong, and counts them all', async () => {
    const rows = Array.from({ length: 1005 }, (_, index) => `Row ${index},4/5/2027`);
    const report = await runImport({ events: file(['Name,Start Date', ...rows].join('\n')) });
    assert.equal(report.events.created, 0);
    assert.equal(report.error_count, 1005);
    assert.equal(report.errors.length, 1000);
    assert.equal(report.errors.at(-1)?.line, 1001);
    assert.equal(csvReportLines(report, false).at(-1), '… and 5 more errors');
  });

  it('updates the event of an id column when its name or start changes', async () => {
    const first = await runImport({ events: file(['ID,Name,Start Date', 'e-1,Regatta,2027-07-01'].join('\n')) });
    assert.equal(first.events.created, 1);
    const renamed = await runImport({
      events: file(['ID,Name,Start Date', 'e-1,Great Regatta,2027-07-02', 'e-1,Small Regatta,2027-07-03'].join('\n')),
    });
    assert.deepEqual(
      renamed.errors.map((error) => [error.line, error.message]),
      [[3, 'the same id as line 2: each event of a file has an id of its own']],
    );
    assert.deepEqual(renamed.events, { created: 0, updated: 1, unchanged: 0 });
    const found = await search('Regatta');
    assert.deepEqual(
      found.map((event) => [event.title, event.start_date]),
      [['Great Regatta', '2027-07-02 00:00:00']],
    );
  });

  it('creates again an event deleted for good, and leaves one in the trash there', async () => {
    const lines = ['Name,Start Date,Event Cost', 'Kept away,2027-07-10,5', 'Binned,2027-07-11,5'];
    assert.equal((await runImport({ events: file(lines.join('\n')) })).events.created, 2);
    const [kept] = await search('Kept away');
    const [binned] = await search('Binned');
    assert.equal((await server.request(`${EVENTS}/${kept.id}?force=true`, { method: 'DELETE', auth: admin })).status, 200);
    assert.equal((await server.request(`${EVENTS}/${binned.id}`, { method: 'DELETE', auth: admin })).status, 200);
    const again = await runImport({ events: file(lines.join('\n')) });
    assert.deepEqual(again.events, { created: 1, updated: 0, unchanged: 1 });
    const [back] = await search('Kept away');
    assert.notEqual(back.id, kept.id);
    const changed = await runImport({ events: file([lines[0], lines[1], 'Binned,2027-07-11,6'].join('\n')) });
    assert.deepEqual(changed.events, { created: 0, updated: 1, unchanged: 1 });
    // The trash hides it from the API: its row says it was updated there, and stayed.
    const row = await server.server.store.db
      .selectFrom('events')
      .select(['status', 'cost'])
      .where('id', '=', binned.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { status: 'trash', cost: '["6"]' });
  });

  it('writes nothing in a dry run, and reports what it would do', async () => {
    const before = await totals();
    const report = await runImport(
      { events: file(['Event Name,Event Start Date,Event Venue Name', 'Dry run,2027-08-01,Dry venue'].join('\n')) },
      { dryRun: true },
    );
    assert.deepEqual(report.events, { created: 1, updated: 0, unchanged: 0 });
    assert.deepEqual(await totals(), before);
    assert.equal((await search('Dry run')).length, 0);
  });

  it('refuses, with one line and nothing written, a file that is no CSV of its kind', async () => {
    const good = 'Event Name,Event Start Date\nShould not be written,2027-09-01';
    const cases: [string | Buffer, RegExp][] = [
      [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]), /a binary file, not CSV text/],
      [Buffer.from('Event Name,Event Start Date\nCaff\xe8,2027-09-01\n', 'latin1'), /not UTF-8 text .*save it as "CSV UTF-8"/],
      [Buffer.from(`\ufeff${good}`, 'utf16le'), /UTF-16 text/],
      ['Title of my list\nfoo,bar', /no known header in line 1: no "event name" column \(map one with --map "Header=title"\)/],
      ['', /an empty file, no header/],
      [`${good}\n"Unclosed,2027-09-02`, /malformed CSV/],
      [`${good}\n"x"y,2027-09-02`, /malformed CSV/],
      [`${good}\n${'x'.repeat(1_100_000)},2027-09-02`, /malformed CSV/],
    ];
    const before = await totals();
    for (const [content, message] of cases) {
      const events = file(content);
      await assert.rejects(runImport({ events }), (error: Error) => {
        assert.ok(error instanceof CsvImportError, String(error));
        assert.match(error.message, message);
        assert.match(error.message, /; nothing imported$/);
        assert.equal(error.message.split('\n').length, 1);
        return true;
      });
    }
    // A bad venues file stops the good events file too.
    const venues = file(Buffer.from([0, 1, 2]), 'venues.csv');
    await assert.rejects(runImport({ events: file(good), venues }), CsvImportError);
    await assert.rejects(runImport({ events: path.join(dir, 'absent.csv') }), /cannot read it: ENOENT/);
    assert.deepEqual(await totals(), before);
  });

  it('keeps hostile cells inert: markup is sanitized, formulas and odd characters are text', async () => {
    const events = file(
      [
        'Event Name,Event Description,Event Start Date,Event Website,Event Featured Image',
        '"=HYPERLINK(""http://evil.example"")","<script>alert(1)</script><p onclick=""x()"">Hi</p>",2027-10-01,,',
        '"Ünïcødé ☃ \u202e",,2027-10-02,javascript:alert(1),',
        '"Ünïcødé ☃ \u202e",,2027-10-03,,file:///etc/passwd',
        '"Ünïcødé ☃ \u202e",,2027-10-04,,',
      ].join('\n'),
    );
    const report = await runImport({ events });
    assert.equal(report.events.created, 2);
    assert.deepEqual(
      report.errors.map((error) => [error.line, error.header]),
      [
        [3, 'Event Website'],
        [4, 'Event Featured Image'],
      ],
    );
    const [formula] = await search('HYPERLINK');
    assert.equal(formula.title, '=HYPERLINK("http://evil.example")');
    assert.doesNotMatch(formula.description, /script|onclick/);
    assert.equal(formula.website, '');
    assert.equal((await search('Ünïcødé'))[0].title, 'Ünïcødé ☃ \u202e');
  });
});
