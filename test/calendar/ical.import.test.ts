/**
 * iCalendar import through the HTTP API (issue 22): files as Google,
 * Outlook and Apple write them, read back through the JSON API; idempotence
 * by UID; malformed and hostile files.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS } from './events.factories.ts';
import { APPLE_UID, appleCalendar, googleCalendar, ics, LONG_TITLE, manyEvents, outlookCalendar } from './ical.import.fixtures.ts';

const IMPORT = `${EVENTS}.ics`;
const MAX_BYTES = 1_500_000;

type Report = { created: number; updated: number; skipped: number; errors: { line: number; uid: string | null; message: string }[] };

describe('iCalendar import (POST /events.ics)', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer({ SITE_TIMEZONE: 'UTC', RECURRENCE_MAX_OCCURRENCES: '300', ICAL_IMPORT_MAX_BYTES: String(MAX_BYTES) });
    admin = await server.admin();
  });
  after(async () => server.close());

  const post = (body: string, options: { auth?: Credentials | null; query?: string; type?: string } = {}) =>
    server.request(`${IMPORT}${options.query ?? ''}`, {
      method: 'POST',
      body,
      ...(options.auth === null ? {} : { auth: options.auth ?? admin }),
      headers: { 'content-type': options.type ?? 'text/calendar; charset=utf-8' },
    });
  const importFile = async (body: string, query = ''): Promise<Report> => {
    const response = await post(body, { query });
    assert.equal(response.status, 200, response.text);
    return response.body as Report;
  };
  /** Every event and occurrence the admin can see, by title. */
  const allEvents = async () => {
    const response = await server.request(`${EVENTS}?per_page=50&start_date=2000-01-01&end_date=2100-01-01&status=any`, { auth: admin });
    assert.equal(response.status, 200, response.text);
    return { total: Number(response.headers.get('x-wp-total')), events: response.body.events as any[] };
  };
  const search = async (words: string) => {
    const response = await server.request(
      `${EVENTS}?per_page=50&start_date=2000-01-01&end_date=2100-01-01&status=any&search=${encodeURIComponent(words)}`,
      { auth: admin },
    );
    assert.equal(response.status, 200, response.text);
    return response.body.events as any[];
  };
  const getEvent = async (id: number) => {
    const response = await server.request(`${EVENTS}/${id}`, { auth: admin });
    assert.equal(response.status, 200, response.text);
    return response.body;
  };
  const instancesOf = async (id: number) => {
    const response = await server.request(`${EVENTS}/${id}/instances?per_page=50`, { auth: admin });
    assert.equal(response.status, 200, response.text);
    return response.body.events as any[];
  };

  it('imports a Google Calendar export: a weekly series with an EXDATE and a moved occurrence, an all-day event, folded multibyte text', async () => {
    const report = await importFile(googleCalendar());
    assert.deepEqual(report, { created: 2, updated: 1, skipped: 0, errors: [] });

    const [occurrence] = await search('Yoga');
    const seriesId = occurrence.recurring_event_id as number;
    const series = await getEvent(seriesId);
    assert.equal(series.title, 'Yoga');
    assert.equal(series.timezone, 'Europe/Rome');
    assert.equal(series.start_date, '2027-01-04 18:00:00');
    assert.equal(series.utc_start_date, '2027-01-04 17:00:00');
    assert.equal(series.end_date, '2027-01-04 19:30:00');
    assert.deepEqual(series.recurrence, [
      'RRULE:FREQ=WEEKLY;WKST=MO;UNTIL=20270201T170000Z;BYDAY=MO',
      'EXDATE;TZID=Europe/Rome:20270118T180000',
    ]);
    // Plain text: escaped, never markup; paragraphs and line breaks kept.
    assert.match(series.description, /<p>Bring a mat\.<br \/>\s*Beginners welcome\.<\/p>/);
    assert.match(series.description, /&lt;script&gt;alert\(1\)&lt;\/script&gt; here &amp; &lt;b&gt;there&lt;\/b&gt;/);
    assert.doesNotMatch(series.description, /<script|<b>/);
    assert.equal(series.venue.venue, 'Palestra Comunale, Via Roma 1, Firenze');
    assert.equal(series.organizer[0].organizer, 'Palestra Comunale');
    assert.equal(series.organizer[0].email, 'info@palestra.example.org');

    const instances = await instancesOf(seriesId);
    assert.deepEqual(
      instances.map((item) => [item.start_date, item.utc_start_date, item.title]),
      [
        ['2027-01-04 18:00:00', '2027-01-04 17:00:00', 'Yoga'],
        ['2027-01-11 19:00:00', '2027-01-11 18:00:00', 'Yoga (an hour later)'],
        ['2027-01-25 18:00:00', '2027-01-25 17:00:00', 'Yoga'],
        ['2027-02-01 18:00:00', '2027-02-01 17:00:00', 'Yoga'],
      ],
    );
    assert.equal(instances[1].original_start_date, '2027-01-11 18:00:00');

    const [allDay] = await search('primavera');
    assert.equal(allDay.title, LONG_TITLE);
    assert.equal(allDay.all_day, true);
    assert.equal(allDay.timezone, 'Europe/Rome');
    assert.equal(allDay.start_date, '2027-03-21 00:00:00');
    assert.equal(allDay.end_date, '2027-03-22 23:59:59');
    assert.deepEqual(allDay.categories.map((term: { name: string }) => term.name).sort(), ['Famiglie', 'Festa']);
  });

  it('imports the same file again without changing anything, and takes a newer version (SEQUENCE) of an event', async () => {
    const before = await allEvents();
    const again = await importFile(googleCalendar());
    assert.deepEqual(again, { created: 0, updated: 0, skipped: 3, errors: [] });
    const unchanged = await allEvents();
    assert.equal(unchanged.total, before.total);
    assert.deepEqual(
      unchanged.events.map((event) => [event.id, event.title, event.modified_utc]),
      before.events.map((event) => [event.id, event.title, event.modified_utc]),
    );

    const edited = await importFile(googleCalendar({ seriesSequence: 1, seriesTitle: 'Yoga flow' }));
    assert.deepEqual(edited, { created: 0, updated: 1, skipped: 2, errors: [] });
    const after = await allEvents();
    assert.equal(after.total, before.total);
    assert.deepEqual(
      after.events.map((event) => event.id),
      before.events.map((event) => event.id),
    );
    const [occurrence] = await search('Yoga');
    const titles = (await instancesOf(occurrence.recurring_event_id)).map((item) => item.title);
    // The moved occurrence keeps its own title: it is an exception of the series.
    assert.deepEqual(titles, ['Yoga flow', 'Yoga (an hour later)', 'Yoga flow', 'Yoga flow']);
  });

  it('takes a cancelled occurrence out of its series once, and finds nothing to change when the file comes again', async () => {
    const file = ics(
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//Tests//EN',
      'BEGIN:VEVENT',
      'UID:choir-cancelled@tests.example',
      'DTSTAMP:20261120T101010Z',
      'SUMMARY:Choir with a week off',
      'DTSTART:20270104T180000Z',
      'DTEND:20270104T190000Z',
      'RRULE:FREQ=WEEKLY;COUNT=4',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:choir-cancelled@tests.example',
      'DTSTAMP:20261120T101010Z',
      'RECURRENCE-ID:20270111T180000Z',
      'SUMMARY:Choir with a week off',
      'DTSTART:20270111T180000Z',
      'DTEND:20270111T190000Z',
      'STATUS:CANCELLED',
      'END:VEVENT',
      'END:VCALENDAR',
    );
    assert.deepEqual(await importFile(file), { created: 1, updated: 1, skipped: 0, errors: [] });
    const [first] = await search('Choir with a week off');
    const dates = async () => (await instancesOf(first.recurring_event_id)).map((item) => [item.id, item.start_date, item.modified_utc]);
    const before = await dates();
    assert.deepEqual(
      before.map(([, start]) => start),
      ['2027-01-04 18:00:00', '2027-01-18 18:00:00', '2027-01-25 18:00:00'],
    );
    for (const _ of [1, 2]) assert.deepEqual(await importFile(file), { created: 0, updated: 0, skipped: 2, errors: [] });
    assert.deepEqual(await dates(), before);
  });

  it('reads an Outlook export: a Windows TZID through its VTIMEZONE, the organizer, a cancelled meeting as a draft', async () => {
    const report = await importFile(outlookCalendar());
    assert.deepEqual(report, { created: 2, updated: 0, skipped: 0, errors: [] });
    const [meeting] = await search('Quarterly');
    assert.equal(meeting.timezone, 'Europe/Berlin');
    assert.equal(meeting.start_date, '2027-06-15 14:00:00');
    assert.equal(meeting.utc_start_date, '2027-06-15 12:00:00');
    assert.equal(meeting.utc_end_date, '2027-06-15 13:30:00');
    assert.equal(meeting.organizer[0].organizer, 'Anna Rossi');
    assert.equal(meeting.organizer[0].email, 'anna.rossi@example.org');
    assert.equal(meeting.venue.venue, 'Sala Riunioni');
    const [cancelled] = await search('Budget');
    assert.equal(cancelled.status, 'draft');
    // In winter the same zone is an hour from UTC.
    assert.equal(cancelled.utc_start_date, '2027-01-05 08:00:00');
    // Anonymous callers do not see the draft.
    const anonymous = await server.request(`${EVENTS}?start_date=2027-01-01&end_date=2027-01-31&search=Budget`);
    assert.equal(anonymous.body.events.length, 0);
  });

  it('gives an event in a VTIMEZONE that no IANA zone matches the fixed offset of its start', async () => {
    const file = ics(
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'BEGIN:VTIMEZONE',
      'TZID:Custom Odd Zone',
      'BEGIN:STANDARD',
      'DTSTART:19700101T000000',
      'TZOFFSETFROM:+0517',
      'TZOFFSETTO:+0517',
      'END:STANDARD',
      'END:VTIMEZONE',
      'BEGIN:VEVENT',
      'UID:odd-zone@tests.example',
      'DTSTART;TZID=Custom Odd Zone:20270301T100000',
      'DURATION:PT1H30M',
      'SUMMARY:Odd zone',
      'END:VEVENT',
      'END:VCALENDAR',
    );
    assert.deepEqual(await importFile(file), { created: 1, updated: 0, skipped: 0, errors: [] });
    const [event] = await search('Odd zone');
    assert.equal(event.timezone, 'UTC+05:17');
    assert.equal(event.start_date, '2027-03-01 10:00:00');
    assert.equal(event.utc_start_date, '2027-03-01 04:43:00');
    assert.equal(event.utc_end_date, '2027-03-01 06:13:00');
  });

  it('reads an Apple export: venue name and address from LOCATION, GEO, URL, categories; finds the venue again by name and coordinates', async () => {
    const report = await importFile(appleCalendar());
    assert.deepEqual(report, { created: 1, updated: 0, skipped: 0, errors: [] });
    const [brunch] = await search('Brunch');
    assert.equal(brunch.timezone, 'America/New_York');
    assert.equal(brunch.start_date, '2027-03-20 10:30:00');
    assert.equal(brunch.utc_start_date, '2027-03-20 14:30:00');
    assert.equal(brunch.website, 'https://example.com/brunch');
    assert.equal(brunch.venue.venue, 'Café Lalo');
    assert.equal(brunch.venue.address, '201 W 83rd St, New York, NY 10024');
    assert.equal(brunch.venue.geo_lat, 40.786);
    assert.equal(brunch.venue.geo_lng, -73.977);
    assert.deepEqual(brunch.categories.map((term: { name: string }) => term.name).sort(), ['Food', 'Friends']);

    const other = appleCalendar().replace(APPLE_UID, 'another-brunch@tests.example').replace('SUMMARY:Brunch', 'SUMMARY:Second brunch');
    assert.deepEqual(await importFile(other), { created: 1, updated: 0, skipped: 0, errors: [] });
    const [second] = await search('Second brunch');
    assert.equal(second.venue.id, brunch.venue.id);
    const categories = await server.request('/calendar/events/v1/categories?per_page=50&search=Food');
    assert.equal(categories.body.categories.length, 1);
  });

  it('takes a version with the same SEQUENCE only when its LAST-MODIFIED is after the last change here', async () => {
    const file = (summary: string, lastModified?: string) =>
      manyEvents(1, () => (lastModified === undefined ? [] : [`LAST-MODIFIED:${lastModified}`]))
        .replace('many-0', 'modified-0')
        .replace('SUMMARY:Event 0', `SUMMARY:${summary}`);
    assert.deepEqual(await importFile(file('Lecture', '20261101T000000Z')), { created: 1, updated: 0, skipped: 0, errors: [] });
    assert.deepEqual(await importFile(file('Lecture, moved', '20261101T000000Z')), { created: 0, updated: 0, skipped: 1, errors: [] });
    assert.deepEqual(await importFile(file('Lecture, moved')), { created: 0, updated: 0, skipped: 1, errors: [] });
    assert.equal((await search('Lecture'))[0].title, 'Lecture');
    assert.deepEqual(await importFile(file('Lecture, moved', '20991231T000000Z')), { created: 0, updated: 1, skipped: 0, errors: [] });
    const [moved] = await search('Lecture');
    assert.equal(moved.title, 'Lecture, moved');
    // The update is an edit: SEQUENCE rose past the file's, so the same file is not newer any more.
    const feed = await server.request(`${EVENTS}/${moved.id}.ics`);
    assert.match(feed.text, /\r\nSEQUENCE:1\r\n/);
    assert.deepEqual(await importFile(file('Lecture, moved', '20991231T000000Z')), { created: 0, updated: 0, skipped: 1, errors: [] });
  });

  it('is listed in the namespace index and the OpenAPI document, taking text/calendar', async () => {
    const index = await server.request('/calendar/events/v1');
    // The feed is read at the same path.
    assert.deepEqual([...index.body.routes['/calendar/events/v1/events.ics'].methods].sort(), ['GET', 'POST']);
    const doc = await server.request('/calendar/events/v1/doc');
    const operation = doc.body.paths['/events.ics'].post;
    assert.equal(operation.operationId, 'importEventsIcal');
    assert.deepEqual(Object.keys(operation.requestBody.content), ['text/calendar']);
    assert.ok(operation.responses['200'] && operation.responses['413'] && operation.responses['415']);
  });

  it('updates an event born here when the file names it by its own UID', async () => {
    const created = await server.request(EVENTS, {
      method: 'POST',
      auth: admin,
      body: { title: 'Local', start_date: '2027-05-05 10:00', end_date: '2027-05-05 11:00' },
    });
    const id = created.body.id as number;
    const host = new URL(server.config.baseUrl).host;
    const file = ics(
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'BEGIN:VEVENT',
      `UID:event-${id}@${host}`,
      'SEQUENCE:5',
      'DTSTART:20270505T120000Z',
      'DTEND:20270505T130000Z',
      'SUMMARY:Local, edited elsewhere',
      'END:VEVENT',
      'END:VCALENDAR',
    );
    assert.deepEqual(await importFile(file), { created: 0, updated: 1, skipped: 0, errors: [] });
    const event = await getEvent(id);
    assert.equal(event.title, 'Local, edited elsewhere');
    assert.equal(event.utc_start_date, '2027-05-05 12:00:00');
  });

  it('reports an X-ALMANAC-TIMEZONE that is no zone with its line, imports the other events, and writes nothing of that one', async () => {
    const event = (uid: string, zone: string) => [
      'BEGIN:VEVENT',
      `UID:${uid}@tests.example`,
      'DTSTART;VALUE=DATE:20270606',
      `SUMMARY:Zoned ${uid}`,
      `X-ALMANAC-TIMEZONE:${zone}`,
      'END:VEVENT',
    ];
    const file = ics(
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      ...event('nowhere', 'Mars/Olympus'),
      ...event('tokyo', 'Asia/Tokyo'),
      'END:VCALENDAR',
    );
    const message = 'X-ALMANAC-TIMEZONE "Mars/Olympus" is no time zone.';
    assert.deepEqual(await importFile(file), {
      created: 1,
      updated: 0,
      skipped: 0,
      errors: [{ line: 7, uid: 'nowhere@tests.example', message }],
    });
    assert.deepEqual(await search('Zoned nowhere'), []);
    const [tokyo] = await search('Zoned tokyo');
    assert.deepEqual([tokyo?.all_day, tokyo?.timezone, tokyo?.utc_start_date], [true, 'Asia/Tokyo', '2027-06-05 15:00:00']);
  });

  it('answers a malformed file with a 400 naming the line, and writes nothing', async () => {
    const before = await allEvents();
    const good = manyEvents(3);
    const cases: [string, number, RegExp][] = [
      [
        good.replace('END:VEVENT\r\nBEGIN:VEVENT\r\nUID:many-2', 'BEGIN:VEVENT\r\nUID:many-2'),
        15,
        /BEGIN:VEVENT inside VEVENT \(line 10\)/,
      ],
      [good.replace('DTSTART:20270102T090000Z', 'DTSTART:20271302T090000Z'), 12, /DTSTART "20271302T090000Z" is no DATE-TIME/],
      [good.replace('DTSTART:20270102T090000Z', 'DTSTART;TZID=Mars/Olympus:20270102T090000'), 12, /TZID "Mars\/Olympus"/],
      [good.replace('SUMMARY:Event 2', 'SUMMARY Event 2'), 20, /no content line/],
      [good.replace('END:VCALENDAR\r\n', ''), 21, /BEGIN:VCALENDAR \(line 1\) is never closed/],
      ['hello world\r\n', 1, /no content line/],
      [good.replace('DTSTART:20270102T090000Z', 'DTSTART:20270102T090060Z'), 12, /is no DATE-TIME/],
      [
        good.replace('SUMMARY:Event 1', 'SUMMARY:Event 1\r\nRDATE;VALUE=PERIOD:2027AB01T090000Z/PT1H'),
        15,
        /RDATE "2027AB01T090000Z\/PT1H"/,
      ],
    ];
    for (const [file, line, message] of cases) {
      const response = await post(file);
      assert.equal(response.status, 400, response.text);
      assert.equal(response.body.code, 'rest_invalid_param');
      assert.equal(response.body.data.line, line, response.text);
      assert.match(response.body.message, new RegExp(`line ${line}: `));
      assert.match(response.body.message, message);
    }
    assert.equal((await allEvents()).total, before.total);
  });

  it('writes nothing on dry_run=true and reports what would happen', async () => {
    const before = await allEvents();
    const file = manyEvents(4).replace(/many-/g, 'dry-');
    const report = await importFile(file, '?dry_run=true');
    assert.deepEqual(report, { created: 4, updated: 0, skipped: 0, errors: [] });
    assert.equal((await allEvents()).total, before.total);
    assert.deepEqual(await importFile(file), { created: 4, updated: 0, skipped: 0, errors: [] });
    assert.equal((await allEvents()).total, before.total + 4);
  });

  it('reports the events the service refuses, with their lines, and imports the others', async () => {
    const file = manyEvents(4, (index) => (index === 1 ? ['RRULE:FREQ=DAILY;COUNT=100000'] : index === 2 ? ['RRULE:FREQ=SECONDLY'] : []))
      .replace(/many-/g, 'bad-')
      .replace('DTEND:20270104T100000Z', 'DTEND:20260104T100000Z');
    const report = await importFile(file);
    assert.equal(report.created, 1, JSON.stringify(report));
    assert.deepEqual(
      report.errors.map((error) => [error.line, error.uid]),
      [
        [15, 'bad-1@tests.example'],
        [22, 'bad-2@tests.example'],
        [27, 'bad-3@tests.example'],
      ],
    );
    assert.match(report.errors[0]?.message ?? '', /recurrence/);
    assert.match(report.errors[0]?.message ?? '', /300/);
    assert.match(report.errors[2]?.message ?? '', /ends before it starts/);
  });

  it('reads a file of 10,000 VEVENTs sharing one UID as one event, the rest skipped', async () => {
    const file = manyEvents(10_000).replace(/UID:many-\d+@/g, 'UID:same@');
    assert.ok(Buffer.byteLength(file) < MAX_BYTES);
    const before = await allEvents();
    assert.deepEqual(await importFile(file), { created: 1, updated: 0, skipped: 9_999, errors: [] });
    assert.equal((await allEvents()).total, before.total + 1);
  });

  it('refuses what the API refuses: more recurrence lines than it takes, control characters (a malformed file)', async () => {
    // One EXDATE property per excluded day, as some exporters write them: 101 recurrence lines, one more than the API takes.
    const day = (index: number) => new Date(Date.UTC(2027, 0, 2 + index)).toISOString().slice(0, 10).replace(/-/g, '');
    const exdates = Array.from({ length: 101 }, (_, index) => `EXDATE:${day(index)}T090000Z`);
    const many = manyEvents(1, () => ['RRULE:FREQ=DAILY;COUNT=200', ...exdates]).replace('many-0', 'lines-0');
    const report = await importFile(many);
    assert.equal(report.created, 0);
    assert.equal(report.errors.length, 1);
    assert.equal(report.errors[0]?.line, 9);
    assert.match(report.errors[0]?.message ?? '', /recurrence must not have more than 100 items/);

    const nul = manyEvents(2).replace('SUMMARY:Event 1', 'SUMMARY:Event\u0000 1');
    const response = await post(nul);
    assert.equal(response.status, 400, response.text);
    assert.match(response.body.message, /^Malformed iCalendar file, line 14: a control character/);
  });

  it('never duplicates an event when two imports of the same file run at once', async () => {
    const file = manyEvents(20)
      .replace(/many-/g, 'race-')
      .replace(/SUMMARY:Event /g, 'SUMMARY:Race ');
    const before = await allEvents();
    const reports = await Promise.all([importFile(file), importFile(file)]);
    assert.equal(reports[0].created + reports[1].created, 20, JSON.stringify(reports));
    for (const report of reports) assert.equal(report.created + report.skipped + report.errors.length, 20);
    assert.equal((await allEvents()).total, before.total + 20);
  });

  it('keeps markup in texts as text', async () => {
    const file = ics(
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'BEGIN:VEVENT',
      'UID:markup@tests.example',
      'DTSTART:20270707T100000Z',
      'SUMMARY:<img src=x onerror=alert(1)>Party',
      'DESCRIPTION:<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "boom">]><a href="javascript:alert(1)">&e;</a>',
      'LOCATION:<b>Hall</b>',
      'END:VEVENT',
      'END:VCALENDAR',
    );
    assert.deepEqual(await importFile(file), { created: 1, updated: 0, skipped: 0, errors: [] });
    const [party] = await search('Party');
    assert.doesNotMatch(party.title, /<img|onerror=alert/);
    assert.doesNotMatch(party.description, /<a |<!DOCTYPE|<\?xml/);
    assert.match(party.description, /&lt;a href="javascript:alert\(1\)"&gt;&amp;e;&lt;\/a&gt;/);
    assert.doesNotMatch(party.venue.venue, /<b>/);
  });

  it('refuses anonymous callers (401), contributors (403), other content types (415) and bodies above ICAL_IMPORT_MAX_BYTES (413)', async () => {
    const contributor = await server.createUser('contributor');
    const author = await server.createUser('author');
    const editor = await server.createUser('editor');
    const file = manyEvents(1).replace('many-', 'roles-');
    assert.equal((await post(file, { auth: null })).status, 401);
    assert.equal((await post(file, { auth: contributor })).status, 403);
    assert.equal((await post(file, { auth: author })).status, 403);
    assert.equal((await post(file, { type: 'application/json' })).status, 415);
    assert.equal((await post(file, { type: 'text/xml' })).status, 415);
    const big = manyEvents(Math.ceil(MAX_BYTES / 100));
    assert.ok(Buffer.byteLength(big) > MAX_BYTES);
    const tooLarge = await post(big);
    assert.equal(tooLarge.status, 413, tooLarge.text);
    assert.equal(tooLarge.body.code, 'rest_payload_too_large');
    const accepted = await post(file, { auth: editor });
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.body.created, 1);
  });
});
