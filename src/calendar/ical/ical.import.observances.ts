import type { ExpansionBudget } from '../recurrence/recurrence.budget.ts';
import { expandRule } from '../recurrence/recurrence.expand.ts';
import { parseRule, RecurrenceError, type RecurrenceTime, type Rule } from '../recurrence/recurrence.grammar.ts';
import { ICAL_LIMITS, IcalSyntaxError, type Component, type ContentLine } from './ical.import.parse.ts';

/**
 * One STANDARD or DAYLIGHT of a VTIMEZONE in an imported file, read and
 * expanded by the recurrence expander over wall times before each onset,
 * for the spans ical.import.zones.ts asks, within the file's expansion
 * budget. Its RRULE is read strictly, and any mistake is an
 * `IcalSyntaxError` naming its line.
 */

export const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const YEAR_MS = 366 * DAY_MS;

/** Milliseconds of a DATE or DATE-TIME value's wall time read as UTC (a DATE at `timeOfDayMs`). */
export function wallMillis(value: string, timeOfDayMs = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(Number(value.slice(0, 4)), Number(value.slice(4, 6)) - 1, Number(value.slice(6, 8)));
  if (value.length < 15) return date.getTime() + timeOfDayMs;
  date.setUTCHours(Number(value.slice(9, 11)), Number(value.slice(11, 13)), Number(value.slice(13, 15)));
  return date.getTime();
}

export const startOfYear = (year: number) => wallMillis(`${String(year).padStart(4, '0')}0101`);

/** One STANDARD or DAYLIGHT: from each onset on, the zone is `offsetTo` from UTC. */
export class Observance {
  constructor(
    readonly component: Component,
    /** Offsets from UTC in milliseconds, before and from each onset. */
    readonly offsetFrom: number,
    readonly offsetTo: number,
    /** Onsets given one by one (DTSTART, RDATE values, the occurrences of a rule with COUNT): instants, in order. */
    private readonly listed: readonly number[],
    /** A rule without COUNT, over wall times before the onset. */
    private readonly rule: YearlyRule | undefined,
  ) {}

  get first(): number {
    return this.listed[0] as number;
  }

  /** Onsets from `from` (inclusive) to `to` (exclusive). */
  onsetsBetween(from: number, to: number, budget: ExpansionBudget): number[] {
    const onsets = new Set(this.listed.slice(countBefore(this.listed, from), countBefore(this.listed, to)));
    for (const wall of this.ruled(from, to - 1, ICAL_LIMITS.zoneChangesPerYear + 1, budget)) onsets.add(wall - this.offsetFrom);
    return [...onsets];
  }

  /** The last onset before `instant`, if any. */
  onsetBefore(instant: number, budget: ExpansionBudget): number | undefined {
    const listed = this.listed[countBefore(this.listed, instant) - 1];
    // Within eight of its intervals, as checkRecurs made sure; a yearly rule's is most often in the year before, so
    // that is looked at first: a year asked costs two years of the rule, not nine.
    const interval = this.rule?.rule.interval ?? 1;
    const within = (intervals: number) =>
      this.ruled(instant - (intervals * interval + 1) * YEAR_MS, instant - 1, Number.MAX_SAFE_INTEGER, budget).at(-1);
    const fromRule = within(1) ?? within(8);
    const ruled = fromRule === undefined ? undefined : fromRule - this.offsetFrom;
    return listed === undefined ? ruled : ruled === undefined ? listed : Math.max(listed, ruled);
  }

  /** The rule's onsets from `from` to `to` (instants, inclusive), as wall times before the onset. */
  private ruled(from: number, to: number, limit: number, budget: ExpansionBudget): number[] {
    const { rule } = this;
    if (rule === undefined) return [];
    const last = Math.min(to + this.offsetFrom, rule.untilWall);
    return expandRule(rule.rule, rule.wallStart, { from: from + this.offsetFrom, to: last, limit, budget });
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
  if (line === undefined) throw new IcalSyntaxError(observance.line, 'ical_observance_without', { name: observance.name, property: name });
  const match = UTC_OFFSET.exec(line.value.trim());
  const [hours = 0, minutes = 0, seconds = 0] = (match?.slice(2, 5) ?? []).map((digits) => Number(digits ?? 0));
  if (match === null || hours > 23 || minutes > 59 || seconds > 59)
    throw new IcalSyntaxError(line.line, 'ical_bad_offset', { property: name, value: line.value });
  return (match[1] === '-' ? -1 : 1) * (hours * HOUR_MS + minutes * 60_000 + seconds * 1000);
}

/** An observance's yearly rule, and where it starts and ends on its clock (wall times before the onset). */
interface YearlyRule {
  readonly rule: Rule;
  readonly wallStart: number;
  readonly untilWall: number;
}

/** The parts a zone's rule takes: zones change their offsets on a rule of the year (the last Sunday of March). */
const ZONE_RULE_PARTS = new Set(['FREQ', 'INTERVAL', 'COUNT', 'UNTIL', 'BYMONTH', 'BYMONTHDAY', 'BYDAY', 'BYSETPOS', 'WKST']);
const SUB_DAILY_PARTS = ['BYHOUR', 'BYMINUTE', 'BYSECOND'];

/**
 * An observance's RRULE, read strictly by the recurrence grammar: FREQ=YEARLY
 * with BYMONTH, BYMONTHDAY, BYDAY, BYSETPOS. Any other frequency is refused,
 * naming the observance (an hourly rule from 1601 held the process for 38 s),
 * and so is any other part.
 */
function readRule(observance: Component, rrule: ContentLine, wallStart: number, offsetFrom: number): YearlyRule {
  const value = rrule.value.trim().toUpperCase();
  const names = value.split(';').map((part) => part.split('=')[0] as string);
  const freq = /(?:^|;)FREQ=([A-Z]*)/.exec(value)?.[1] ?? '';
  const withinDay = SUB_DAILY_PARTS.find((part) => names.includes(part));
  const { name } = observance;
  if (withinDay !== undefined) throw new IcalSyntaxError(observance.line, 'ical_observance_within_day', { name, part: withinDay });
  if (freq !== 'YEARLY') throw new IcalSyntaxError(observance.line, 'ical_observance_frequency', { name, freq });
  const other = names.find((part) => part !== '' && !ZONE_RULE_PARTS.has(part));
  if (other !== undefined)
    throw new IcalSyntaxError(rrule.line, 'ical_observance_rule_part', { name, part: other, parts: [...ZONE_RULE_PARTS].join(', ') });
  let rule: Rule;
  try {
    rule = parseRule(value);
  } catch (error) {
    if (error instanceof RecurrenceError) throw new IcalSyntaxError(rrule.line, 'ical_observance_rule', { name, detail: error.message });
    throw error;
  }
  return { rule, wallStart, untilWall: rule.until === undefined ? Number.MAX_SAFE_INTEGER : untilWallOf(rule.until, offsetFrom) };
}

/** A yearly rule that recurs does so within eight of its intervals (February 29th comes every fourth year); one that does not is refused. */
function checkRecurs(observance: Component, rrule: ContentLine, rule: YearlyRule, budget: ExpansionBudget): void {
  const years = 8 * rule.rule.interval;
  const next = expandRule(rule.rule, rule.wallStart, { from: rule.wallStart + 1, to: rule.wallStart + years * YEAR_MS, limit: 1, budget });
  if (next.length === 0) throw new IcalSyntaxError(rrule.line, 'ical_observance_no_onset', { name: observance.name, years });
}

/** UNTIL bounds onsets as instants; on the rule's clock that is its wall time before the onset (a DATE: its whole day). */
function untilWallOf(until: RecurrenceTime, offsetFrom: number): number {
  if (until.kind === 'date') return wallMillis(until.date.replace(/-/g, ''), DAY_MS - 1000);
  const wall = wallMillis(until.stamp.replace(/[-:]/g, '').replace(' ', 'T'));
  return until.kind === 'utc' ? wall + offsetFrom : wall;
}

/** A value of DTSTART or RDATE as an instant: UTC when it says so, else a wall time before the onset (a DATE at DTSTART's time). */
function onsetOf(value: string, params: Readonly<Record<string, string>>, offsetFrom: number, timeOfDayMs: number): number {
  const moment = params.VALUE?.toUpperCase() === 'PERIOD' ? (value.split('/')[0] ?? '') : value;
  if (params.VALUE?.toUpperCase() === 'DATE') return wallMillis(moment, timeOfDayMs) - offsetFrom;
  return moment.endsWith('Z') ? wallMillis(moment) : wallMillis(moment) - offsetFrom;
}

export function readObservance(component: Component, budget: ExpansionBudget): Observance {
  const property = (name: string) => component.properties.filter((line) => line.name === name);
  const [dtstart] = property('DTSTART');
  if (dtstart === undefined)
    throw new IcalSyntaxError(component.line, 'ical_observance_without', { name: component.name, property: 'DTSTART' });
  const offsetFrom = offsetOf(component, 'TZOFFSETFROM');
  const offsetTo = offsetOf(component, 'TZOFFSETTO');
  const start = onsetOf(dtstart.value.trim(), dtstart.params, offsetFrom, 0);
  const wallStart = start + offsetFrom;
  const timeOfDay = ((wallStart % DAY_MS) + DAY_MS) % DAY_MS;
  const listed = [start];
  const limit = ICAL_LIMITS.zoneOnsetsPerObservance;
  const tooMany = () => new IcalSyntaxError(component.line, 'ical_observance_onsets', { name: component.name, limit });
  for (const rdate of property('RDATE')) {
    for (const value of rdate.value.split(',')) {
      if (listed.length === limit) throw tooMany();
      listed.push(onsetOf(value.trim(), rdate.params, offsetFrom, timeOfDay));
    }
  }
  const [rrule] = property('RRULE');
  const rule = rrule === undefined ? undefined : readRule(component, rrule, wallStart, offsetFrom);
  if (rrule !== undefined && rule !== undefined) checkRecurs(component, rrule, rule, budget);
  const count = rule?.rule.count;
  if (count !== undefined && count > limit) throw tooMany();
  // A rule with COUNT is counted from DTSTART: its few onsets are listed once, here.
  if (rule !== undefined && count !== undefined) {
    const walls = expandRule(rule.rule, wallStart, { from: wallStart, to: rule.untilWall, limit: count, budget });
    listed.push(...walls.map((wall) => wall - offsetFrom));
  }
  const sorted = [...new Set(listed)].sort((a, b) => a - b);
  if (sorted.length > limit) throw tooMany();
  return new Observance(component, offsetFrom, offsetTo, sorted, count === undefined ? rule : undefined);
}
