/**
 * iCalendar import under hostile files (issue 36): time zones that would
 * expand without end, dates and durations past the calendar's years, deep
 * nesting, parameters by the hundred thousand, lone CR line ends. Each is
 * a clear 400 naming the line, or a per-event error naming the property;
 * never a 500, never an internal message, never a stalled server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { ICAL_LIMITS } from '../../src/calendar/ical/ical.import.parse.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS } from './events.factories.ts';
import { ics, manyEvents, outlookCalendar } from './ical.import.fixtures.ts';
import { hostileCalendar } from './ical.import.arbitraries.ts';

const IMPORT = `${EVENTS}.ics`;

type Report = { created: number; updated: number; skipped: number; errors: { line: number; uid: string | null; message: string }[] };

/** A calendar with one VTIMEZONE of its own (TZID `Own Zone`) and one event in it; `observance` lines go in its STANDARD. */
function zoned(observance: string[], start = '20270615T140000'): string {
  return ics(
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'BEGIN:VTIMEZONE',
    'TZID:Own Zone',
    'BEGIN:STANDARD',
    ...observance,
    'TZOFFSETFROM:+0100',
    'TZOFFSETTO:+0100',
    'END:STANDARD',
    'END:VTIMEZONE',
    'BEGIN:VEVENT',
    'UID:zoned@tests.example',
    `DTSTART;TZID=Own Zone:${start}`,
    'SUMMARY:Zoned',
    'END:VEVENT',
    'END:VCALENDAR',
  );
}

/** One event with `lines` after its UID. */
function oneEvent(...lines: string[]): string {
  return ics(
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'BEGIN:VEVENT',
    'UID:one@tests.example',
    ...lines,
    'SUMMARY:One',
    'END:VEVENT',
    'END:VCALENDAR',
  );
}

describe('iCalendar import of hostile files (POST /events.ics)', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer({ SITE_TIMEZONE: 'UTC' });
    admin = await server.admin();
  });
  after(async () => server.close());

  const post = (body: string, query = '?dry_run=true') =>
    server.request(`${IMPORT}${query}`, { method: 'POST', body, auth: admin, headers: { 'content-type': 'text/calendar' } });
  const report = async (body: string, query = '?dry_run=true'): Promise<Report> => {
    const response = await post(body, query);
    assert.equal(response.status, 200, response.text);
    return response.body as Report;
  };
  const malformed = async (body: string, line: number, message: RegExp) => {
    const response = await post(body);
    assert.equal(response.status, 400, response.text);
    assert.equal(response.body.code, 'rest_invalid_param');
    assert.equal(response.body.data.line, line, response.text);
    assert.match(response.body.message, new RegExp(`^Malformed iCalendar file, line ${line}: `));
    assert.match(response.body.message, message);
  };

  describe('time zones of the file', () => {
    it('refuses an observance that recurs hourly from 1601 at once, naming the STANDARD, and keeps answering', async () => {
      const file = zoned(['DTSTART:16010101T000000', 'RRULE:FREQ=HOURLY']);
      assert.ok(Buffer.byteLength(file) < 420);
      const [answer, health] = await Promise.all([
        malformed(file, 5, /STANDARD recurs FREQ=HOURLY: a time zone's observances recur yearly/),
        server.request('/healthz'),
      ]);
      assert.equal(answer, undefined);
      assert.equal(health.status, 200);
    });

    it('refuses every sub-daily observance rule, naming the observance: SECONDLY, MINUTELY, HOURLY from 1990, BYHOUR', async () => {
      for (const [rule, what] of [
        ['FREQ=SECONDLY', /STANDARD recurs FREQ=SECONDLY/],
        ['FREQ=MINUTELY', /STANDARD recurs FREQ=MINUTELY/],
        ['FREQ=HOURLY', /STANDARD recurs FREQ=HOURLY/],
        ['FREQ=YEARLY;BYMONTH=10;BYHOUR=1,2,3', /STANDARD recurs within a day \(BYHOUR\)/],
      ] as const) {
        await malformed(zoned(['DTSTART:19900101T000000', `RRULE:${rule}`]), 5, what);
      }
    });

    it('refuses daily, weekly and monthly observances (from 1601), and a yearly one changing the offset more often than the limit', async () => {
      for (const freq of ['DAILY', 'WEEKLY', 'MONTHLY']) {
        await malformed(zoned(['DTSTART:16010101T000000', `RRULE:FREQ=${freq}`]), 5, new RegExp(`recurs FREQ=${freq}: .* recur yearly`));
      }
      const limit = ICAL_LIMITS.zoneChangesPerYear;
      const everyFortnight = 'FREQ=YEARLY;BYMONTH=1,2,3,4,5,6,7,8,9,10,11,12;BYMONTHDAY=1,15';
      await malformed(zoned(['DTSTART:16010101T000000', `RRULE:${everyFortnight}`]), 5, new RegExp(`more than ${limit} times in 2027`));
    });

    it('refuses a rule that cannot be expanded (it never recurs, or only past the end of time) and parts no zone’s rule has', async () => {
      await malformed(zoned(['DTSTART:16010101T000000', 'RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30']), 7, /gives no onset within 8 years/);
      await malformed(zoned(['DTSTART:20200101T000000', 'RRULE:FREQ=YEARLY;INTERVAL=999999999']), 7, /INTERVAL: at most 100 /);
      await malformed(zoned(['DTSTART:20200101T000000', 'RRULE:FREQ=YEARLY;BYMONTH=13']), 7, /BYMONTH/);
      await malformed(
        zoned(['DTSTART:20200101T000000', 'RRULE:FREQ=YEARLY;X-SPEED=9']),
        7,
        /X-SPEED is not a part a time zone's rule takes/,
      );
      await malformed(zoned(['DTSTART:20200101T000000', 'RRULE:FREQ=YEARLY;BYWEEKNO=14;BYYEARDAY=139']), 7, /BYWEEKNO is not a part/);
    });

    it('refuses an observance listing more RDATE values than the limit, and a COUNT above it', async () => {
      const limit = ICAL_LIMITS.zoneOnsetsPerObservance;
      const day = (index: number) => new Date(Date.UTC(1800, 0, 1 + index)).toISOString().slice(0, 10).replace(/-/g, '');
      const rdates = Array.from({ length: limit + 1 }, (_, index) => `RDATE:${day(index)}T020000`);
      await malformed(zoned(['DTSTART:17990101T000000', ...rdates]), 5, new RegExp(`more than ${limit} onsets`));
      await malformed(
        zoned(['DTSTART:16010101T000000', `RRULE:FREQ=YEARLY;COUNT=${limit + 1}`]),
        5,
        new RegExp(`more than ${limit} onsets`),
      );
    });

    it('refuses more VTIMEZONEs of the file’s own than the limit, when its events use them', async () => {
      const limit = ICAL_LIMITS.ownZones;
      const zones = Array.from({ length: limit + 1 }, (_, index) => [
        'BEGIN:VTIMEZONE',
        `TZID:Own ${index}`,
        'BEGIN:STANDARD',
        'DTSTART:19700101T000000',
        `TZOFFSETFROM:+01${String(index).padStart(2, '0')}`,
        `TZOFFSETTO:+01${String(index).padStart(2, '0')}`,
        'END:STANDARD',
        'END:VTIMEZONE',
      ]);
      const events = (count: number) =>
        Array.from({ length: count }, (_, index) => [
          'BEGIN:VEVENT',
          `UID:own-${index}@tests.example`,
          `DTSTART;TZID=Own ${index}:20270615T140000`,
          'SUMMARY:Own',
          'END:VEVENT',
        ]);
      const file = (used: number) => ics('BEGIN:VCALENDAR', 'VERSION:2.0', ...zones.flat(), ...events(used).flat(), 'END:VCALENDAR');
      assert.deepEqual(await report(file(limit)), { created: limit, updated: 0, skipped: 0, errors: [] });
      await malformed(file(limit + 1), 3 + 8 * limit, new RegExp(`more than ${limit} time zones of its own`));
    });

    it('still reads Outlook’s zones from 1601 (yearly rules), for an event next year and one in year 9000', async () => {
      const file = outlookCalendar()
        .replace('DTSTART;TZID=W. Europe Standard Time:20270105T090000', 'DTSTART;TZID=W. Europe Standard Time:90000105T090000')
        .replace('DTEND;TZID=W. Europe Standard Time:20270105T100000', 'DTEND;TZID=W. Europe Standard Time:90000105T100000');
      assert.deepEqual(await report(file, ''), { created: 2, updated: 0, skipped: 0, errors: [] });
      const response = await server.request(`${EVENTS}?start_date=2027-01-01&end_date=9001-01-01&search=Budget&status=any`, {
        auth: admin,
      });
      const [far] = response.body.events;
      assert.equal(far.timezone, 'Europe/Berlin');
      assert.equal(far.start_date, '9000-01-05 09:00:00');
      assert.equal(far.utc_start_date, '9000-01-05 08:00:00');
      const [near] = (await server.request(`${EVENTS}?start_date=2027-06-01&end_date=2027-07-01&search=Quarterly`, { auth: admin })).body
        .events;
      assert.equal(near.utc_start_date, '2027-06-15 12:00:00');
    });
  });

  describe('dates and durations past the calendar’s years', () => {
    it('reports an event whose DURATION ends it past year 9998, naming the DURATION line', async () => {
      const body = await report(oneEvent('DTSTART:20270101T100000Z', 'DURATION:P999999999W'));
      assert.deepEqual(body.errors, [
        { line: 6, uid: 'one@tests.example', message: 'DURATION "P999999999W" ends the event after the year 9998.' },
      ]);
      const allDay = await report(oneEvent('DTSTART;VALUE=DATE:20270101', 'DURATION:P9999999999999999999999999D'));
      assert.equal(allDay.errors[0]?.line, 6);
      assert.match(allDay.errors[0]?.message ?? '', /DURATION .* ends the event after the year 9998/);
    });

    it('reports an event starting in year 9999 (a daily series) or before year 1001, naming its DTSTART, and imports the others', async () => {
      const file = manyEvents(3, (index) => (index === 0 ? ['RRULE:FREQ=DAILY'] : []))
        .replace('DTSTART:20270101T090000Z', 'DTSTART:99991231T230000Z')
        .replace('DTEND:20270101T100000Z', '')
        .replace('DTSTART:20270102T090000Z', 'DTSTART;TZID=Europe/Rome:05000102T090000');
      const body = await report(file);
      assert.equal(body.created, 1, JSON.stringify(body));
      assert.deepEqual(
        body.errors.map((error) => [error.line, error.message]),
        [
          [6, 'DTSTART "99991231T230000Z" is outside the years 1001–9998 the calendar holds.'],
          [13, 'DTSTART "05000102T090000" is outside the years 1001–9998 the calendar holds.'],
        ],
      );
    });

    it('reports a DTEND past year 9998 naming it', async () => {
      const body = await report(oneEvent('DTSTART:20270101T100000Z', 'DTEND:99991231T000000Z'));
      assert.deepEqual(
        body.errors.map((error) => [error.line, error.message]),
        [[6, 'DTEND "99991231T000000Z" is outside the years 1001–9998 the calendar holds.']],
      );
    });
  });

  describe('the shape of the file', () => {
    it('refuses components nested thousands deep with a 400 naming the first one past the limit', async () => {
      const depth = 3000;
      const file = ics(
        'BEGIN:VCALENDAR',
        ...Array.from({ length: depth }, (_, index) => `BEGIN:X-LEVEL-${index}`),
        ...Array.from({ length: depth }, (_, index) => `END:X-LEVEL-${depth - 1 - index}`),
        'END:VCALENDAR',
      );
      const limit = ICAL_LIMITS.depth;
      await malformed(file, limit + 1, new RegExp(`BEGIN:X-LEVEL-${limit - 1} nests components more than ${limit} deep`));
    });

    it('refuses 300,000 parameters on one property at the first past the limit, naming the line', async () => {
      const limit = ICAL_LIMITS.parametersPerProperty;
      const file = oneEvent('DTSTART:20270101T100000Z', `X-MANY${';X-P=a'.repeat(300_000)}:value`);
      assert.ok(Buffer.byteLength(file) > 1_800_000);
      await malformed(file, 6, new RegExp(`X-MANY has more than ${limit} parameters`));
    });

    it('refuses a component with more properties than the limit, and a list property with more values', async () => {
      const properties = ICAL_LIMITS.propertiesPerComponent;
      const many = Array.from({ length: properties }, (_, index) => `X-P:${index}`);
      await malformed(oneEvent('DTSTART:20270101T100000Z', ...many), 4 + properties, new RegExp(`more than ${properties} properties`));
      const values = ICAL_LIMITS.valuesPerProperty;
      const categories = `CATEGORIES:${Array.from({ length: values + 1 }, (_, index) => `c${index}`).join(',')}`;
      await malformed(oneEvent('DTSTART:20270101T100000Z', categories), 6, new RegExp(`CATEGORIES has more than ${values} values`));
      const exdates = `EXDATE:${Array.from({ length: values + 1 }, () => '20270101T100000Z').join(',')}`;
      await malformed(
        oneEvent('DTSTART:20270101T100000Z', 'RRULE:FREQ=DAILY', exdates),
        7,
        new RegExp(`EXDATE has more than ${values} values`),
      );
    });

    it('imports a file whose lines end with lone CRs, or LFs, as one with CRLFs', async () => {
      const file = manyEvents(2).replace(/many-/g, 'cr-');
      for (const ending of ['\r', '\n']) {
        assert.deepEqual(await report(file.replace(/\r\n/g, ending)), { created: 2, updated: 0, skipped: 0, errors: [] });
      }
      // Folded lines too: a continuation starts after whichever line end the file uses.
      const folded = file.replace('SUMMARY:Event 1', 'SUMMARY:Event\r\n  one').replace(/\r\n/g, '\r');
      assert.deepEqual(await report(folded, ''), { created: 2, updated: 0, skipped: 0, errors: [] });
      const titles = (await server.request(`${EVENTS}?start_date=2027-01-01&end_date=2027-01-05&search=Event`, { auth: admin })).body
        .events;
      assert.deepEqual(titles.map((event: { title: string }) => event.title).sort(), ['Event 0', 'Event one']);
    });
  });

  it('never answers a hostile file with a 500 or an internal message (property)', async () => {
    await fc.assert(
      fc.asyncProperty(hostileCalendar(), async (text) => {
        const response = await post(text);
        assert.ok(response.status === 200 || response.status === 400, `${response.status} ${response.text.slice(0, 300)}`);
        if (response.status === 400) {
          assert.equal(response.body.code, 'rest_invalid_param');
          assert.match(response.body.message, /^Malformed iCalendar file, line \d+: /);
        }
        assert.doesNotMatch(response.text, /Cannot read|undefined|is not a function|Maximum call stack|Invalid time value/);
      }),
      { numRuns: 60 },
    );
  });
});
