import { wallOfMillis } from '../common/dates.ts';
import { RecurrenceError, type Rule, type Weekday } from './recurrence.grammar.ts';

/**
 * A rule ready to expand (recurrence.expand.ts): its BYxxx parts as the sets
 * the day filters ask, with the defaults RFC 5545 takes from DTSTART filled
 * in as python-dateutil fills them, and the calendar arithmetic on day
 * numbers (days since 1970-01-01) that expansion runs on.
 */

export const DAY_MS = 86_400_000;

export const FREQUENCY_RANK = { YEARLY: 0, MONTHLY: 1, WEEKLY: 2, DAILY: 3, HOURLY: 4, MINUTELY: 5, SECONDLY: 6 } as const;
const WEEKDAY_INDEX: Readonly<Record<Weekday, number>> = { MO: 0, TU: 1, WE: 2, TH: 3, FR: 4, SA: 5, SU: 6 };

export const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
/**
 * The day number of a date, and the date of a day number, in the proleptic
 * Gregorian calendar (Howard Hinnant's days_from_civil and civil_from_days):
 * integer arithmetic, no Date object per period visited.
 */
export function dayNumber(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

export function dateOfDay(dayNumberValue: number): { year: number; month: number; day: number } {
  const z = dayNumberValue + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shifted = Math.floor((5 * dayOfYear + 2) / 153);
  const month = shifted < 10 ? shifted + 3 : shifted - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day: dayOfYear - Math.floor((153 * shifted + 2) / 5) + 1 };
}

/** Monday 0 … Sunday 6 (1970-01-01 was a Thursday). */
export const weekdayOfDay = (day: number) => (((day + 3) % 7) + 7) % 7;

/** The rule with dateutil's defaults from DTSTART, in the sets the filters ask. */
export interface Plan {
  readonly rank: number;
  readonly interval: number;
  readonly count?: number;
  readonly wkst: number;
  readonly bySetPos?: readonly number[];
  readonly byMonth?: ReadonlySet<number>;
  readonly byYearDay?: ReadonlySet<number>;
  readonly byMonthDay: ReadonlySet<number>;
  readonly byNegativeMonthDay: ReadonlySet<number>;
  readonly byWeekNo?: readonly number[];
  readonly byWeekday?: ReadonlySet<number>;
  readonly byOrdinalWeekday?: readonly (readonly [weekday: number, ordinal: number])[];
  readonly byHour?: readonly number[];
  readonly byMinute: readonly number[];
  readonly bySecond: readonly number[];
  /** Times of day (ms) of every day that passes, for rules coarser than hourly. */
  readonly timeset: readonly number[];
}

/** A wall time's fields, from milliseconds of the floating clock (dates.ts reads them). */
export type Wall = ReturnType<typeof wallOfMillis>;

const sorted = (values: Iterable<number>) => [...new Set(values)].sort((a, b) => a - b);

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

export function planOf(rule: Rule, start: Wall): Plan {
  const rank = FREQUENCY_RANK[rule.freq];
  if (rank > FREQUENCY_RANK.HOURLY) throw new RecurrenceError(`FREQ=${rule.freq} is not supported: events recur at most hourly.`);
  let byMonth = rule.byMonth;
  let byMonthDay = rule.byMonthDay;
  let byDay = rule.byDay;
  if (rule.byWeekNo === undefined && rule.byYearDay === undefined && byMonthDay === undefined && byDay === undefined) {
    if (rank === FREQUENCY_RANK.YEARLY) {
      byMonth ??= [start.month];
      byMonthDay = [start.day];
    } else if (rank === FREQUENCY_RANK.MONTHLY) byMonthDay = [start.day];
    else if (rank === FREQUENCY_RANK.WEEKLY)
      byDay = [{ weekday: weekdayName(weekdayOfDay(dayNumber(start.year, start.month, start.day))) }];
  }
  const ordinalsCount = rank <= FREQUENCY_RANK.MONTHLY;
  const plain = byDay?.filter((day) => day.ordinal === undefined || !ordinalsCount).map((day) => WEEKDAY_INDEX[day.weekday]);
  const ordinal = byDay
    ?.filter((day) => day.ordinal !== undefined && ordinalsCount)
    .map((day) => [WEEKDAY_INDEX[day.weekday], day.ordinal as number] as const);
  const byHour = rule.byHour === undefined ? (rank < FREQUENCY_RANK.HOURLY ? [start.hour] : undefined) : reachableHours(rule, start);
  const byMinute = sorted(rule.byMinute ?? [start.minute]);
  const bySecond = sorted(rule.bySecond ?? [start.second]);
  const timeset: number[] = [];
  if (rank < FREQUENCY_RANK.HOURLY) {
    for (const hour of byHour ?? [])
      for (const minute of byMinute) for (const second of bySecond) timeset.push(((hour * 60 + minute) * 60 + second) * 1000);
  }
  return {
    rank,
    interval: rule.interval,
    ...(rule.count === undefined ? {} : { count: rule.count }),
    wkst: WEEKDAY_INDEX[rule.wkst ?? 'MO'],
    ...(rule.bySetPos === undefined ? {} : { bySetPos: rule.bySetPos }),
    ...(byMonth === undefined ? {} : { byMonth: new Set(byMonth) }),
    ...(rule.byYearDay === undefined ? {} : { byYearDay: new Set(rule.byYearDay) }),
    byMonthDay: new Set(byMonthDay?.filter((day) => day > 0)),
    byNegativeMonthDay: new Set(byMonthDay?.filter((day) => day < 0)),
    ...(rule.byWeekNo === undefined ? {} : { byWeekNo: rule.byWeekNo }),
    ...(plain === undefined || plain.length === 0 ? {} : { byWeekday: new Set(plain) }),
    ...(ordinal === undefined || ordinal.length === 0 ? {} : { byOrdinalWeekday: ordinal }),
    ...(byHour === undefined ? {} : { byHour: sorted(byHour) }),
    byMinute,
    bySecond,
    timeset: timeset.sort((a, b) => a - b),
  };
}

function weekdayName(index: number): Weekday {
  return (Object.keys(WEEKDAY_INDEX) as Weekday[])[index] as Weekday;
}

/** An hourly rule's BYHOUR less the hours its INTERVAL never reaches from DTSTART's hour; none left is an error. */
function reachableHours(rule: Rule, start: Wall): number[] {
  const hours = rule.byHour ?? [];
  if (rule.freq !== 'HOURLY') return [...hours];
  const step = gcd(rule.interval, 24);
  const reached = hours.filter((hour) => (((hour - start.hour) % step) + step) % step === 0);
  if (reached.length === 0) throw new RecurrenceError(`BYHOUR: INTERVAL=${rule.interval} from ${start.hour}:00 never reaches these hours.`);
  return reached;
}
