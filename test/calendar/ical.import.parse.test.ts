/**
 * The import's reading of a file, without a server: the scan's limits, what
 * ical.js may say back, the file's own time zones, and a property test over
 * hostile files (the import path up to the writes): only refusals of the
 * file or of an event, each case within 250 ms of CPU and a bounded heap.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import fc from 'fast-check';
import { EventProblem, FileTimes, draftOf } from '../../src/calendar/ical/ical.import.draft.ts';
import { ICAL_LIMITS, IcalSyntaxError, parseCalendar, type Component } from '../../src/calendar/ical/ical.import.parse.ts';
import { FileZones, ianaZoneMatching, instantInVtimezone } from '../../src/calendar/ical/ical.import.zones.ts';
import { hostileCalendar } from './ical.import.arbitraries.ts';
import { ics, outlookCalendar } from './ical.import.fixtures.ts';

/** A file of one event whose lines after its UID are `lines`. */
const oneEvent = (...lines: string[]) =>
  ics('BEGIN:VCALENDAR', 'VERSION:2.0', 'BEGIN:VEVENT', 'UID:one@tests.example', ...lines, 'END:VEVENT', 'END:VCALENDAR');

function refusal(text: string): IcalSyntaxError {
  try {
    parseCalendar(text);
  } catch (error) {
    if (error instanceof IcalSyntaxError) return error;
    throw error;
  }
  assert.fail('the file was accepted');
}

/** Drafts every event of a file as the import does before it writes: the file's refusal, or each event's draft or problem. */
function draftAll(text: string): void {
  const calendar = parseCalendar(text);
  const times = new FileTimes(calendar, 'UTC');
  for (const event of calendar.events) {
    try {
      draftOf(event, times);
    } catch (error) {
      if (!(error instanceof EventProblem)) throw error;
    }
  }
}

describe('reading an iCalendar file for import', () => {
  it('reads parameters, quoted values and lists as written, whatever the line ends', () => {
    const line = 'ATTENDEE;CN="Rossi; Anna";ROLE=REQ-PARTICIPANT;DELEGATED-TO="mailto:a@x.org","mailto:b@x.org":mailto:anna@x.org';
    for (const ending of ['\r\n', '\n', '\r']) {
      const [event] = parseCalendar(oneEvent('DTSTART:20270101T100000Z', line).replace(/\r\n/g, ending)).events;
      const attendee = event?.properties.find((property) => property.name === 'ATTENDEE');
      assert.deepEqual(attendee, {
        line: 6,
        name: 'ATTENDEE',
        params: { CN: 'Rossi; Anna', ROLE: 'REQ-PARTICIPANT', 'DELEGATED-TO': 'mailto:a@x.org,mailto:b@x.org' },
        value: 'mailto:anna@x.org',
      });
    }
  });

  it("decodes RFC 6868 in parameter values, quoted or not: ^^, ^n and ^' (any other ^ is itself)", () => {
    const lines = ['ORGANIZER;CN="Ltd.; ^\'Q^\' ^^ x^nY ^a":mailto:box@x.org', "ATTENDEE;CN=Ada ^'the^' Lovelace^N:mailto:ada@x.org"];
    const [event] = parseCalendar(oneEvent('DTSTART:20270101T100000Z', ...lines)).events;
    const cn = (name: string) => event?.properties.find((property) => property.name === name)?.params.CN;
    assert.equal(cn('ORGANIZER'), 'Ltd.; "Q" ^ x\nY ^a');
    assert.equal(cn('ATTENDEE'), 'Ada "the" Lovelace\n');
    const draft = draftOf(event as Component, new FileTimes(parseCalendar(oneEvent('DTSTART:20270101T100000Z')), 'UTC'));
    assert.deepEqual(draft.organizer, { name: 'Ltd.; "Q" ^ x\nY ^a', email: 'box@x.org' });
  });

  it("takes an event's zone from X-ALMANAC-TIMEZONE for its days and its times without TZID, and refuses one that is no zone", () => {
    const times = (text: string) => new FileTimes(parseCalendar(text), 'Europe/Rome');
    const draft = (...lines: string[]) => {
      const text = oneEvent(...lines);
      return draftOf(parseCalendar(text).events[0] as Component, times(text));
    };
    const allDay = draft('DTSTART;VALUE=DATE:20270105', 'DTEND;VALUE=DATE:20270107', 'X-ALMANAC-TIMEZONE:America/New_York');
    assert.deepEqual(
      [allDay.body.start_date, allDay.body.end_date, allDay.body.timezone, allDay.body.all_day],
      ['2027-01-05 00:00:00', '2027-01-06 00:00:00', 'America/New_York', true],
    );
    const utc = draft('DTSTART:20270105T100000Z', 'X-ALMANAC-TIMEZONE:UTC+02:00');
    assert.deepEqual([utc.body.start_date, utc.body.timezone], ['2027-01-05 12:00:00', 'UTC+02:00']);
    const floating = draft('DTSTART:20270105T100000', 'X-ALMANAC-TIMEZONE:Asia/Tokyo');
    assert.deepEqual([floating.body.start_date, floating.body.timezone], ['2027-01-05 10:00:00', 'Asia/Tokyo']);
    // A TZID says the zone itself.
    const zoned = draft('DTSTART;TZID=Europe/Paris:20270105T100000', 'X-ALMANAC-TIMEZONE:Asia/Tokyo');
    assert.deepEqual([zoned.body.start_date, zoned.body.timezone], ['2027-01-05 10:00:00', 'Europe/Paris']);
    assert.throws(
      () => draft('DTSTART;VALUE=DATE:20270105', 'X-ALMANAC-TIMEZONE:Mars/Olympus'),
      (error: unknown) =>
        error instanceof EventProblem && error.line === 6 && /X-ALMANAC-TIMEZONE "Mars\/Olympus" is no time zone/.test(error.message),
    );
  });

  it('takes components nested to the limit and refuses one more', () => {
    const nest = (depth: number) =>
      oneEvent(
        'DTSTART:20270101T100000Z',
        ...Array.from({ length: depth - 2 }, (_, level) => `BEGIN:X-L${level}`),
        ...Array.from({ length: depth - 2 }, (_, level) => `END:X-L${depth - 3 - level}`),
      );
    assert.equal(parseCalendar(nest(ICAL_LIMITS.depth)).events.length, 1);
    const error = refusal(nest(ICAL_LIMITS.depth + 1));
    assert.equal(error.line, 6 + ICAL_LIMITS.depth - 2);
    assert.match(error.message, /BEGIN:X-L3 nests components more than 5 deep/);
  });

  it('takes parameters and list values up to the limits and refuses one more', () => {
    const params = (count: number) => `X-P${';X-A=1'.repeat(count)}:v`;
    assert.equal(parseCalendar(oneEvent(params(ICAL_LIMITS.parametersPerProperty))).events.length, 1);
    assert.match(refusal(oneEvent(params(ICAL_LIMITS.parametersPerProperty + 1))).message, /X-P has more than 100 parameters/);
    const values = (count: number) => `CATEGORIES:${Array.from({ length: count }, (_, index) => `c${index}`).join(',')}`;
    assert.equal(parseCalendar(oneEvent(values(ICAL_LIMITS.valuesPerProperty))).events.length, 1);
    // Escaped commas are text, not separators.
    assert.equal(parseCalendar(oneEvent(`CATEGORIES:${'a\\,'.repeat(2 * ICAL_LIMITS.valuesPerProperty)}`)).events.length, 1);
    assert.match(refusal(oneEvent(values(ICAL_LIMITS.valuesPerProperty + 1))).message, /CATEGORIES has more than 1000 values/);
    const paramValues = `X-P;MEMBER=${Array.from({ length: ICAL_LIMITS.valuesPerProperty + 1 }, () => '"m"').join(',')}:v`;
    assert.match(refusal(oneEvent(paramValues)).message, /MEMBER of X-P has more than 1000 values/);
  });

  it('passes on what ical.js says of a line it refuses, and never the message of its own failure', () => {
    const complaint = refusal(oneEvent('DTSTART:20270101T100000Z', 'RRULE:FREQ=YEARLY;BYDAY=XX'));
    assert.equal(complaint.message, 'line 6: invalid BYDAY value "XX"');
    // ical.js fails on a PERIOD it cannot split with a TypeError ("Cannot read properties of undefined").
    const failure = refusal(oneEvent('DTSTART:20270101T100000Z', 'X-ODD;VALUE=PERIOD:x'));
    assert.equal(failure.message, 'line 6: X-ODD cannot be read.');
    // A quoted line is cut short.
    const long = refusal(oneEvent(`X-LONG;X-Q="${'a'.repeat(1000)}`));
    assert.ok(long.message.length < 300, long.message);
  });

  it('reads the years 0001–0099 as those years, not as 1901–1999 (they are outside the calendar: a problem of the event)', () => {
    const times = (text: string) => {
      const calendar = parseCalendar(text);
      return () => draftOf(calendar.events[0]!, new FileTimes(calendar, 'UTC'));
    };
    assert.throws(times(oneEvent('DTSTART:00500101T100000Z')), /DTSTART "00500101T100000Z" is outside the years 1001–9998/);
    assert.throws(times(oneEvent('DTSTART;VALUE=DATE:00000101')), /outside the years/);
  });
});

describe('time zones defined in a file', () => {
  const outlook = () => {
    const calendar = parseCalendar(outlookCalendar());
    return new FileZones(calendar.zones).get('W. Europe Standard Time')!;
  };
  const utc = (stamp: string) => Date.parse(`${stamp}Z`);
  const hours = (ms: number) => ms / 3_600_000;

  it('gives Outlook’s zone from 1601 its offsets in any year, changes included', () => {
    const zone = outlook();
    assert.equal(hours(zone.offsetAt(utc('2027-03-28T00:59:59'))), 1);
    assert.equal(hours(zone.offsetAt(utc('2027-03-28T01:00:00'))), 2);
    assert.equal(hours(zone.offsetAt(utc('2027-10-31T00:59:59'))), 2);
    assert.equal(hours(zone.offsetAt(utc('2027-10-31T01:00:00'))), 1);
    // The last Sunday of March 9000 is the 30th.
    assert.equal(hours(zone.offsetAt(utc('9000-03-30T00:59:59'))), 1);
    assert.equal(hours(zone.offsetAt(utc('9000-03-30T01:00:00'))), 2);
    assert.equal(ianaZoneMatching('W. Europe Standard Time', zone, 2027), 'Europe/Berlin');
  });

  it('reads a century of a zone’s years, its time budget counting the time spent expanding them, not the import’s between', () => {
    // A clock that moves a second between two reads of the zone, and not while the zone is read.
    let now = 0;
    const zone = new FileZones(parseCalendar(outlookCalendar()).zones, () => now).get('W. Europe Standard Time')!;
    // A century of events: well past the steps after which the budget reads its clock.
    for (let year = 2000; year < 2100; year += 1) {
      now += 1000;
      assert.equal(hours(zone.offsetAt(utc(`${year}-07-01T12:00:00`))), 2);
    }
    // The same years, with the clock moving while the zone is read: past the budget, the file is refused.
    let reads = 0;
    const timed = new FileZones(parseCalendar(outlookCalendar()).zones, () => (reads += 1)).get('W. Europe Standard Time')!;
    assert.throws(() => {
      for (let year = 2000; year < 2100; year += 1) timed.offsetAt(utc(`${year}-07-01T12:00:00`));
    }, /VTIMEZONE "W\. Europe Standard Time": The recurrence takes more than 100 ms to expand/);
  });

  it('reads wall times as the calendar does: one in the spring gap moves forward, an ambiguous one is the earlier', () => {
    const zone = outlook();
    assert.equal(new Date(instantInVtimezone('20270328T023000', zone)).toISOString(), '2027-03-28T01:30:00.000Z');
    assert.equal(new Date(instantInVtimezone('20271031T023000', zone)).toISOString(), '2027-10-31T00:30:00.000Z');
    assert.equal(new Date(instantInVtimezone('20270615T140000', zone)).toISOString(), '2027-06-15T12:00:00.000Z');
  });

  it('reads RDATE onsets, UNTIL and COUNT as RFC 5545 says, before the first onset the offset it changes from', () => {
    const file = ics(
      'BEGIN:VCALENDAR',
      'BEGIN:VTIMEZONE',
      'TZID:Old Rules',
      'BEGIN:DAYLIGHT',
      'DTSTART:19800406T020000',
      'TZOFFSETFROM:-0500',
      'TZOFFSETTO:-0400',
      'RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1SU;UNTIL=19820404T070000Z',
      'RDATE:19900401T020000,19910407T020000',
      'END:DAYLIGHT',
      'BEGIN:STANDARD',
      'DTSTART:19801026T020000',
      'TZOFFSETFROM:-0400',
      'TZOFFSETTO:-0500',
      'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU;COUNT=12',
      'END:STANDARD',
      'END:VTIMEZONE',
      'END:VCALENDAR',
    );
    const zone = new FileZones(parseCalendar(file).zones).get('Old Rules')!;
    const summer = (year: number) => hours(zone.offsetAt(utc(`${year}-07-01T12:00:00`)));
    assert.equal(hours(zone.offsetAt(utc('1970-07-01T12:00:00'))), -5);
    assert.deepEqual([1980, 1981, 1982, 1983, 1990, 1991, 1992].map(summer), [-4, -4, -4, -5, -4, -4, -5]);
    // COUNT=12: the last change back is in October 1991; the next April's stays.
    assert.equal(hours(zone.offsetAt(utc('1992-12-01T12:00:00'))), -5);
  });
});

describe('hostile files (property)', () => {
  before(() => {
    // The first scan of every IANA zone builds a formatter for each (0.3 s, once a process): not the file's cost.
    const odd = ics(
      'BEGIN:VCALENDAR',
      'BEGIN:VTIMEZONE',
      'TZID:Odd',
      'BEGIN:STANDARD',
      'DTSTART:19700101T000000',
      'TZOFFSETFROM:+0517',
      'TZOFFSETTO:+0517',
      'END:STANDARD',
      'END:VTIMEZONE',
      'BEGIN:VEVENT',
      'UID:odd@tests.example',
      'DTSTART;TZID=Odd:20270101T100000',
      'END:VEVENT',
      'END:VCALENDAR',
    );
    draftAll(odd);
  });

  it('refuses a file only with an IcalSyntaxError and an event only with an EventProblem, each within 250 ms of CPU and a bounded heap', () => {
    fc.assert(
      fc.property(hostileCalendar(), (text) => {
        const started = process.cpuUsage();
        try {
          draftAll(text);
        } catch (error) {
          if (!(error instanceof IcalSyntaxError)) throw error;
          assert.match(error.message, /^line \d+: /);
        }
        const used = process.cpuUsage(started);
        const cpuMs = (used.user + used.system) / 1000;
        assert.ok(cpuMs < 250, `${cpuMs} ms of CPU`);
        assert.ok(process.memoryUsage().heapUsed < 512 * 2 ** 20, `${process.memoryUsage().heapUsed} bytes of heap`);
      }),
      { numRuns: 300 },
    );
  });
});
