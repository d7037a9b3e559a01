import type { Rule } from './recurrence.grammar.ts';
import type { ExpansionBudget } from './recurrence.budget.ts';
import { wallOfMillis } from '../common/dates.ts';
import { DAY_MS, dateOfDay, dayNumber, FREQUENCY_RANK, planOf, weekdayOfDay, type Plan, type Wall } from './recurrence.plan.ts';
import { YearInfo } from './recurrence.year.ts';

/**
 * RFC 5545 §3.3.10 rule expansion over wall times, as python-dateutil does
 * it (its period-by-period algorithm: a set of days per period, filtered by
 * the BYxxx parts, times of day, then BYSETPOS), on integers: wall times
 * are milliseconds of a floating clock (a wall time read as UTC), days are
 * numbered from 1970-01-01. No zone here (recurrence.rules.ts maps wall
 * times to instants).
 *
 * Written by hand because expansion must be bounded as it goes: every
 * period visited is a step of an `ExpansionBudget`, in count and in time,
 * so no rule — however sparse, dense or far-reaching — holds the process
 * longer than the budget allows. Rules without COUNT start at the period
 * that holds `from` instead of at DTSTART (their occurrences do not depend
 * on the periods before), so a window years after an old series' start
 * costs what the window holds.
 *
 * One deliberate difference from dateutil: BYDAY mixing plain weekdays and
 * ordinals in a monthly or yearly rule (`BYDAY=MO,1TU`) gives the union RFC
 * 5545 defines, where dateutil gives nothing.
 */

const HOUR_MS = 3_600_000;
const LAST_YEAR = 9999;

/** Where the iteration stands: the period's first day and, for hourly rules, its hour. */
interface Cursor {
  year: number;
  month: number;
  /** Day number of the period's day (daily, hourly, weekly: the first day of the week period). */
  day: number;
  hour: number;
}

export interface ExpandOptions {
  /** The first wall time wanted (ms); a rule without COUNT starts at the period holding it. */
  readonly from: number;
  /** The last wall time wanted (ms, inclusive). */
  readonly to: number;
  /** Stop after this many occurrences (the caller knows one past its maximum is too many). */
  readonly limit: number;
  readonly budget: ExpansionBudget;
}

/**
 * The rule's wall times (ms of the floating clock) from DTSTART `startMs`,
 * within `[from, to]`, in order, at most `limit`. COUNT is counted from
 * DTSTART. DTSTART itself is not added when the rule does not give it
 * (RFC 5545 adds it to the set; the caller does).
 */
export function expandRule(rule: Rule, startMs: number, options: ExpandOptions): number[] {
  const start = wallOfMillis(startMs);
  const plan = planOf(rule, start);
  const cursor = firstCursor(plan, start, startMs, plan.count === undefined ? options.from : startMs);
  const found: number[] = [];
  let counted = 0;
  let year = new YearInfo(cursor.year, plan);
  for (;;) {
    if (year.year !== cursor.year) year = new YearInfo(cursor.year, plan);
    const { days, times, filtered, examined } = periodOf(plan, year, cursor);
    // Every day examined, and every day × time of day the period's set holds, before any is built.
    options.budget.step(examined + days.length * times.length);
    for (const wall of candidates(plan, year, days, times)) {
      if (wall > options.to) return found;
      if (wall < startMs) continue;
      counted += 1;
      if (plan.count !== undefined && counted > plan.count) return found;
      if (wall >= options.from) {
        found.push(wall);
        if (found.length >= options.limit) return found;
      }
    }
    if (!advance(plan, cursor, filtered)) return found;
    if (periodStartMs(plan, cursor) > options.to) return found;
  }
}

/** The cursor at DTSTART, or (a rule without COUNT) moved ahead by whole intervals to the period that holds `from`. */
function firstCursor(plan: Plan, start: Wall, startMs: number, from: number): Cursor {
  const startDay = dayNumber(start.year, start.month, start.day);
  const cursor: Cursor = { year: start.year, month: start.month, day: startDay, hour: start.hour };
  if (from <= startMs) return cursor;
  const target = wallOfMillis(from);
  const { interval } = plan;
  switch (plan.rank) {
    case FREQUENCY_RANK.YEARLY: {
      const periods = Math.floor((target.year - start.year) / interval) - 1;
      if (periods > 0)
        Object.assign(cursor, { year: start.year + periods * interval, day: dayNumber(start.year + periods * interval, 1, 1) });
      return cursor;
    }
    case FREQUENCY_RANK.MONTHLY: {
      const months = (target.year - start.year) * 12 + (target.month - start.month);
      const periods = Math.floor(months / interval) - 1;
      if (periods > 0) {
        const index = start.year * 12 + start.month - 1 + periods * interval;
        const year = Math.floor(index / 12);
        Object.assign(cursor, { year, month: (index % 12) + 1, day: dayNumber(year, (index % 12) + 1, 1) });
      }
      return cursor;
    }
    case FREQUENCY_RANK.WEEKLY: {
      const weekStart = startDay - ((weekdayOfDay(startDay) - plan.wkst + 7) % 7);
      const periods = Math.floor((Math.floor(from / DAY_MS) - weekStart) / (7 * interval)) - 1;
      if (periods > 0) moveToDay(cursor, weekStart + periods * 7 * interval);
      return cursor;
    }
    case FREQUENCY_RANK.DAILY: {
      const periods = Math.floor((Math.floor(from / DAY_MS) - startDay) / interval) - 1;
      if (periods > 0) moveToDay(cursor, startDay + periods * interval);
      return cursor;
    }
    default: {
      const startHour = startDay * 24 + start.hour;
      const periods = Math.floor((Math.floor(from / HOUR_MS) - startHour) / interval) - 1;
      if (periods > 0) {
        const hour = startHour + periods * interval;
        moveToDay(cursor, Math.floor(hour / 24));
        cursor.hour = ((hour % 24) + 24) % 24;
      }
      return cursor;
    }
  }
}

function moveToDay(cursor: Cursor, day: number): void {
  const date = dateOfDay(day);
  cursor.year = date.year;
  cursor.month = date.month;
  cursor.day = day;
}

function periodStartMs(plan: Plan, cursor: Cursor): number {
  if (plan.rank === FREQUENCY_RANK.YEARLY) return dayNumber(cursor.year, 1, 1) * DAY_MS;
  if (plan.rank === FREQUENCY_RANK.MONTHLY) return dayNumber(cursor.year, cursor.month, 1) * DAY_MS;
  return cursor.day * DAY_MS + (plan.rank === FREQUENCY_RANK.HOURLY ? cursor.hour * HOUR_MS : 0);
}

/** The days (indexes into the year, possibly into the next year's first week) of the period, filtered, and its times. */
function periodOf(
  plan: Plan,
  year: YearInfo,
  cursor: Cursor,
): { days: number[]; times: readonly number[]; filtered: boolean; examined: number } {
  let first: number;
  let end: number;
  const index = cursor.day - year.first;
  switch (plan.rank) {
    case FREQUENCY_RANK.YEARLY:
      [first, end] = [0, year.length];
      break;
    case FREQUENCY_RANK.MONTHLY:
      [first, end] = [year.masks.monthStart[cursor.month - 1] as number, year.masks.monthStart[cursor.month] as number];
      break;
    case FREQUENCY_RANK.WEEKLY:
      first = index;
      end = index + 1;
      // To the day before the next week start (possibly into the next year).
      while (year.weekday(end) !== plan.wkst) end += 1;
      break;
    default:
      [first, end] = [index, index + 1];
  }
  const days: number[] = [];
  let filtered = false;
  for (let day = first; day < end; day += 1) {
    if (year.passes(day, cursor.month)) days.push(day);
    else filtered = true;
  }
  return { days, times: timesOf(plan, cursor), filtered, examined: end - first };
}

function timesOf(plan: Plan, cursor: Cursor): readonly number[] {
  if (plan.rank < FREQUENCY_RANK.HOURLY) return plan.timeset;
  if (plan.byHour !== undefined && !plan.byHour.includes(cursor.hour)) return [];
  const times: number[] = [];
  for (const minute of plan.byMinute) for (const second of plan.bySecond) times.push(((cursor.hour * 60 + minute) * 60 + second) * 1000);
  return times;
}

/** The period's wall times in order: every day × time, or those BYSETPOS picks. */
function candidates(plan: Plan, year: YearInfo, days: readonly number[], times: readonly number[]): number[] {
  if (days.length === 0 || times.length === 0) return [];
  const at = (day: number, time: number) => (year.first + day) * DAY_MS + time;
  if (plan.bySetPos === undefined) return days.flatMap((day) => times.map((time) => at(day, time)));
  const total = days.length * times.length;
  const picked = new Set<number>();
  for (const position of plan.bySetPos) {
    const index = position < 0 ? total + position : position - 1;
    if (index < 0 || index >= total) continue;
    picked.add(at(days[Math.floor(index / times.length)] as number, times[index % times.length] as number));
  }
  return [...picked].sort((a, b) => a - b);
}

/** Moves the cursor to the next period INTERVAL ahead; false past the year 9999. */
function advance(plan: Plan, cursor: Cursor, filtered: boolean): boolean {
  const { interval } = plan;
  switch (plan.rank) {
    case FREQUENCY_RANK.YEARLY:
      cursor.year += interval;
      cursor.day = dayNumber(Math.min(cursor.year, LAST_YEAR + 1), 1, 1);
      break;
    case FREQUENCY_RANK.MONTHLY: {
      const index = cursor.year * 12 + cursor.month - 1 + interval;
      cursor.year = Math.floor(index / 12);
      cursor.month = (index % 12) + 1;
      cursor.day = dayNumber(Math.min(cursor.year, LAST_YEAR + 1), cursor.month, 1);
      break;
    }
    case FREQUENCY_RANK.WEEKLY:
      moveToDay(cursor, cursor.day - ((weekdayOfDay(cursor.day) - plan.wkst + 7) % 7) + 7 * interval);
      break;
    case FREQUENCY_RANK.DAILY:
      moveToDay(cursor, cursor.day + interval);
      break;
    default:
      advanceHour(plan, cursor, filtered);
  }
  return cursor.year <= LAST_YEAR;
}

/** dateutil's hourly step: a filtered day jumps to its last reachable hour; BYHOUR moves to the next hour it names. */
function advanceHour(plan: Plan, cursor: Cursor, filtered: boolean): void {
  const { interval } = plan;
  let hour = cursor.hour;
  if (filtered) hour += Math.floor((23 - hour) / interval) * interval;
  let days = 0;
  if (plan.byHour === undefined) {
    days = Math.floor((hour + interval) / 24);
    hour = (hour + interval) % 24;
  } else {
    // At most 24 steps: reachableHours dropped every hour INTERVAL does not reach.
    for (let step = 0; step < 24; step += 1) {
      days += Math.floor((hour + interval) / 24);
      hour = (hour + interval) % 24;
      if (plan.byHour.includes(hour)) break;
    }
  }
  cursor.hour = hour;
  if (days > 0) moveToDay(cursor, cursor.day + days);
}
