/** Dates and times as people type them in spreadsheets (the CSV import): every way of writing one reads back the same. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DateTextProblem, parseDateText, parseDateTimeText, parseTimeText } from '../../src/calendar/import/csv.dates.ts';

const pad = (value: number) => String(value).padStart(2, '0');
const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** A real date of the calendar: year, month, day. */
const realDate = fc
  .record({ year: fc.integer({ min: 1000, max: 9999 }), month: fc.integer({ min: 1, max: 12 }), day: fc.integer({ min: 1, max: 31 }) })
  .map(({ year, month, day }) => ({ year, month, day: Math.min(day, daysIn(year, month)) }));
const separator = fc.constantFrom('/', '.', '-');
const zeroPadded = fc.boolean();
const show = (value: number, padded: boolean) => (padded ? pad(value) : String(value));

describe('CSV dates and times', () => {
  it('reads a date written ISO, day first or month first as the same day', () => {
    fc.assert(
      fc.property(realDate, separator, zeroPadded, ({ year, month, day }, sep, padded) => {
        const iso = `${year}-${pad(month)}-${pad(day)}`;
        assert.equal(parseDateText(`${year}-${show(month, padded)}-${show(day, padded)}`, undefined), iso);
        assert.equal(parseDateText(`${show(day, padded)}${sep}${show(month, padded)}${sep}${year}`, 'dmy'), iso);
        assert.equal(parseDateText(`${show(month, padded)}${sep}${show(day, padded)}${sep}${year}`, 'mdy'), iso);
        // Without an order only a date whose first two numbers can be read one way is read.
        const dayFirst = `${day}/${month}/${year}`;
        if (day > 12 || day === month) assert.equal(parseDateText(dayFirst, undefined), iso);
        else assert.throws(() => parseDateText(dayFirst, undefined), /could be day\/month or month\/day/);
      }),
    );
  });

  it('refuses days past the end of their month, month 13 and day 0, in every order', () => {
    fc.assert(
      fc.property(realDate, fc.integer({ min: 1, max: 5 }), ({ year, month }, beyond) => {
        const day = daysIn(year, month) + beyond;
        if (day > 31) return;
        assert.throws(() => parseDateText(`${year}-${pad(month)}-${day}`, undefined), DateTextProblem);
        assert.throws(() => parseDateText(`${day}/${month}/${year}`, 'dmy'), DateTextProblem);
        assert.throws(() => parseDateText(`${month}/${day}/${year}`, 'mdy'), DateTextProblem);
      }),
    );
    for (const text of ['2026-13-01', '2026-00-10', '0/1/2026', '13/1/2026'])
      assert.throws(() => parseDateText(text, 'mdy'), DateTextProblem);
  });

  it('reads a time on 24 or 12 hours as the same time', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.boolean(), (hour, minute, spaced) => {
        const expected = `${pad(hour)}:${pad(minute)}:00`;
        assert.equal(parseTimeText(`${hour}:${pad(minute)}`), expected);
        assert.equal(parseTimeText(`${pad(hour)}.${pad(minute)}`), expected);
        const clock = hour % 12 === 0 ? 12 : hour % 12;
        const half = hour < 12 ? 'am' : 'PM';
        assert.equal(parseTimeText(`${clock}:${pad(minute)}${spaced ? ' ' : ''}${half}`), expected);
        if (minute === 0) assert.equal(parseTimeText(`${clock}${half}`), expected);
      }),
    );
  });

  it('refuses what is no time of day', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          const time = parseTimeText(text);
          assert.match(time, /^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/);
        } catch (error) {
          assert.ok(error instanceof DateTextProblem, String(error));
        }
      }),
    );
    for (const text of ['24:00', '12:60', '13 pm', '0 am', 'noon', '14', '']) assert.throws(() => parseTimeText(text), DateTextProblem);
  });

  it('reads a date cell that carries its time', () => {
    assert.deepEqual(parseDateTimeText('2026-12-03T14:30', undefined), { date: '2026-12-03', time: '14:30:00' });
    assert.deepEqual(parseDateTimeText('3/12/2026 2:30 pm', 'dmy'), { date: '2026-12-03', time: '14:30:00' });
    assert.deepEqual(parseDateTimeText(' 2026-12-03 ', undefined), { date: '2026-12-03', time: undefined });
  });
});
