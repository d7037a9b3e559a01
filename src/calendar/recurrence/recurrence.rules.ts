import { fromInstant, fromWallMillis, fromWallTime, plusCalendar, type Stamp } from '../common/dates.ts';
import { ExpansionBudget } from './recurrence.budget.ts';
import { expandRule } from './recurrence.expand.ts';
import { RecurrenceError, type Recurrence, type RecurrenceTime } from './recurrence.grammar.ts';

/**
 * The occurrences of a series, correct in its time zone whatever the
 * process's: the rule is expanded over wall times alone, on a floating
 * clock (recurrence.expand.ts), and each wall time then becomes an instant
 * in the series' zone as RFC 5545 §3.3.5 says (a time in a DST gap moves
 * forward by the gap, an ambiguous one is the first), the rule every other
 * wall time of the calendar follows (dates.ts `fromWallTime`). UNTIL in UTC
 * is compared with those instants. Every step — periods of the rule, wall
 * times mapped, RDATEs and EXDATEs read — is counted by one
 * `ExpansionBudget`, so a series costs bounded time whatever it says.
 */

/** Where a series starts: its start's wall time in its zone, or its first day when it lasts whole days. */
export interface SeriesStart {
  readonly local: Stamp;
  readonly zone: string;
  readonly allDay: boolean;
}

/** The start of one occurrence as its rule gives it. */
export interface OccurrenceStart {
  readonly local: Stamp;
  readonly utc: Stamp;
}

export interface ExpansionLimits {
  /** The first wall time to store occurrences from (open-ended rules keep a window); the series' start when absent. */
  readonly from?: Stamp;
  /** The last wall time (in the series' zone) to store occurrences up to; later ones wait for a later horizon. */
  readonly until: Stamp;
  /** More occurrences than this, up to `until`, is an error. */
  readonly max: number;
  /** What the expansion may spend; a fresh standard budget when absent. */
  readonly budget?: ExpansionBudget;
}

/** The calendar's last wall time: later stamps (five-digit years) would not even sort. */
export const LAST_STAMP: Stamp = '9999-12-31 23:59:59';
export const atMostLast = (stamp: Stamp): Stamp => (stamp.length > LAST_STAMP.length || stamp > LAST_STAMP ? LAST_STAMP : stamp);

/** A wall time as milliseconds of the floating clock (the wall time read as UTC). */
const wallMs = (stamp: Stamp): number => Date.parse(`${stamp.replace(' ', 'T')}Z`);

/** An occurrence at a wall time of the series' zone: its real wall time (after a DST gap) and its instant. */
export function atWall(wall: Stamp, zone: string): OccurrenceStart {
  const moment = fromWallTime(wall, zone);
  if (moment === undefined) throw new RecurrenceError(`${wall} is no time.`);
  return { local: moment.local, utc: moment.utc };
}

/** The same for a wall time the expander gives (milliseconds of the floating clock): no stamp written and read back. */
function atWallMillis(wallMs: number, zone: string): OccurrenceStart {
  const moment = fromWallMillis(wallMs, zone);
  if (moment === undefined) throw new RecurrenceError(`${new Date(wallMs).toISOString()} is out of range.`);
  return { local: moment.local, utc: moment.utc };
}

/** An RDATE or EXDATE moment as an occurrence of the series (a day: at the series' time of day). */
export function occurrenceOf(time: RecurrenceTime, start: SeriesStart): OccurrenceStart {
  if (time.kind === 'date') return atWall(`${time.date} ${start.local.slice(11)}`, start.zone);
  if (time.kind === 'local') {
    if (time.zone === undefined || time.zone === start.zone) return atWall(time.stamp, start.zone);
    const there = fromWallTime(time.stamp, time.zone);
    const here = there === undefined ? undefined : fromInstant(there.epochMs, start.zone);
    if (here === undefined) throw new RecurrenceError(`${time.stamp} in ${time.zone} is no time.`);
    return { local: here.local, utc: here.utc };
  }
  const moment = fromInstant(wallMs(time.stamp), start.zone);
  if (moment === undefined) throw new RecurrenceError(`${time.stamp} is out of range.`);
  return { local: moment.local, utc: moment.utc };
}

/** What the EXDATEs remove, read once: instants, and whole days (every occurrence that day). */
function exclusionsOf(exdates: readonly RecurrenceTime[], start: SeriesStart, budget: ExpansionBudget) {
  const instants = new Set<Stamp>();
  const days = new Set<string>();
  for (const time of exdates) {
    budget.step();
    if (time.kind === 'date') days.add(time.date);
    else instants.add(occurrenceOf(time, start).utc);
  }
  return (occurrence: OccurrenceStart) => instants.has(occurrence.utc) || days.has(occurrence.local.slice(0, 10));
}

// How far ahead a rule is searched for a first occurrence (every leap day fits in 8 years).
const SEARCH_YEARS = 8;

/**
 * The starts of a series from its first up to `limits.until`, in order:
 * the series' start itself (RFC 5545: DTSTART is the first instance), what
 * the rule gives, and the RDATEs, less the EXDATEs. Errors (a rule that
 * gives nothing, more than `limits.max`, over budget) are RecurrenceErrors.
 */
export function expandRecurrence(recurrence: Recurrence, start: SeriesStart, limits: ExpansionLimits): OccurrenceStart[] {
  const budget = limits.budget ?? ExpansionBudget.standard();
  const first = atWall(start.local, start.zone);
  const from = limits.from !== undefined && limits.from > start.local ? limits.from : start.local;
  const byInstant = new Map<Stamp, OccurrenceStart>();
  const add = (occurrence: OccurrenceStart) => {
    if (occurrence.local >= from) byInstant.set(occurrence.utc, occurrence);
  };
  add(first);
  const { rule } = recurrence;
  if (rule !== undefined) {
    const startMs = wallMs(start.local);
    const searchEnd = atMostLast(plusCalendar(start.local, { months: SEARCH_YEARS * 12 }));
    if (expandRule(rule, startMs, { from: startMs, to: wallMs(searchEnd), limit: 1, budget }).length === 0) {
      throw new RecurrenceError(`The RRULE gives no occurrence within ${SEARCH_YEARS} years.`);
    }
    // UNTIL decides by instant below; a day past its wall time bounds the wall times asked for.
    const until = rule.until === undefined ? undefined : occurrenceOf(rule.until, start);
    const untilBound = until === undefined ? undefined : atMostLast(plusCalendar(until.local, { days: 1 }));
    const last = untilBound !== undefined && untilBound < limits.until ? untilBound : limits.until;
    // One past the maximum is enough to know it is exceeded.
    for (const wall of expandRule(rule, startMs, { from: wallMs(from), to: wallMs(last), limit: limits.max + 1, budget })) {
      budget.step();
      const occurrence = atWallMillis(wall, start.zone);
      const within =
        until === undefined ||
        (rule.until?.kind === 'date' ? occurrence.local.slice(0, 10) <= rule.until.date : occurrence.utc <= until.utc);
      if (within) add(occurrence);
    }
  }
  for (const time of recurrence.rdates) {
    budget.step();
    const occurrence = occurrenceOf(time, start);
    if (occurrence.utc >= first.utc && occurrence.local <= limits.until) add(occurrence);
  }
  const excluded = exclusionsOf(recurrence.exdates, start, budget);
  for (const [utc, occurrence] of byInstant) if (excluded(occurrence)) byInstant.delete(utc);
  if (byInstant.size === 0) throw new RecurrenceError('Every occurrence is excluded.');
  if (byInstant.size > limits.max) throw new RecurrenceError(`More than ${limits.max} occurrences up to ${limits.until.slice(0, 10)}.`);
  return [...byInstant.values()].sort((a, b) => (a.utc < b.utc ? -1 : a.utc > b.utc ? 1 : 0));
}
