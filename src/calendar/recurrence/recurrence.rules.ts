import rrule from 'rrule';
import { fromInstant, fromWallTime, type Stamp } from '../shared/dates.ts';
import { RecurrenceError, type Recurrence, type RecurrenceTime, type Rule } from './recurrence.grammar.ts';

/**
 * The occurrences of a series, correct in its time zone whatever the
 * process's: the rule is expanded over wall times alone — `rrule` in its
 * floating mode, where a Date's UTC fields are the wall time and no zone is
 * ever consulted — and each wall time then becomes an instant in the
 * series' zone as RFC 5545 §3.3.5 says (a time in a DST gap moves forward
 * by the gap, an ambiguous one is the first), the rule every other wall
 * time of the calendar follows (dates.ts `fromWallTime`). UNTIL in UTC is
 * compared with those instants.
 */

// CommonJS: its named exports come with the default one.
const { RRule, Weekday } = rrule;

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

const FREQUENCY = { YEARLY: 0, MONTHLY: 1, WEEKLY: 2, DAILY: 3, HOURLY: 4 } as const;
const WEEKDAY_INDEX = { MO: 0, TU: 1, WE: 2, TH: 3, FR: 4, SA: 5, SU: 6 } as const;

/** A wall time as rrule's floating mode holds it: its fields read as UTC. */
function floating(stamp: Stamp): Date {
  return new Date(`${stamp.replace(' ', 'T')}Z`);
}

function stampOf(date: Date): Stamp {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

function rruleOf(rule: Rule, start: Date): InstanceType<typeof RRule> {
  if (!(rule.freq in FREQUENCY)) throw new RecurrenceError(`FREQ=${rule.freq} is not supported: events recur at most hourly.`);
  return new RRule({
    freq: FREQUENCY[rule.freq as keyof typeof FREQUENCY],
    dtstart: start,
    interval: rule.interval,
    count: rule.count ?? null,
    wkst: rule.wkst === undefined ? null : WEEKDAY_INDEX[rule.wkst],
    bysecond: rule.bySecond === undefined ? null : [...rule.bySecond],
    byminute: rule.byMinute === undefined ? null : [...rule.byMinute],
    byhour: rule.byHour === undefined ? null : [...rule.byHour],
    byweekday: rule.byDay === undefined ? null : rule.byDay.map(({ weekday, ordinal }) => new Weekday(WEEKDAY_INDEX[weekday], ordinal)),
    bymonthday: rule.byMonthDay === undefined ? null : [...rule.byMonthDay],
    byyearday: rule.byYearDay === undefined ? null : [...rule.byYearDay],
    byweekno: rule.byWeekNo === undefined ? null : [...rule.byWeekNo],
    bymonth: rule.byMonth === undefined ? null : [...rule.byMonth],
    bysetpos: rule.bySetPos === undefined ? null : [...rule.bySetPos],
  });
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
    const rule = rruleOf(recurrence.rule, first);
    const kept = floating(from);
    let generated = 0;
    // One past the maximum is enough to know it is exceeded; the rule is never expanded past the horizon.
    const dates = rule
      .between(first, floating(limits.until), true, (date) => date < kept || ++generated <= limits.max + 1)
      .filter((date) => date >= kept);
    for (const date of dates) {
      const occurrence = atWall(stampOf(date), start.zone);
      if (withinUntil(occurrence, recurrence.rule.until, start)) add(occurrence);
    }
    if (dates.length === 0 && !givesAny(rule, recurrence.rule, first)) throw new RecurrenceError('The RRULE gives no occurrence.');
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

/** Whether a rule gives anything at all, searched a bounded span ahead (hourly rules: the stored span only). */
function givesAny(rule: InstanceType<typeof RRule>, parsed: Rule, first: Date): boolean {
  if (parsed.freq === 'HOURLY') return false;
  const end = new Date(first.getTime());
  end.setUTCFullYear(end.getUTCFullYear() + SEARCH_YEARS);
  return rule.between(first, end, true, (_date, count) => count < 1).length > 0;
}
