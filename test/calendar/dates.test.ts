import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import {
  dateDetails,
  fromInstant,
  fromWallTime,
  isoWithOffset,
  isValidZoneName,
  parseDate,
  plusCalendar,
  timezoneAbbr,
} from '../../src/calendar/common/dates.ts';

const NOW = new Date('2026-11-22T10:15:30Z'); // a Sunday
const ZONES = ['UTC', 'Europe/Rome', 'America/New_York', 'Asia/Kolkata', 'Australia/Sydney', 'UTC+5', 'UTC-3:30'];
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** Wall-clock times in `years`, with days up to `maxDay` (31 may name no day of the month: filter what must exist). */
const wallClock = (years: { min: number; max: number }, maxDay: number) =>
  fc.record({
    year: fc.integer(years),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: maxDay }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
  });
const wallArb = wallClock({ min: 1970, max: 2100 }, 28);
const stampOf = (w: { year: number; month: number; day: number; hour: number; minute: number; second: number }) =>
  `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)} ${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}`;

describe('date grammar', () => {
  it('reads absolute wall times in the zone, and the UTC copy agrees with the offset', () => {
    fc.assert(
      fc.property(wallArb, fc.constantFrom(...ZONES), (wall, zone) => {
        const moment = parseDate(stampOf(wall), zone, NOW);
        assert.ok(moment);
        const local = DateTime.fromMillis(moment.epochMs, { zone: zone.startsWith('UTC') && zone !== 'UTC' ? zone : zone });
        assert.equal(local.toFormat('yyyy-MM-dd HH:mm:ss'), moment.local);
        assert.equal(new Date(moment.epochMs).toISOString().slice(0, 19).replace('T', ' '), moment.utc);
        // Outside DST gaps the wall time is kept as written.
        if (moment.local !== stampOf(wall)) assert.ok(moment.epochMs > Date.parse(`${stampOf(wall).replace(' ', 'T')}Z`) - 15 * 3600_000);
      }),
    );
  });

  it('treats integers as instants, whatever the zone', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_000_000_000 }), fc.constantFrom(...ZONES), (seconds, zone) => {
        const moment = parseDate(String(seconds), zone, NOW);
        assert.equal(moment?.epochMs, seconds * 1000);
        assert.equal(parseDate(seconds, zone, NOW)?.epochMs, seconds * 1000);
      }),
    );
  });

  it('accepts ISO 8601 with T, Z and offsets', () => {
    fc.assert(
      fc.property(wallArb, fc.integer({ min: -14 * 60, max: 14 * 60 }), (wall, offset) => {
        const sign = offset < 0 ? '-' : '+';
        const text = `${stampOf(wall).replace(' ', 'T')}${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
        const moment = parseDate(text, 'Europe/Rome', NOW);
        assert.equal(moment?.epochMs, Date.parse(`${stampOf(wall).replace(' ', 'T')}Z`) - offset * 60_000);
      }),
    );
    assert.equal(parseDate('2018-01-01T10:00:00Z', 'Europe/Rome', NOW)?.local, '2018-01-01 11:00:00');
    assert.equal(parseDate('2018-01-01T10:00:00.250Z', 'UTC', NOW)?.local, '2018-01-01 10:00:00');
  });

  it('moves relative day offsets on the calendar and keeps the time', () => {
    fc.assert(
      fc.property(fc.integer({ min: -400, max: 400 }), fc.constantFrom('day', 'days'), (n, unit) => {
        const text = `${n >= 0 ? '+' : ''}${n} ${unit}`;
        const moment = parseDate(text, 'UTC', NOW);
        assert.equal(moment?.epochMs, NOW.getTime() + n * 86_400_000);
      }),
    );
  });

  it('never throws and rejects text outside the grammar', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        parseDate(text, 'America/New_York', NOW);
      }),
    );
    for (const bad of [
      'before my birthday',
      'foo',
      '',
      '   ',
      '2018-02-30',
      '2018-13-01',
      '2018-01-01 24:00',
      '9am 10am',
      'next foo',
      '13pm',
      'tomorrow tomorrow x',
    ]) {
      assert.equal(parseDate(bad, 'UTC', NOW), undefined, bad);
    }
  });

  it('understands the relative forms clients send', () => {
    const cases: [string, string][] = [
      ['now', '2026-11-22 10:15:30'],
      ['today', '2026-11-22 00:00:00'],
      ['midnight', '2026-11-22 00:00:00'],
      ['noon', '2026-11-22 12:00:00'],
      ['tomorrow', '2026-11-23 00:00:00'],
      ['yesterday', '2026-11-21 00:00:00'],
      ['tomorrow 9am', '2026-11-23 09:00:00'],
      ['tomorrow 4:30pm', '2026-11-23 16:30:00'],
      ['yesterday 16:30', '2026-11-21 16:30:00'],
      ['+5 weeks', '2026-12-27 10:15:30'],
      ['-1 month', '2026-10-22 10:15:30'],
      ['+1 year 2 days', '2027-11-24 10:15:30'],
      ['+2 hours 30 minutes', '2026-11-22 12:45:30'],
      ['next wednesday 4pm', '2026-11-25 16:00:00'],
      ['last monday', '2026-11-16 00:00:00'],
      ['next sunday', '2026-11-29 00:00:00'],
      ['Tomorrow 12am', '2026-11-23 00:00:00'],
      ['2018-01-01', '2018-01-01 00:00:00'],
      ['2018-01-01 9:05', '2018-01-01 09:05:00'],
      ['2018-01-01 +1 day', '2018-01-02 00:00:00'],
    ];
    for (const [text, expected] of cases) assert.equal(parseDate(text, 'UTC', NOW)?.local, expected, text);
    assert.equal(parseDate('tomorrow 9am', 'Europe/Rome', NOW)?.utc, '2026-11-23 08:00:00');
  });

  it('moves wall times in a DST gap forward (Europe/Rome, America/New_York)', () => {
    const rome = parseDate('2026-03-29 02:30:00', 'Europe/Rome', NOW);
    assert.deepEqual([rome?.local, rome?.utc], ['2026-03-29 03:30:00', '2026-03-29 01:30:00']);
    const newYork = parseDate('2026-03-08 02:30', 'America/New_York', NOW);
    assert.deepEqual([newYork?.local, newYork?.utc], ['2026-03-08 03:30:00', '2026-03-08 07:30:00']);
    assert.equal(fromWallTime('2026-03-29 02:00:00', 'Europe/Rome')?.local, '2026-03-29 03:00:00');
  });

  it('reads ambiguous wall times with the first (daylight) offset', () => {
    const rome = parseDate('2026-10-25 02:30:00', 'Europe/Rome', NOW);
    assert.deepEqual([rome?.local, rome?.utc], ['2026-10-25 02:30:00', '2026-10-25 00:30:00']);
    const newYork = parseDate('2026-11-01 01:30', 'America/New_York', NOW);
    assert.deepEqual([newYork?.local, newYork?.utc], ['2026-11-01 01:30:00', '2026-11-01 05:30:00']);
  });

  it('parses in fixed UTC offset zones', () => {
    assert.equal(parseDate('2020-01-01 00:00', 'UTC+5', NOW)?.utc, '2019-12-31 19:00:00');
    assert.equal(parseDate('2020-01-01 00:00', 'UTC-3:30', NOW)?.utc, '2020-01-01 03:30:00');
    assert.equal(parseDate('2020-01-01 00:00', 'UTC+5.5', NOW)?.utc, '2019-12-31 18:30:00');
  });
});

describe('zones and rendering', () => {
  it('accepts IANA names and UTC offsets only', () => {
    for (const zone of ['UTC', 'Europe/Rome', 'America/New_York', 'UTC+5', 'UTC-3:30', 'UTC+5.5']) assert.ok(isValidZoneName(zone), zone);
    for (const zone of ['', 'Mars/Olympus', 'UTC+99', 'GMT+5; drop table', '../etc/passwd'])
      assert.equal(isValidZoneName(zone), false, zone);
  });

  it('gives PHP-like abbreviations', () => {
    assert.equal(timezoneAbbr('America/New_York', Date.UTC(2026, 0, 15)), 'EST');
    assert.equal(timezoneAbbr('America/New_York', Date.UTC(2026, 6, 15)), 'EDT');
    assert.equal(timezoneAbbr('Europe/Rome', Date.UTC(2026, 0, 15)), 'CET');
    assert.equal(timezoneAbbr('Europe/Rome', Date.UTC(2026, 6, 15)), 'CEST');
    assert.equal(timezoneAbbr('UTC', 0), 'UTC');
    assert.equal(timezoneAbbr('UTC+5', 0), 'UTC+5');
    assert.equal(timezoneAbbr('America/Sao_Paulo', Date.UTC(2026, 0, 15)), '-03');
  });

  it('splits stamps into zero-padded details', () => {
    assert.deepEqual(dateDetails('2017-01-05 14:23:36'), {
      year: '2017',
      month: '01',
      day: '05',
      hour: '14',
      minutes: '23',
      seconds: '36',
    });
  });
});

// The calendar arithmetic runs on Date's UTC fields (dates.ts); luxon is the oracle it must agree with.
describe('calendar arithmetic agrees with luxon', () => {
  const LUXON_STAMP = 'yyyy-MM-dd HH:mm:ss';
  const IANA = [
    'UTC',
    'Europe/Rome',
    'America/New_York',
    'Asia/Kolkata',
    'Australia/Lord_Howe',
    'Pacific/Chatham',
    'America/St_Johns',
    'Asia/Kathmandu',
  ];
  const instantArb = fc.integer({ min: Date.UTC(1001, 0, 2), max: Date.UTC(9998, 11, 30) });

  it('renders an instant in a zone as luxon does (local and UTC stamps, offset)', () => {
    fc.assert(
      fc.property(instantArb, fc.constantFrom(...IANA, 'UTC+5', 'UTC-3:30'), (ms, zone) => {
        const moment = fromInstant(ms, zone);
        const expected = DateTime.fromMillis(ms, { zone });
        assert.equal(moment?.local, expected.toFormat(LUXON_STAMP));
        assert.equal(moment?.utc, expected.toUTC().toFormat(LUXON_STAMP));
        assert.equal(moment?.offsetMinutes, expected.offset);
      }),
      { numRuns: 500 },
    );
  });

  it('renders ISO 8601 with offsets as luxon does', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2200, 0, 1) }),
        fc.constantFrom(...IANA, 'Europe/London'),
        (ms, zone) => {
          const seconds = Math.floor(ms / 1000) * 1000;
          const expected = DateTime.fromMillis(seconds, { zone }).toISO({ suppressMilliseconds: true, includeOffset: true });
          assert.equal(isoWithOffset(seconds, zone), expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('adds months and days to stamps as luxon does (month ends clamp)', () => {
    fc.assert(
      fc.property(
        wallClock({ min: 1100, max: 9900 }, 31).filter((wall) => DateTime.fromObject(wall, { zone: 'utc' }).isValid),
        fc.integer({ min: -400, max: 400 }),
        fc.integer({ min: -1000, max: 1000 }),
        (wall, months, days) => {
          const stamp = stampOf(wall);
          const base = DateTime.fromFormat(stamp, LUXON_STAMP, { zone: 'utc' });
          assert.equal(plusCalendar(stamp, { months }), base.plus({ months }).toFormat(LUXON_STAMP));
          assert.equal(plusCalendar(stamp, { days }), base.plus({ days }).toFormat(LUXON_STAMP));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('reads relative calendar shifts and weekdays as luxon computes them', () => {
    fc.assert(
      fc.property(
        instantArb.filter((ms) => ms > Date.UTC(1100, 0, 1) && ms < Date.UTC(9900, 0, 1)),
        fc.integer({ min: -30, max: 30 }),
        fc.integer({ min: -30, max: 30 }),
        fc.constantFrom('monday', 'wednesday', 'sunday'),
        (ms, months, years, weekday) => {
          const now = new Date(ms);
          const base = DateTime.fromMillis(ms, { zone: 'utc' });
          const shifted = parseDate(`${months >= 0 ? '+' : ''}${months} months ${years >= 0 ? '+' : ''}${years} years`, 'UTC', now);
          assert.equal(shifted?.local, base.plus({ years, months }).toFormat(LUXON_STAMP));
          const target = { monday: 1, wednesday: 3, sunday: 7 }[weekday];
          const next = base.startOf('day').plus({ days: (target - base.weekday + 7) % 7 || 7 });
          assert.equal(parseDate(`next ${weekday}`, 'UTC', now)?.local, next.toFormat(LUXON_STAMP));
        },
      ),
      { numRuns: 300 },
    );
  });
});
