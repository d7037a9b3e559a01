import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { dayGrid, lastDayOf } from '../../src/calendar/events/events.days.ts';
import type { EventSpan } from '../../src/calendar/events/events.repository.ts';

/** The grid of the month, week and day pages (events.days.ts): which events each day shows and counts. */

const day = (offset: number) => new Date(Date.UTC(2027, 2, 20) + offset * 86_400_000).toISOString().slice(0, 10);

describe('the days an event runs on', () => {
  it('ends on the day before when it ends at midnight, unless it also starts then', () => {
    const span = (start_local: string, end_local: string): EventSpan => ({ id: 1, start_local, end_local });
    assert.equal(lastDayOf(span('2027-03-27 20:00:00', '2027-03-28 00:00:00')), '2027-03-27');
    // Across the end of a month and of a year, and of February in a leap year.
    assert.equal(lastDayOf(span('2027-03-31 20:00:00', '2027-04-01 00:00:00')), '2027-03-31');
    assert.equal(lastDayOf(span('2027-12-31 22:00:00', '2028-01-01 00:00:00')), '2027-12-31');
    assert.equal(lastDayOf(span('2028-02-29 22:00:00', '2028-03-01 00:00:00')), '2028-02-29');
    assert.equal(lastDayOf(span('2027-03-28 00:00:00', '2027-03-28 00:00:00')), '2027-03-28');
    assert.equal(lastDayOf(span('2027-03-27 20:00:00', '2027-03-28 00:00:01')), '2027-03-28');
    assert.equal(lastDayOf(span('2027-03-28 00:00:00', '2027-03-28 23:59:59')), '2027-03-28');
  });
});

describe('a calendar grid', () => {
  const stamp = (offset: number, minutes: number) =>
    `${day(offset)} ${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}:00`;
  const spanArb = fc
    .record({
      start: fc.integer({ min: -5, max: 15 }),
      minute: fc.integer({ min: 0, max: 1439 }),
      length: fc.integer({ min: 0, max: 4000 }),
    })
    .map(({ start, minute, length }) => {
      const end = start + Math.floor((minute + length) / 1440);
      return { start_local: stamp(start, minute), end_local: stamp(end, (minute + length) % 1440) };
    });

  it('counts on each shown day the events running on it, and keeps the first ones in list order', () => {
    fc.assert(
      fc.property(
        fc.array(spanArb, { maxLength: 60 }),
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 0, max: 5 }),
        (drawn, first, length, perDay) => {
          const spans = drawn
            .map((span, index) => ({ ...span, id: index + 1 }))
            .sort((a, b) => a.start_local.localeCompare(b.start_local) || a.id - b.id);
          const days = Array.from({ length }, (_, index) => day(first + index));
          const grid = dayGrid(spans, days, perDay);
          // The definition, day by day: an event runs on each day from its start's to its last.
          days.forEach((shown, index) => {
            const running = spans.filter((span) => span.start_local.slice(0, 10) <= shown && shown <= lastDayOf(span));
            assert.equal(grid.counts[index], running.length, shown);
            assert.deepEqual(
              grid.firsts[index],
              running.slice(0, perDay).map((span) => span.id),
              shown,
            );
          });
        },
      ),
    );
  });

  it('has empty days when there are no events, and no days when none are shown', () => {
    assert.deepEqual(dayGrid([], [day(0), day(1)], 4), { counts: [0, 0], firsts: [[], []] });
    assert.deepEqual(dayGrid([{ id: 1, start_local: stamp(0, 60), end_local: stamp(0, 120) }], [], 4), { counts: [], firsts: [] });
  });
});
