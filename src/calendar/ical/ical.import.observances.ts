import { RRuleTemporal, type RRuleOptions } from 'rrule-temporal';
import { ICAL_LIMITS, IcalSyntaxError, isIcalDateValue, type Component, type ContentLine } from './ical.import.parse.ts';

/**
 * One STANDARD or DAYLIGHT of a VTIMEZONE in an imported file, read and
 * expanded by rrule-temporal over the wall times of the UTC clock (which
 * never jump), for the spans ical.import.zones.ts asks. Its RRULE is read
 * strictly, and any mistake is an `IcalSyntaxError` naming its line.
 */

export const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * rrule-temporal's cap on the periods (years) one call advances: a yearly
 * rule repeats every 400 years, so one that recurs does so well within it,
 * and one that never does is given up in 40 ms at most. Its cap on
 * candidates stays at its default: a lower one turns off the arithmetic
 * that starts a rule at the year asked (0.02 ms a call, else 0.5).
 */
const MAX_PERIODS = 1_000;

/** Milliseconds of a DATE or DATE-TIME value's wall time read as UTC (a DATE at `timeOfDayMs`). */
export function wallMillis(value: string, timeOfDayMs = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(Number(value.slice(0, 4)), Number(value.slice(4, 6)) - 1, Number(value.slice(6, 8)));
  if (value.length < 15) return date.getTime() + timeOfDayMs;
  date.setUTCHours(Number(value.slice(9, 11)), Number(value.slice(11, 13)), Number(value.slice(13, 15)));
  return date.getTime();
}

export const startOfYear = (year: number) => wallMillis(`${String(year).padStart(4, '0')}0101`);

/** A wall time as rrule-temporal takes one: a time of the UTC clock, whose wall time never jumps. */
function floating(wallMs: number): { timeZoneId: string; toString: () => string } {
  const text = `${new Date(wallMs).toISOString().replace(/\.\d{3}Z$/, '')}+00:00[UTC]`;
  return { timeZoneId: 'UTC', toString: () => text };
}

/** One STANDARD or DAYLIGHT: from each onset on, the zone is `offsetTo` from UTC. */
export class Observance {
  constructor(
    readonly component: Component,
    /** Offsets from UTC in milliseconds, before and from each onset. */
    readonly offsetFrom: number,
    readonly offsetTo: number,
    /** Onsets given one by one (DTSTART, RDATE values, the occurrences of a rule with COUNT): instants, in order. */
    private readonly listed: readonly number[],
    /** A rule without COUNT, over wall times of the UTC clock (as the VTIMEZONE gives them, before the onset). */
    private readonly rule: RRuleTemporal | undefined,
  ) {}

  get first(): number {
    return this.listed[0] as number;
  }

  /** Onsets from `from` (inclusive) to `to` (exclusive). */
  onsetsBetween(from: number, to: number): number[] {
    const onsets = new Set(this.listed.slice(countBefore(this.listed, from), countBefore(this.listed, to)));
    const ruled = expanded(
      this.component,
      () => this.rule?.between(new Date(from + this.offsetFrom), new Date(to + this.offsetFrom), true) ?? [],
    );
    for (const wall of ruled) {
      const instant = wall.epochMilliseconds - this.offsetFrom;
      if (instant >= from && instant < to) onsets.add(instant);
    }
    return [...onsets];
  }

  /** The last onset before `instant`, if any. */
  onsetBefore(instant: number): number | undefined {
    const listed = this.listed[countBefore(this.listed, instant) - 1];
    const ruled = expanded(this.component, () => this.rule?.previous(new Date(instant + this.offsetFrom)));
    const fromRule = ruled === null || ruled === undefined ? undefined : ruled.epochMilliseconds - this.offsetFrom;
    return listed === undefined ? fromRule : fromRule === undefined ? listed : Math.max(listed, fromRule);
  }
}

/** rrule-temporal's answer; its refusals (a cap reached, a date past its range) refuse the observance. */
function expanded<T>(observance: Component, query: () => T): T {
  try {
    return query();
  } catch {
    throw new IcalSyntaxError(
      observance.line,
      `the RRULE of ${observance.name} cannot be expanded: it recurs too rarely, or past the years a calendar holds.`,
    );
  }
}

/** How many instants of a sorted list are before `instant`. */
export function countBefore(instants: readonly number[], instant: number): number {
  let low = 0;
  let high = instants.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((instants[middle] as number) < instant) low = middle + 1;
    else high = middle;
  }
  return low;
}

const UTC_OFFSET = /^([+-])(\d{2}):?(\d{2})(\d{2})?$/;

function offsetOf(observance: Component, name: 'TZOFFSETFROM' | 'TZOFFSETTO'): number {
  const line = observance.properties.find((property) => property.name === name);
  if (line === undefined) throw new IcalSyntaxError(observance.line, `${observance.name} without ${name}.`);
  const match = UTC_OFFSET.exec(line.value.trim());
  const [hours = 0, minutes = 0, seconds = 0] = (match?.slice(2, 5) ?? []).map((digits) => Number(digits ?? 0));
  if (match === null || hours > 23 || minutes > 59 || seconds > 59)
    throw new IcalSyntaxError(line.line, `${name} "${line.value}" is no UTC offset (±HHMM).`);
  return (match[1] === '-' ? -1 : 1) * (hours * HOUR_MS + minutes * 60_000 + seconds * 1000);
}

const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
const SUB_DAILY_PARTS = ['BYHOUR', 'BYMINUTE', 'BYSECOND'];
/** The BY… parts of numbers a zone's rule takes, with their largest magnitude (RFC 5545 §3.3.10). */
const NUMBER_LISTS: Readonly<Record<string, { readonly max: number; readonly signed: boolean }>> = {
  BYMONTH: { max: 12, signed: false },
  BYMONTHDAY: { max: 31, signed: true },
  BYSETPOS: { max: 366, signed: true },
};
const RULE_PARTS = ['FREQ', 'INTERVAL', 'COUNT', 'UNTIL', 'BYMONTH', 'BYMONTHDAY', 'BYDAY', 'BYSETPOS', 'WKST'];

type RuleOptions = Exclude<RRuleOptions, { rruleString: string }>;

/**
 * An observance's RRULE, read strictly. Zones change their offsets on a
 * rule of the year (the last Sunday of March): FREQ=YEARLY, with BYMONTH,
 * BYMONTHDAY, BYDAY, BYSETPOS. Any other frequency is refused, naming the
 * observance (an hourly rule from 1601 was the 38 s; rrule-temporal spends
 * up to 1.5 s in one call on a sparse daily, weekly or monthly rule, or on
 * BYWEEKNO and BYYEARDAY, which no zone uses), and so is any other part.
 */
function readRule(observance: Component, rrule: ContentLine, wallStart: number, offsetFrom: number): RuleOptions {
  const wrong = (message: string) => new IcalSyntaxError(rrule.line, `RRULE of ${observance.name}: ${message}`);
  const parts = new Map<string, string>();
  const texts = rrule.value.trim().split(';');
  for (const part of texts.filter((text) => text !== '')) {
    const equals = part.indexOf('=');
    if (equals < 1) throw wrong(`"${part}" is no NAME=VALUE part.`);
    parts.set(part.slice(0, equals).toUpperCase(), part.slice(equals + 1));
  }
  const freq = parts.get('FREQ')?.toUpperCase() ?? '';
  const withinDay = SUB_DAILY_PARTS.find((part) => parts.has(part));
  if (freq !== 'YEARLY' || withinDay !== undefined) {
    const how = withinDay === undefined ? `FREQ=${freq}` : `within a day (${withinDay})`;
    throw new IcalSyntaxError(observance.line, `${observance.name} recurs ${how}: a time zone's observances recur yearly (FREQ=YEARLY).`);
  }
  const options: RuleOptions = { freq: 'YEARLY', dtstart: floating(wallStart), tzid: 'UTC', maxIterations: MAX_PERIODS, cache: false };
  for (const [name, value] of parts) {
    const numbers = NUMBER_LISTS[name];
    if (!RULE_PARTS.includes(name)) throw wrong(`${name} is not a part a time zone's rule takes (${RULE_PARTS.join(', ')}).`);
    if (name === 'INTERVAL' || name === 'COUNT') {
      if (!/^\d{1,9}$/.test(value) || Number(value) === 0) throw wrong(`${name} "${value}" is no positive whole number.`);
      if (name === 'INTERVAL') options.interval = Number(value);
      else options.count = Number(value);
    } else if (name === 'UNTIL') {
      const isDate = isIcalDateValue(value, true);
      if (!isDate && !isIcalDateValue(value, false)) throw wrong(`UNTIL "${value}" is no DATE or DATE-TIME.`);
      // UNTIL bounds onsets as instants; on the rule's clock that is its wall time before the onset.
      const wall = isDate ? wallMillis(value, DAY_MS - 1000) : value.endsWith('Z') ? wallMillis(value) + offsetFrom : wallMillis(value);
      options.until = floating(wall);
    } else if (name === 'BYDAY') {
      options.byDay = value.split(',').map((day) => {
        const match = /^([+-]?\d{1,2})?([A-Z]{2})$/i.exec(day);
        if (match === null || !WEEKDAYS.includes(match[2]?.toUpperCase() ?? '') || Math.abs(Number(match[1] ?? 1)) > 53 || match[1] === '0')
          throw wrong(`BYDAY "${day}" is no weekday.`);
        return day.toUpperCase();
      });
    } else if (name === 'WKST') {
      if (!WEEKDAYS.includes(value.toUpperCase())) throw wrong(`WKST "${value}" is no weekday.`);
      options.wkst = value.toUpperCase();
    } else if (numbers !== undefined) {
      const list = value.split(',').map(Number);
      const fits = (item: number) => Number.isInteger(item) && item !== 0 && Math.abs(item) <= numbers.max && (numbers.signed || item > 0);
      if (!list.every(fits)) throw wrong(`${name} "${value}" holds a value outside ${numbers.signed ? '±' : ''}1–${numbers.max}.`);
      const distinct = [...new Set(list)];
      if (name === 'BYMONTH') options.byMonth = distinct;
      else if (name === 'BYMONTHDAY') options.byMonthDay = distinct;
      else options.bySetPos = distinct;
    }
  }
  return options;
}

/** A value of DTSTART or RDATE as an instant: UTC when it says so, else a wall time before the onset (a DATE at DTSTART's time). */
function onsetOf(value: string, params: Readonly<Record<string, string>>, offsetFrom: number, timeOfDayMs: number): number {
  const moment = params.VALUE?.toUpperCase() === 'PERIOD' ? (value.split('/')[0] ?? '') : value;
  if (params.VALUE?.toUpperCase() === 'DATE') return wallMillis(moment, timeOfDayMs) - offsetFrom;
  return moment.endsWith('Z') ? wallMillis(moment) : wallMillis(moment) - offsetFrom;
}

export function readObservance(component: Component): Observance {
  const property = (name: string) => component.properties.filter((line) => line.name === name);
  const [dtstart] = property('DTSTART');
  if (dtstart === undefined) throw new IcalSyntaxError(component.line, `${component.name} without DTSTART.`);
  const offsetFrom = offsetOf(component, 'TZOFFSETFROM');
  const offsetTo = offsetOf(component, 'TZOFFSETTO');
  const start = onsetOf(dtstart.value.trim(), dtstart.params, offsetFrom, 0);
  const wallStart = start + offsetFrom;
  const timeOfDay = ((wallStart % DAY_MS) + DAY_MS) % DAY_MS;
  const listed = [start];
  const limit = ICAL_LIMITS.zoneOnsetsPerObservance;
  const tooMany = () => new IcalSyntaxError(component.line, `${component.name} lists more than ${limit} onsets (DTSTART, RDATE, COUNT).`);
  for (const rdate of property('RDATE')) {
    for (const value of rdate.value.split(',')) {
      if (listed.length === limit) throw tooMany();
      listed.push(onsetOf(value.trim(), rdate.params, offsetFrom, timeOfDay));
    }
  }
  const [rrule] = property('RRULE');
  const options = rrule === undefined ? undefined : readRule(component, rrule, wallStart, offsetFrom);
  if (options?.count !== undefined && options.count > limit) throw tooMany();
  const rule = options === undefined ? undefined : expanded(component, () => new RRuleTemporal(options));
  // A rule with COUNT is counted from DTSTART on every query: its few onsets are listed once, here.
  if (options?.count !== undefined && rule !== undefined) {
    listed.push(...expanded(component, () => rule.all()).map((wall) => wall.epochMilliseconds - offsetFrom));
  }
  const sorted = [...new Set(listed)].sort((a, b) => a - b);
  if (sorted.length > limit) throw tooMany();
  return new Observance(component, offsetFrom, offsetTo, sorted, options?.count === undefined ? rule : undefined);
}
