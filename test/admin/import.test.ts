/**
 * `/admin/import`: an editor uploads an iCalendar file or spreadsheets (or gives an API address) and reads the
 * report; a dry run writes nothing; bad files, missing or foreign form tokens and lesser roles write nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
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
});
