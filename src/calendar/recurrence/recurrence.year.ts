import { dayNumber, FREQUENCY_RANK, isLeap, weekdayOfDay, type Plan } from './recurrence.plan.ts';

// Day-of-year masks of dateutil, for common and leap years: the month, the day of the month and
// the day counted from the month's end of each day, plus the first week of the next year.
const monthLengths = (leap: boolean) => [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export interface YearMasks {
  readonly month: Int8Array;
  readonly monthDay: Int8Array;
  readonly negativeMonthDay: Int8Array;
  /** Day of the year (0-based) each month starts on, and the year's length last. */
  readonly monthStart: readonly number[];
}

function yearMasks(leap: boolean): YearMasks {
  const lengths = monthLengths(leap);
  const month: number[] = [];
  const monthDay: number[] = [];
  const negativeMonthDay: number[] = [];
  const monthStart = [0];
  lengths.forEach((length, index) => {
    for (let day = 1; day <= length; day += 1) {
      month.push(index + 1);
      monthDay.push(day);
      negativeMonthDay.push(day - length - 1);
    }
    monthStart.push((monthStart.at(-1) as number) + length);
  });
  for (let day = 1; day <= 7; day += 1) {
    month.push(1);
    monthDay.push(day);
    negativeMonthDay.push(day - 32);
  }
  return {
    month: Int8Array.from(month),
    monthDay: Int8Array.from(monthDay),
    negativeMonthDay: Int8Array.from(negativeMonthDay),
    monthStart,
  };
}

const COMMON_YEAR = yearMasks(false);
const LEAP_YEAR = yearMasks(true);

/** What the filters need of one year: dateutil's `_iterinfo`. */
export class YearInfo {
  readonly length: number;
  readonly nextLength: number;
  /** Day number of January 1st. */
  readonly first: number;
  readonly firstWeekday: number;
  readonly masks: YearMasks;
  readonly weekNo?: Uint8Array;
  private ordinalWeekday?: Uint8Array;
  private ordinalMonth = 0;

  constructor(
    readonly year: number,
    private readonly plan: Plan,
  ) {
    this.length = isLeap(year) ? 366 : 365;
    this.nextLength = isLeap(year + 1) ? 366 : 365;
    this.first = dayNumber(year, 1, 1);
    this.firstWeekday = weekdayOfDay(this.first);
    this.masks = this.length === 366 ? LEAP_YEAR : COMMON_YEAR;
    if (plan.byWeekNo !== undefined) this.weekNo = this.weekNumbers(plan.byWeekNo);
  }

  weekday(index: number): number {
    return (this.firstWeekday + index) % 7;
  }

  /** The days of the year in the weeks BYWEEKNO names (ISO 8601 weeks starting on WKST), as dateutil marks them. */
  private weekNumbers(byWeekNo: readonly number[]): Uint8Array {
    const { wkst } = this.plan;
    const mask = new Uint8Array(this.length + 7);
    const firstWkst = (7 - this.firstWeekday + wkst) % 7;
    let week1 = firstWkst;
    let weekYearLength: number;
    if (week1 >= 4) {
      week1 = 0;
      weekYearLength = this.length + ((this.firstWeekday - wkst + 7) % 7);
    } else weekYearLength = this.length - week1;
    const weeks = Math.floor(weekYearLength / 7) + Math.floor((weekYearLength % 7) / 4);
    const markWeek = (from: number) => {
      let index = from;
      for (let day = 0; day < 7; day += 1) {
        mask[index] = 1;
        index += 1;
        if (this.weekday(index) === wkst) break;
      }
    };
    for (const asked of byWeekNo) {
      const week = asked < 0 ? asked + weeks + 1 : asked;
      if (week < 1 || week > weeks) continue;
      markWeek(week > 1 ? week1 + (week - 1) * 7 - (week1 !== firstWkst ? 7 - firstWkst : 0) : week1);
    }
    if (byWeekNo.includes(1)) {
      const index = week1 + weeks * 7 - (week1 !== firstWkst ? 7 - firstWkst : 0);
      if (index < this.length) markWeek(index);
    }
    if (week1 !== 0) {
      let lastYearWeeks = -1;
      if (!byWeekNo.includes(-1)) {
        const lastFirstWeekday = weekdayOfDay(dayNumber(this.year - 1, 1, 1));
        const lastLength = isLeap(this.year - 1) ? 366 : 365;
        const lastWeek1 = (7 - lastFirstWeekday + wkst) % 7;
        lastYearWeeks =
          lastWeek1 >= 4
            ? 52 + Math.floor(((lastLength + ((lastFirstWeekday - wkst + 7) % 7)) % 7) / 4)
            : 52 + Math.floor(((this.length - week1) % 7) / 4);
      }
      if (byWeekNo.includes(lastYearWeeks)) for (let index = 0; index < week1; index += 1) mask[index] = 1;
    }
    return mask;
  }

  /** The days BYDAY ordinals (1MO, -1FR) name, in the year or the month the period covers. */
  ordinalWeekdays(month: number): Uint8Array | undefined {
    const ordinals = this.plan.byOrdinalWeekday;
    if (ordinals === undefined) return undefined;
    if (this.ordinalWeekday !== undefined && (this.plan.rank === FREQUENCY_RANK.YEARLY || this.ordinalMonth === month))
      return this.ordinalWeekday;
    const { monthStart } = this.masks;
    const ranges: [number, number][] =
      this.plan.rank === FREQUENCY_RANK.MONTHLY
        ? [[monthStart[month - 1] as number, monthStart[month] as number]]
        : this.plan.byMonth === undefined
          ? [[0, this.length]]
          : [...this.plan.byMonth].map((asked) => [monthStart[asked - 1] as number, monthStart[asked] as number]);
    const mask = new Uint8Array(this.length);
    for (const [first, end] of ranges) {
      const last = end - 1;
      for (const [weekday, ordinal] of ordinals) {
        const index =
          ordinal < 0
            ? last + (ordinal + 1) * 7 - ((this.weekday(last + (ordinal + 1) * 7) - weekday + 7) % 7)
            : first + (ordinal - 1) * 7 + ((7 - this.weekday(first + (ordinal - 1) * 7) + weekday) % 7);
        if (index >= first && index <= last) mask[index] = 1;
      }
    }
    this.ordinalWeekday = mask;
    this.ordinalMonth = month;
    return mask;
  }

  /** Whether the day at `index` of this year (up to a week into the next) passes every BYxxx day filter. */
  passes(index: number, month: number): boolean {
    const { plan, masks } = this;
    if (plan.byMonth !== undefined && !plan.byMonth.has(masks.month[index] as number)) return false;
    if (this.weekNo !== undefined && this.weekNo[index] !== 1) return false;
    const ordinals = this.ordinalWeekdays(month);
    const plainDay = plan.byWeekday?.has(this.weekday(index)) === true;
    if (plan.byWeekday !== undefined || ordinals !== undefined) {
      // RFC 5545: plain weekdays and ordinals of one BYDAY are a union.
      if (!plainDay && ordinals?.[index] !== 1) return false;
    }
    if (
      (plan.byMonthDay.size > 0 || plan.byNegativeMonthDay.size > 0) &&
      !plan.byMonthDay.has(masks.monthDay[index] as number) &&
      !plan.byNegativeMonthDay.has(masks.negativeMonthDay[index] as number)
    ) {
      return false;
    }
    if (plan.byYearDay !== undefined) {
      const inYear = index < this.length;
      const positive = inYear ? index + 1 : index + 1 - this.length;
      const negative = inYear ? index - this.length : index - this.length - this.nextLength;
      if (!plan.byYearDay.has(positive) && !plan.byYearDay.has(negative)) return false;
    }
    return true;
  }
}
