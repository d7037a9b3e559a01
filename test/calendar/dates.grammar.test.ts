/**
 * What `parseDate` answers for each form of the date grammar, as a table: the
 * outputs were recorded before the grammar was split from the wall-time
 * arithmetic, so a rewrite of either side that changes an answer fails here.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDate } from '../../src/calendar/common/dates.ts';
import { readDateText, type DatePhrase } from '../../src/calendar/common/dates.grammar.ts';

const NOW = new Date('2026-11-22T10:15:30Z'); // a Sunday

/** Each text read in UTC at NOW: its local stamp, or `undefined` when it is refused. */
function expectLocal(cases: readonly (readonly [string, string | undefined])[]): void {
  for (const [text, local] of cases) assert.equal(parseDate(text, 'UTC', NOW)?.local, local, JSON.stringify(text));
}

describe('parseDate, form by form', () => {
  it('reads UNIX timestamps, bare or after @, within years 1000 to 9999', () => {
    expectLocal([
      ['0', '1970-01-01 00:00:00'],
      ['@0', '1970-01-01 00:00:00'],
      ['-1', '1969-12-31 23:59:59'],
      ['@-86400', '1969-12-31 00:00:00'],
      ['1700000000', '2023-11-14 22:13:20'],
      [' 42 ', '1970-01-01 00:00:42'],
      ['253402300799', '9999-12-31 23:59:59'],
      ['253402300800', undefined],
      ['-30610224000', '1000-01-01 00:00:00'],
      ['-30610224001', undefined],
      ['999999999999', undefined],
      ['1234567890123', undefined],
      ['@', undefined],
      ['+5', undefined],
      ['1e5', undefined],
      ['0x10', undefined],
    ]);
  });

  it('takes numbers as timestamps only when they are integers in range', () => {
    const local = (seconds: number) => parseDate(seconds, 'UTC', NOW)?.local;
    assert.equal(local(0), '1970-01-01 00:00:00');
    assert.equal(local(1700000000), '2023-11-14 22:13:20');
    assert.equal(local(253402300799), '9999-12-31 23:59:59');
    assert.equal(local(-30610224000), '1000-01-01 00:00:00');
    for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 253402300800, -30610224001])
      assert.equal(local(bad), undefined, String(bad));
  });

  it('reads ISO dates with an optional time, fraction and offset', () => {
    expectLocal([
      ['2018-01-01', '2018-01-01 00:00:00'],
      ['2018-1-5', '2018-01-05 00:00:00'],
      ['2018-01-01t10:00', '2018-01-01 10:00:00'],
      ['2018-01-01T10:00:00', '2018-01-01 10:00:00'],
      ['2018-01-01 10:00:00.5', '2018-01-01 10:00:00'],
      ['2018-01-01T10:00Z', '2018-01-01 10:00:00'],
      ['2018-01-01T10:00:00+05', '2018-01-01 05:00:00'],
      ['2018-01-01T10:00:00+0530', '2018-01-01 04:30:00'],
      ['2018-01-01T10:00:00-03:30', '2018-01-01 13:30:00'],
      ['2018-01-01,10:00', '2018-01-01 10:00:00'],
      ['2018-01-01 9am', '2018-01-01 09:00:00'],
      ['2020-02-29', '2020-02-29 00:00:00'],
      ['1000-01-01', '1000-01-01 00:00:00'],
      ['9999-12-31 23:59:59', '9999-12-31 23:59:59'],
    ]);
  });

  it('rejects ISO text with an offset but no time, a day or time that does not exist, or an offset out of range', () => {
    expectLocal([
      ['2018-01-01T10:00:00+15:00', undefined],
      ['2018-01-01T10:00:00+05:60', undefined],
      ['2018-01-01Z', undefined],
      ['2018-01-01T', undefined],
      ['2018/01/01', undefined],
      ['2018-01-01 2018-01-02', undefined],
      ['2018-02-29', undefined],
      ['0999-01-01', undefined],
      ['9999-12-31 +1 day', undefined],
      ['2018-01-01 24:00', undefined],
      ['2018-01-01 23:60', undefined],
      ['2018-01-01 10:00 10:00', undefined],
    ]);
  });

  it('reads one time of day, 12-hour (am, a.m.) or 24-hour', () => {
    expectLocal([
      ['9am', '2026-11-22 09:00:00'],
      ['9 am', '2026-11-22 09:00:00'],
      ['9a.m.', '2026-11-22 09:00:00'],
      ['9 p.m.', '2026-11-22 21:00:00'],
      ['12am', '2026-11-22 00:00:00'],
      ['12pm', '2026-11-22 12:00:00'],
      ['12:30pm', '2026-11-22 12:30:00'],
      ['11:59:59pm', '2026-11-22 23:59:59'],
      ['16:30', '2026-11-22 16:30:00'],
      ['16:30:15', '2026-11-22 16:30:15'],
      ['7:05', '2026-11-22 07:05:00'],
      ['23:59:59', '2026-11-22 23:59:59'],
      ['0am', undefined],
      ['13pm', undefined],
      ['9:60am', undefined],
      ['9pm noon', undefined],
      ['noon 3pm', undefined],
      ['24:00', undefined],
      ['16:30:60', undefined],
    ]);
  });

  it('adds signed amounts of units, singular or plural, calendar units before exact ones', () => {
    expectLocal([
      ['+1 day', '2026-11-23 10:15:30'],
      ['1 day', '2026-11-23 10:15:30'],
      ['-1 day', '2026-11-21 10:15:30'],
      ['+ 1 day', '2026-11-23 10:15:30'],
      ['1day', '2026-11-23 10:15:30'],
      ['+1 days', '2026-11-23 10:15:30'],
      ['2 weeks', '2026-12-06 10:15:30'],
      ['1 fortnight', '2026-12-06 10:15:30'],
      ['+1 month', '2026-12-22 10:15:30'],
      ['-1 year', '2025-11-22 10:15:30'],
      ['+90 minutes', '2026-11-22 11:45:30'],
      ['+90 min', '2026-11-22 11:45:30'],
      ['30 sec', '2026-11-22 10:16:00'],
      ['+1 second', '2026-11-22 10:15:31'],
      ['-2 secs', '2026-11-22 10:15:28'],
      ['+3 hours', '2026-11-22 13:15:30'],
      ['+999999 days', '4764-10-18 10:15:30'],
      ['+1 weeks 2 days', '2026-12-01 10:15:30'],
      ['1 months', '2026-12-22 10:15:30'],
      ['2018-01-31 +1 month', '2018-02-28 00:00:00'],
      ['2018-01-01 10:00 +1 day', '2018-01-02 10:00:00'],
      ['2018-01-01T10:00:00Z +1 hour', '2018-01-01 11:00:00'],
      ['1 hour ago', undefined],
      ['+1000000 days', undefined],
      ['+1 dayx', undefined],
    ]);
  });

  it('reads next/last with a unit as one unit forward or back, and refuses this with a unit', () => {
    expectLocal([
      ['next month', '2026-12-22 10:15:30'],
      ['last year', '2025-11-22 10:15:30'],
      ['next week', '2026-11-29 10:15:30'],
      ['last day', '2026-11-21 10:15:30'],
      ['next hour', '2026-11-22 11:15:30'],
      ['last fortnight', '2026-11-08 10:15:30'],
      ['next sec', '2026-11-22 10:15:31'],
      ['next minute', '2026-11-22 10:16:30'],
      ['last second', '2026-11-22 10:15:29'],
      ['this week', undefined],
    ]);
  });

  it('reads a weekday (this, next or last) as the start of that day, one weekday a text', () => {
    expectLocal([
      ['monday', '2026-11-23 00:00:00'],
      ['mon', '2026-11-23 00:00:00'],
      ['tues', '2026-11-24 00:00:00'],
      ['thurs', '2026-11-26 00:00:00'],
      ['wed', '2026-11-25 00:00:00'],
      ['sat', '2026-11-28 00:00:00'],
      ['sunday', '2026-11-22 00:00:00'],
      ['this sunday', '2026-11-22 00:00:00'],
      ['this monday', '2026-11-23 00:00:00'],
      ['next sunday', '2026-11-29 00:00:00'],
      ['last sunday', '2026-11-15 00:00:00'],
      ['last mon', '2026-11-16 00:00:00'],
      ['next friday 9am', '2026-11-27 09:00:00'],
      ['friday +1 week', '2026-12-04 00:00:00'],
      ['tomorrow friday', '2026-11-27 00:00:00'],
      ['last saturday noon', '2026-11-21 12:00:00'],
      ['next  tuesday', '2026-11-24 00:00:00'],
      ['monday 2018-01-01', '2018-01-01 00:00:00'],
      ['monday tuesday', undefined],
    ]);
  });

  it('reads keywords in any case and order, with times and amounts', () => {
    expectLocal([
      ['now', '2026-11-22 10:15:30'],
      ['NOW', '2026-11-22 10:15:30'],
      [' Today ', '2026-11-22 00:00:00'],
      ['midnight', '2026-11-22 00:00:00'],
      ['noon', '2026-11-22 12:00:00'],
      ['tomorrow', '2026-11-23 00:00:00'],
      ['yesterday', '2026-11-21 00:00:00'],
      ['tomorrow tomorrow', '2026-11-24 00:00:00'],
      ['yesterday noon', '2026-11-21 12:00:00'],
      ['today 16:30', '2026-11-22 16:30:00'],
      ['now +1 hour', '2026-11-22 11:15:30'],
      ['midnight +30 minutes', '2026-11-22 00:30:00'],
      ['9am tomorrow', '2026-11-23 09:00:00'],
      ['+1 day tomorrow', '2026-11-24 00:00:00'],
      ['tomorrow, 9am', '2026-11-23 09:00:00'],
      ['tomorrow\t9am', '2026-11-23 09:00:00'],
      ['tomorrow\u00a09am', '2026-11-23 09:00:00'],
      ['16:30 yesterday', '2026-11-21 16:30:00'],
      ['2018-01-01 tomorrow', '2018-01-02 00:00:00'],
      ['+1 month 2018-01-31', '2018-02-28 00:00:00'],
      ['tomorrow '.repeat(22), '2026-12-14 00:00:00'],
    ]);
  });

  it('rejects unknown words, stray characters and over-long text', () => {
    expectLocal([
      ['constructor', undefined],
      ['next constructor', undefined],
      ['last constructor', undefined],
      ['this constructor', undefined],
      ['now constructor', undefined],
      ['foo', undefined],
      ['next foo', undefined],
      ['', undefined],
      [' '.repeat(300), undefined],
      ['tomorrow '.repeat(23), undefined],
      ['\u0663', undefined],
      ['tomorrow;', undefined],
    ]);
  });

  it('resolves wall times in the zone: DST gaps forward, overlaps first, offsets and exact amounts on the instant', () => {
    const cases: readonly (readonly [string, string, string | undefined, string | undefined])[] = [
      ['2026-03-29 02:30', 'Europe/Rome', '2026-03-29 03:30:00', '2026-03-29 01:30:00'],
      ['2026-03-29 01:30 +1 hour', 'Europe/Rome', '2026-03-29 03:30:00', '2026-03-29 01:30:00'],
      ['2026-03-28 02:30 +1 day', 'Europe/Rome', '2026-03-29 03:30:00', '2026-03-29 01:30:00'],
      ['2026-03-28 12:00 +24 hours', 'Europe/Rome', '2026-03-29 13:00:00', '2026-03-29 11:00:00'],
      ['2026-10-25 02:30', 'Europe/Rome', '2026-10-25 02:30:00', '2026-10-25 00:30:00'],
      ['2026-11-01 01:30', 'America/New_York', '2026-11-01 01:30:00', '2026-11-01 05:30:00'],
      ['2026-11-01 01:30 +1 hour', 'America/New_York', '2026-11-01 01:30:00', '2026-11-01 06:30:00'],
      ['2026-03-08 02:00', 'America/New_York', '2026-03-08 03:00:00', '2026-03-08 07:00:00'],
      ['2026-04-05 01:45', 'Australia/Lord_Howe', '2026-04-05 01:45:00', '2026-04-04 14:45:00'],
      ['tomorrow 9am', 'Europe/Rome', '2026-11-23 09:00:00', '2026-11-23 08:00:00'],
      ['+1 month', 'Europe/Rome', '2026-12-22 11:15:30', '2026-12-22 10:15:30'],
      ['today', 'Australia/Sydney', '2026-11-22 00:00:00', '2026-11-21 13:00:00'],
      ['now', 'Pacific/Chatham', '2026-11-23 00:00:30', '2026-11-22 10:15:30'],
      ['next monday', 'Asia/Kolkata', '2026-11-23 00:00:00', '2026-11-22 18:30:00'],
      ['yesterday noon', 'America/St_Johns', '2026-11-21 12:00:00', '2026-11-21 15:30:00'],
      ['2020-01-01 00:00', 'UTC+5.5', '2020-01-01 00:00:00', '2019-12-31 18:30:00'],
      ['2020-01-01 00:00', 'UTC-3:30', '2020-01-01 00:00:00', '2020-01-01 03:30:00'],
      ['2018-01-01T10:00:00Z', 'Asia/Kathmandu', '2018-01-01 15:45:00', '2018-01-01 10:00:00'],
      ['2018-01-01T10:00:00+01:00', 'America/New_York', '2018-01-01 04:00:00', '2018-01-01 09:00:00'],
      ['1700000000', 'Australia/Lord_Howe', '2023-11-15 09:13:20', '2023-11-14 22:13:20'],
      ['1000-01-01', 'UTC-5', '1000-01-01 00:00:00', '1000-01-01 05:00:00'],
      ['1000-01-01', 'UTC+5', undefined, undefined],
      ['9999-12-31 23:00', 'UTC-5', undefined, undefined],
    ];
    for (const [text, zone, local, utc] of cases) {
      const moment = parseDate(text, zone, NOW);
      assert.deepEqual([moment?.local, moment?.utc], [local, utc], `${text} in ${zone}`);
    }
  });
});

describe('readDateText', () => {
  const NOTHING = { years: 0, months: 0, days: 0, hours: 0, minutes: 0, seconds: 0 };
  const phrase = (text: string): DatePhrase | undefined => {
    const read = readDateText(text);
    assert.equal(read?.kind ?? 'phrase', 'phrase', text);
    return read?.kind === 'phrase' ? read.phrase : undefined;
  };

  it('reads digits alone, or after @, as a timestamp in seconds', () => {
    assert.deepEqual(readDateText(' @1700000000 '), { kind: 'timestamp', seconds: 1700000000 });
    assert.deepEqual(readDateText('-86400'), { kind: 'timestamp', seconds: -86400 });
  });

  it('reads an ISO date, its time and its offset into their own fields', () => {
    assert.deepEqual(phrase('2018-01-05T10:30:15.250+05:30'), {
      date: { year: 2018, month: 1, day: 5 },
      time: { hour: 10, minute: 30, second: 15 },
      offsetMinutes: 330,
      dayShift: 0,
      resetTime: false,
      relative: NOTHING,
      anchored: true,
    });
    assert.equal(phrase('2018-01-05 10:30Z')?.offsetMinutes, 0);
    assert.equal(phrase('2018-01-05 10:30-0330')?.offsetMinutes, -210);
  });

  it('adds up amounts per unit, weeks and fortnights as days, without anchoring', () => {
    assert.deepEqual(phrase('+1 week, -2 days 1 fortnight next month last year 90 min'), {
      dayShift: 0,
      resetTime: false,
      relative: { ...NOTHING, years: -1, months: 1, days: 19, minutes: 90 },
      anchored: false,
    });
    assert.deepEqual(phrase('now'), { dayShift: 0, resetTime: false, relative: NOTHING, anchored: false });
  });

  it('keeps the direction of a weekday, and keywords as a day shift that starts the day', () => {
    assert.deepEqual(phrase('last fri')?.weekday, { direction: 'last', day: 5 });
    assert.deepEqual(phrase('sunday')?.weekday, { direction: 'this', day: 7 });
    const yesterday = phrase('tomorrow yesterday yesterday 12pm');
    assert.deepEqual([yesterday?.dayShift, yesterday?.resetTime, yesterday?.time], [-1, true, { hour: 12, minute: 0, second: 0 }]);
  });

  it('refuses a second date, weekday or time, and words that are only names of object members', () => {
    for (const text of [
      '2018-01-01 2018-01-02',
      'mon tue',
      'noon 9am',
      '9am 9am',
      'next constructor',
      'last constructor',
      'hasownproperty',
      'next __proto__',
    ]) {
      assert.equal(readDateText(text), undefined, text);
    }
  });
});
