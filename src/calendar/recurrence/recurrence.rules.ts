import { RRuleTemporal } from 'rrule-temporal';
import { fromInstant, fromWallTime, plusCalendar, type Stamp } from '../shared/dates.ts';
import { RecurrenceError, type Recurrence, type RecurrenceTime, type Rule } from './recurrence.grammar.ts';

/**
 * The occurrences of a series, correct in its time zone whatever the
 * process's: the rule is expanded over wall times alone — rrule-temporal
 * on a floating clock (the zone it is given is UTC, whose wall time never
 * jumps), from the options our strict grammar read — and each wall time
 * then becomes an instant in the series' zone as RFC 5545 §3.3.5 says (a
 * time in a DST gap moves forward by the gap, an ambiguous one is the
 * first), the rule every other wall time of the calendar follows (dates.ts
 * `fromWallTime`). UNTIL in UTC is compared with those instants. Given the
 * real zone, the library would drop occurrences in a DST gap (ADR 11).
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
}

// The library's cap on periods searched per call: a century of days, about half a second for a rule that never matches.
const MAX_PERIODS = 40_000;

/** A wall time as a moment of the floating clock (a Date whose UTC fields are the wall time). */
function floating(stamp: Stamp): Date {
  return new Date(`${stamp.replace(' ', 'T')}Z`);
}

const optional = (values: readonly number[] | undefined): number[] | undefined => (values === undefined ? undefined : [...values]);

function rruleOf(rule: Rule, start: Stamp): RRuleTemporal {
  if (rule.freq === 'SECONDLY' || rule.freq === 'MINUTELY') {
    throw new RecurrenceError(`FREQ=${rule.freq} is not supported: events recur at most hourly.`);
  }
  const dtstart = `${start.replace(' ', 'T')}+00:00[UTC]`;
  return new RRuleTemporal({
    freq: rule.freq,
    dtstart: { timeZoneId: 'UTC', toString: () => dtstart },
    tzid: 'UTC',
    interval: rule.interval,
    count: rule.count,
    wkst: rule.wkst,
    bySecond: optional(rule.bySecond),
    byMinute: optional(rule.byMinute),
    byHour: optional(rule.byHour),
    byDay: rule.byDay?.map(({ weekday, ordinal }) => `${ordinal ?? ''}${weekday}`),
    byMonthDay: optional(rule.byMonthDay),
    byYearDay: optional(rule.byYearDay),
    byWeekNo: optional(rule.byWeekNo),
    byMonth: optional(rule.byMonth),
    bySetPos: optional(rule.bySetPos),
    maxIterations: MAX_PERIODS,
    cache: false,
  });
}

/**
 * The rule's wall times from `from` to `to`, at most `limit`. A rule too
 * sparse for the library's cap on periods is refused, never cut short.
 */
function wallTimesBetween(rule: RRuleTemporal, from: Date, to: Date, limit: number): Stamp[] {
  try {
    return rule
      .between(from, to, true)
      .slice(0, limit)
      .map((date) => date.toPlainDateTime().toString().slice(0, 19).replace('T', ' '));
  } catch (error) {
    if (error instanceof Error && /maximum/i.test(error.message)) throw new RecurrenceError('The RRULE is too sparse to expand.');
    throw error;
  }
}

/** An occurrence at a wall time of the series' zone: its real wall time (after a DST gap) and its instant. */
export function atWall(wall: Stamp, zone: string): OccurrenceStart {
  const moment = fromWallTime(wall, zone);
  if (moment === undefined) throw new RecurrenceError(`${wall} is no time.`);
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
  const moment = fromInstant(floating(time.stamp).getTime(), start.zone);
  if (moment === undefined) throw new RecurrenceError(`${time.stamp} is out of range.`);
  return { local: moment.local, utc: moment.utc };
}

/** Whether an occurrence is within the rule's UNTIL (inclusive): by instant when UTC, else by wall time, or by day. */
function withinUntil(occurrence: OccurrenceStart, until: RecurrenceTime | undefined, start: SeriesStart): boolean {
  if (until === undefined) return true;
  if (until.kind === 'date') return occurrence.local.slice(0, 10) <= until.date;
  return occurrence.utc <= occurrenceOf(until, start).utc;
}

/** Whether an EXDATE removes an occurrence: the same instant, or (a day) any occurrence that day. */
function excludes(time: RecurrenceTime, occurrence: OccurrenceStart, start: SeriesStart): boolean {
  return time.kind === 'date' ? occurrence.local.startsWith(time.date) : occurrence.utc === occurrenceOf(time, start).utc;
}

// How far ahead a rule is searched for a first occurrence when the stored span has none (every leap day fits in 8 years).
const SEARCH_YEARS = 8;

/**
 * The starts of a series from its first up to `limits.until`, in order:
 * the series' start itself (RFC 5545: DTSTART is the first instance), what
 * the rule gives, and the RDATEs, less the EXDATEs. Errors (a rule that
 * gives nothing, more than `limits.max`) are RecurrenceErrors.
 */
export function expandRecurrence(recurrence: Recurrence, start: SeriesStart, limits: ExpansionLimits): OccurrenceStart[] {
  const first = floating(start.local);
  const from = limits.from !== undefined && limits.from > start.local ? limits.from : start.local;
  const byInstant = new Map<Stamp, OccurrenceStart>();
  const add = (occurrence: OccurrenceStart) => {
    if (occurrence.local >= from) byInstant.set(occurrence.utc, occurrence);
  };
  add(atWall(start.local, start.zone));
  if (recurrence.rule !== undefined) {
    const rule = rruleOf(recurrence.rule, start.local);
    // Never past the stored span; one past the maximum is enough to know it is exceeded.
    // A rule that never matches is found in a short span first, not at the cap.
    if (!givesAny(rule, first)) throw new RecurrenceError('The RRULE gives no occurrence.');
    // UNTIL decides by instant below; a day past its wall time bounds what the library is asked for.
    const until =
      recurrence.rule.until === undefined ? undefined : plusCalendar(occurrenceOf(recurrence.rule.until, start).local, { days: 1 });
    const last = until !== undefined && until < limits.until ? until : limits.until;
    for (const wall of wallTimesBetween(rule, floating(from), floating(last), limits.max + 1)) {
      const occurrence = atWall(wall, start.zone);
      if (withinUntil(occurrence, recurrence.rule.until, start)) add(occurrence);
    }
  }
  for (const time of recurrence.rdates) {
    const occurrence = occurrenceOf(time, start);
    if (occurrence.utc >= atWall(start.local, start.zone).utc && occurrence.local <= limits.until) add(occurrence);
  }
  for (const [utc, occurrence] of byInstant) {
    if (recurrence.exdates.some((time) => excludes(time, occurrence, start))) byInstant.delete(utc);
  }
  if (byInstant.size === 0) throw new RecurrenceError('Every occurrence is excluded.');
  if (byInstant.size > limits.max) throw new RecurrenceError(`More than ${limits.max} occurrences up to ${limits.until.slice(0, 10)}.`);
  return [...byInstant.values()].sort((a, b) => (a.utc < b.utc ? -1 : a.utc > b.utc ? 1 : 0));
}

/** Whether a rule gives anything at all, searched a bounded span ahead (every leap day fits in it). */
function givesAny(rule: RRuleTemporal, first: Date): boolean {
  const end = new Date(first.getTime());
  end.setUTCFullYear(end.getUTCFullYear() + SEARCH_YEARS);
  return wallTimesBetween(rule, first, end, 1).length > 0;
}
