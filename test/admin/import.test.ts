/**
 * `/admin/import`: an editor uploads an iCalendar file or spreadsheets (or gives an API address) and reads the
 * report; a dry run writes nothing; bad files, missing or foreign form tokens and lesser roles write nothing. The
 * report's problems and the form's error are said in the editor's language, with their details.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { IMPORT_PROBLEMS } from '../../src/calendar/common/import-problems.ts';
import { IMPORT_PROBLEMS_IT } from '../../src/calendar/admin/admin.import.i18n.ts';
import { REFUSALS_IT } from '../../src/calendar/admin/admin.refusals.i18n.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { Browser } from './admin.helper.ts';
import { wxrEvent, wxrHead, wxrPost, wxrTail } from '../calendar/import-wxr.factories.ts';

const ICS = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Test//Import//EN',
  'BEGIN:VEVENT',
  'UID:admin-import-1@example.test',
  'DTSTAMP:20260101T000000Z',
  'DTSTART:20310405T180000Z',
  'DTEND:20310405T190000Z',
  'SUMMARY:Uploaded concert',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

const CSV = [
  'Event Name,Event Start Date,Event Start Time,Event Venue Name',
  'Spreadsheet fair,2031-05-01,10:00,Piazza Grande',
  'Broken row,31/31/2031,10:00,',
].join('\n');

describe('the editor’s import page', () => {
  let server: TestServer;
  let admin: Credentials;
  let editor: Browser;
  let csrf: string;

  before(async () => {
    server = await startTestServer({ SITE_TIMEZONE: 'UTC' });
    admin = await server.admin();
    const user = await server.createUser('editor', 'import-editor');
    editor = new Browser(server.url);
    csrf = await editor.logIn(user.username, user.password);
  });
  after(async () => server.close());

  /** A multipart form sent with `browser`'s cookies. */
  const upload = async (browser: Browser, fields: Record<string, string | { name: string; content: string | Uint8Array }>) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) {
      if (typeof value === 'string') form.append(name, value);
      else form.append(name, new Blob([value.content as BlobPart]), value.name);
    }
    const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(`${server.url}/admin/import`, { method: 'POST', body: form, headers: { cookie }, redirect: 'manual' });
    return { status: response.status, text: await response.text() };
  };
  const eventCount = async () =>
    Number(
      (
        await server.request('/calendar/events/v1/events?per_page=1&status=any&start_date=2000-01-01&end_date=2100-01-01', { auth: admin })
      ).headers.get('x-wp-total'),
    );
  /** The report table's cells of one kind: created, updated, unchanged. */
  const row = (html: string, kind: string) => {
    const match = new RegExp(`<th scope="row">${kind}</th>${'<td data-label="\\w+">(\\d+)</td>'.repeat(3)}`).exec(html);
    assert.ok(match, `a report row for ${kind}`);
    return match.slice(1).map(Number);
  };

  it('shows the form in English and Italian', async () => {
    const english = await editor.get('/admin/import?lang=en');
    assert.equal(english.status, 200);
    assert.match(english.text, /enctype="multipart\/form-data"/);
    assert.match(english.text, /Dry run: report what would happen/);
    assert.match(english.text, /aria-current="page">Import</);
    const italian = await editor.get('/admin/import?lang=it');
    assert.match(italian.text, /<h1>Importa<\/h1>/);
    assert.match(italian.text, /Prova: dice cosa succederebbe/);
    await editor.get('/admin/import?lang=en');
  });

  it('imports an iCalendar file: a dry run writes nothing, then the import reports what it wrote', async () => {
    const before = await eventCount();
    const dry = await upload(editor, { csrf, dry_run: '1', ics: { name: 'calendar.ics', content: ICS } });
    assert.equal(dry.status, 200, dry.text);
    assert.deepEqual(row(dry.text, 'Events'), [1, 0, 0]);
    assert.match(dry.text, /Dry run: nothing was written\./);
    assert.equal(await eventCount(), before);
    const done = await upload(editor, { csrf, ics: { name: 'calendar.ics', content: ICS } });
    assert.deepEqual(row(done.text, 'Events'), [1, 0, 0]);
    assert.match(done.text, /No problems\./);
    assert.equal(await eventCount(), before + 1);
  });

  it('imports spreadsheets and names the problem rows by line and column', async () => {
    const before = await eventCount();
    const answer = await upload(editor, { csrf, events: { name: 'events.csv', content: CSV } });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(row(answer.text, 'Events'), [1, 0, 0]);
    assert.match(answer.text, /<li>events\.csv, line 3, column 2 \(Event Start Date\): [^<]+<\/li>/);
    assert.equal(await eventCount(), before + 1);
  });

  it('imports a WordPress export: its venue and event, and nothing again the second time', async () => {
    const before = await eventCount();
    const exported = [
      wxrHead(),
      wxrPost({ id: 7, type: 'tribe_venue', title: 'Teatro Verdi', meta: [['_VenueCity', 'Pisa']] }),
      wxrEvent(
        { id: 8, title: 'Exported opera', slug: 'exported-opera' },
        {
          start: '2031-06-01 20:00:00',
          end: '2031-06-01 23:00:00',
          startUtc: '2031-06-01 18:00:00',
          endUtc: '2031-06-01 21:00:00',
          zone: 'Europe/Rome',
        },
        [['_EventVenueID', 7]],
      ),
      wxrTail,
    ].join('');
    const first = await upload(editor, { csrf, wxr: { name: 'export.xml', content: exported } });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(row(first.text, 'Events'), [1, 0, 0]);
    assert.deepEqual(row(first.text, 'Venues'), [1, 0, 0]);
    assert.equal(await eventCount(), before + 1);
    const again = await upload(editor, { csrf, wxr: { name: 'export.xml', content: exported } });
    assert.deepEqual(row(again.text, 'Events'), [0, 0, 1]);
    assert.equal(await eventCount(), before + 1);
  });

  it('re-renders the form with one clear error for what it cannot import, writing nothing', async () => {
    const before = await eventCount();
    const cases: [Record<string, string | { name: string; content: string | Uint8Array }>, RegExp][] = [
      [{}, /Choose a file or give an address to import\./],
      [{ ics: { name: 'a.ics', content: ICS }, events: { name: 'e.csv', content: CSV } }, /Import one source at a time/],
      [{ venues: { name: 'v.csv', content: 'Venue Name\nX' }, url: 'https://example.test/' }, /come with an events spreadsheet/],
      [{ ics: { name: 'photo.ics', content: new Uint8Array([0xff, 0xd8, 0xff, 0x00, 0x10]) } }, /photo\.ics: not a text file in UTF-8/],
      [{ ics: { name: 'notes.ics', content: 'just some words\n' } }, /notes\.ics: not an iCalendar file; nothing imported:/],
      [{ events: { name: 'events.csv', content: 'Colour,Size\nred,2' } }, /no known header in line 1/],
      [
        { wxr: { name: 'feed.xml', content: '<?xml version="1.0"?><rss version="2.0"><channel><title>A blog</title></channel></rss>' } },
        /feed\.xml: not a WordPress export of The Events Calendar; nothing imported:/,
      ],
      [
        { wxr: { name: 'bomb.xml', content: '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">]><rss>&lol;</rss>' } },
        /bomb\.xml: not a WordPress export/,
      ],
      [{ url: `${server.url}/calendar/events/v1/` }, /blocked address range \(loopback\)|http is accepted only/],
    ];
    for (const [fields, message] of cases) {
      const answer = await upload(editor, { csrf, ...fields });
      assert.equal(answer.status, 400, answer.text);
      assert.match(answer.text, /<p class="error" role="alert" id="import-error">/);
      assert.match(answer.text, message);
    }
    assert.equal(await eventCount(), before);
  });

  it('refuses a form without its token, or with another, and lesser roles', async () => {
    const before = await eventCount();
    assert.equal((await upload(editor, { ics: { name: 'calendar.ics', content: ICS } })).status, 403);
    assert.equal((await upload(editor, { csrf: 'forged', ics: { name: 'calendar.ics', content: ICS } })).status, 403);
    for (const role of ['author', 'contributor'] as const) {
      const user = await server.createUser(role);
      const browser = new Browser(server.url);
      const token = await browser.logIn(user.username, user.password);
      assert.equal((await browser.get('/admin/import')).status, 403, role);
      assert.doesNotMatch((await browser.get('/admin/')).text, /\/admin\/import/, `${role} is not shown the page`);
      assert.equal((await upload(browser, { csrf: token, ics: { name: 'calendar.ics', content: ICS } })).status, 403, role);
    }
    assert.equal(await eventCount(), before);
  });

  describe('in the editor’s language', () => {
    let italian: Browser;
    let italianCsrf: string;

    before(async () => {
      const user = await server.createUser('editor', 'import-italian');
      italian = new Browser(server.url);
      italianCsrf = await italian.logIn(user.username, user.password);
      assert.match((await italian.get('/admin/import?lang=it')).text, /<h1>Importa<\/h1>/);
    });

    /** The page's text of `html` (its entities read back). */
    const text = (html: string) =>
      html.replaceAll('&#39;', "'").replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
    /** The report's problems, in order. */
    const problems = (html: string) =>
      [...(/<ul class="problems">([\s\S]*?)<\/ul>/.exec(html)?.[1] ?? '').matchAll(/<li>([^<]*)<\/li>/g)].map((item) =>
        text(item[1] as string),
      );
    /** The form's error. */
    const formError = (html: string) => text(/id="import-error">([^<]*)</.exec(html)?.[1] ?? '');

    const BAD_ROWS = [
      'Event Name,Event Start Date,Event Start Time,Event End Date,All Day Event,Event Website',
      'Fair of the year,2031-05-01,10:00,,,',
      'Unreadable date,31/31/2031,10:00,,,',
      'Ends too soon,2031-05-02,10:00,2031-05-01,,',
      'Perhaps all day,2031-05-03,10:00,,forse,',
      'Odd website,2031-05-04,10:00,,,ftp://example.org',
    ].join('\n');

    it('says a spreadsheet’s bad rows in Italian to an Italian editor, and in English to an English one, with their details', async () => {
      const answer = await upload(italian, { csrf: italianCsrf, dry_run: '1', events: { name: 'events.csv', content: BAD_ROWS } });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(row(answer.text, 'Eventi'), [1, 0, 0]);
      assert.deepEqual(problems(answer.text), [
        'events.csv, riga 3, colonna 2 (Event Start Date): "31/31/2031" non è una data esistente',
        'events.csv, riga 4, colonna 4 (Event End Date): l’evento finisce (2031-05-01 10:00:00) prima di cominciare (2031-05-02 10:00:00)',
        'events.csv, riga 5, colonna 5 (All Day Event): "forse" non è né sì né no',
        `events.csv, riga 6, colonna 6 (Event Website): ${REFUSALS_IT['rest_invalid_param:website']}`,
      ]);
      assert.doesNotMatch(answer.text, /is no date|before it starts|neither yes nor no|Invalid parameter/);

      const english = await upload(editor, { csrf, dry_run: '1', events: { name: 'events.csv', content: BAD_ROWS } });
      const said = problems(english.text);
      assert.deepEqual(said.slice(0, 3), [
        'events.csv, line 3, column 2 (Event Start Date): "31/31/2031" is no date of the calendar',
        'events.csv, line 4, column 4 (Event End Date): the event ends (2031-05-01 10:00:00) before it starts (2031-05-02 10:00:00)',
        'events.csv, line 5, column 5 (All Day Event): "forse" is neither yes nor no',
      ]);
      assert.match(said[3] ?? '', /^events\.csv, line 6, column 6 \(Event Website\): Invalid parameter\(s\): website/);
      assert.equal(said.length, 4);
    });

    it('says an iCalendar file’s bad events in Italian to an Italian editor, and in English to an English one, with their details', async () => {
      const calendar = [
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        'PRODID:-//Test//Import//EN',
        'BEGIN:VEVENT',
        'UID:i18n-late@example.test',
        'DTSTAMP:20260101T000000Z',
        'DTSTART:20310405T180000Z',
        'DTEND:20310405T170000Z',
        'SUMMARY:Ends before it starts',
        'END:VEVENT',
        'BEGIN:VEVENT',
        'UID:i18n-minutely@example.test',
        'DTSTAMP:20260101T000000Z',
        'DTSTART:20310406T180000Z',
        'RRULE:FREQ=MINUTELY',
        'SUMMARY:Every minute',
        'END:VEVENT',
        'BEGIN:VEVENT',
        'DTSTAMP:20260101T000000Z',
        'DTSTART:20310407T180000Z',
        'SUMMARY:No UID',
        'END:VEVENT',
        'END:VCALENDAR',
        '',
      ].join('\r\n');
      const answer = await upload(italian, { csrf: italianCsrf, dry_run: '1', ics: { name: 'calendar.ics', content: calendar } });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(problems(answer.text), [
        'riga 8 (i18n-late@example.test): L’evento finisce prima di cominciare.',
        `riga 15 (i18n-minutely@example.test): ${REFUSALS_IT['rest_invalid_param:recurrence']}`,
        'riga 18: Un VEVENT senza UID non si può importare (non si potrebbe aggiornarlo in seguito).',
      ]);

      const english = await upload(editor, { csrf, dry_run: '1', ics: { name: 'calendar.ics', content: calendar } });
      const said = problems(english.text);
      assert.equal(said[0], 'line 8 (i18n-late@example.test): The event ends before it starts.');
      assert.match(said[1] ?? '', /^line 15 \(i18n-minutely@example\.test\): Invalid parameter\(s\): recurrence/);
      assert.equal(said[2], 'line 18: A VEVENT without UID cannot be imported (it could not be updated later).');
      assert.equal(said.length, 3);
    });

    it('says why a file is not of its kind in Italian to an Italian editor, and in English to an English one, writing nothing', async () => {
      const before = await eventCount();
      const feed = '<?xml version="1.0"?><rss version="2.0"><channel><title>A blog</title></channel></rss>';
      const cases: [Record<string, string | { name: string; content: string }>, string, string][] = [
        [
          { ics: { name: 'notes.ics', content: 'just some words\n' } },
          'notes.ics: non è un file iCalendar; nulla importato: riga 1: "just some words" non è una riga di contenuto (NOME[;PARAMETRO=…]:valore).',
          'notes.ics: not an iCalendar file; nothing imported: line 1: "just some words" is no content line (NAME[;PARAM=…]:value).',
        ],
        [
          { events: { name: 'events.csv', content: 'Colour,Size\nred,2' } },
          'events.csv: nessuna intestazione nota nella riga 1: manca una colonna "event name" (associane una con --map "Intestazione=title"); nulla importato',
          'events.csv: no known header in line 1: no "event name" column (map one with --map "Header=title"); nothing imported',
        ],
        [
          { wxr: { name: 'feed.xml', content: feed } },
          'feed.xml: non è un export WordPress di The Events Calendar; nulla importato: riga 1: un feed RSS, non un export di WordPress (manca wp:wxr_version)',
          'feed.xml: not a WordPress export of The Events Calendar; nothing imported: line 1: an RSS feed, not a WordPress export (no wp:wxr_version)',
        ],
        [{ url: 'ftp://example.test/' }, 'ftp://example.test/: non è un URL http(s)', 'ftp://example.test/: not an http(s) URL'],
      ];
      for (const [fields, inItalian, inEnglish] of cases) {
        const answer = await upload(italian, { csrf: italianCsrf, ...fields });
        assert.equal(answer.status, 400, answer.text);
        assert.equal(formError(answer.text), inItalian);
        const english = await upload(editor, { csrf, ...fields });
        assert.equal(english.status, 400, english.text);
        assert.equal(formError(english.text), inEnglish);
      }
      assert.equal(await eventCount(), before);
    });
  });
});

describe('the Italian of what the importers say', () => {
  /** The `{name}`s a sentence names, sorted. */
  const details = (sentence: string) => [...sentence.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

  it('has a sentence for every code, naming the same details as the English one', () => {
    assert.deepEqual(Object.keys(IMPORT_PROBLEMS_IT).sort(), Object.keys(IMPORT_PROBLEMS).sort());
    for (const [code, english] of Object.entries(IMPORT_PROBLEMS)) {
      const italian = (IMPORT_PROBLEMS_IT as Record<string, string>)[code] ?? '';
      assert.notEqual(italian.trim(), '', code);
      assert.deepEqual(details(italian), details(english), code);
    }
  });

  it('knows every code the importers’ sources name', () => {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
    const folders = ['src/calendar/ical', 'src/calendar/import'].map((folder) => path.join(root, folder));
    const named = new Set(
      folders.flatMap((folder) =>
        readdirSync(folder)
          .filter((file) => file.endsWith('.ts'))
          .flatMap((file) =>
            [...readFileSync(path.join(folder, file), 'utf8').matchAll(/'((?:ical|csv|wxr|tec)_[a-z0-9_]+)'/g)].map(
              (match) => match[1] as string,
            ),
          ),
      ),
    );
    assert.ok(named.size > 0, 'the sources name codes');
    for (const code of named) assert.ok(Object.hasOwn(IMPORT_PROBLEMS_IT, code), `${code} has no Italian sentence`);
  });
});
