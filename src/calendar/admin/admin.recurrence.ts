import { isValidZoneName, plusCalendar } from '../common/dates.ts';
import { parseRecurrence, RecurrenceError } from '../recurrence/recurrence.grammar.ts';
import { expandRecurrence, type SeriesStart } from '../recurrence/recurrence.rules.ts';

/**
 * The editor's "Repeats" builder: the common rules as form fields, turned into the API's recurrence lines
 * (RFC 5545, docs/calendar-recurrence.md). The API parses and checks the lines; this only writes them.
 */

export const REPEATS = ['none', 'daily', 'weekly', 'monthly', 'yearly', 'custom'] as const;
export type Repeats = (typeof REPEATS)[number];
export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
export const ENDS = ['never', 'until', 'count'] as const;

/** The builder's fields as the form sends them. */
export interface RepeatFields {
  readonly repeats: string;
  readonly interval: string;
  readonly byday: readonly string[];
  readonly monthly: string;
  readonly ends: string;
  readonly until: string;
  readonly count: string;
  readonly exceptions: string;
  readonly rrule: string;
}

/** The builder's lines, or the field (and what is wrong with it) the person must fix. */
export type BuiltRecurrence = { readonly lines: string[] } | { readonly field: keyof RepeatFields; readonly problem: BuilderProblem };
export type BuilderProblem = 'interval' | 'until' | 'count' | 'exceptions' | 'rrule';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const compact = (date: string) => date.replaceAll('-', '');

/** The `n`th weekday of its month of a start date (`2TU`), or the last one (`-1TU`) in the month's last week. */
function weekdayInMonth(startDate: string): string {
  const [year, month, day] = startDate.split('-').map(Number) as [number, number, number];
  const weekday = WEEKDAYS[(new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 6) % 7];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const nth = day + 7 > daysInMonth && day > 28 ? -1 : Math.ceil(day / 7);
  return `${nth}${weekday}`;
}

/** The lines of the builder's choices for a series starting on `startDate` (YYYY-MM-DD); `[]` for "does not repeat". */
export function recurrenceLinesOf(fields: RepeatFields, startDate: string): BuiltRecurrence {
  const exceptions = fields.exceptions.split(/[\s,]+/).filter((date) => date !== '');
  if (exceptions.some((date) => !DATE.test(date))) return { field: 'exceptions', problem: 'exceptions' };
  const exdates = exceptions.length === 0 ? [] : [`EXDATE;VALUE=DATE:${exceptions.map(compact).join(',')}`];
  if (fields.repeats === 'none') return { lines: [] };
  if (fields.repeats === 'custom') {
    const lines = fields.rrule
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '')
      .map((line) => (/^(RRULE|EXDATE|RDATE)[:;]/i.test(line) ? line : `RRULE:${line}`));
    if (lines.length === 0) return { field: 'rrule', problem: 'rrule' };
    return { lines: [...lines, ...exdates] };
  }
  const parts = [`FREQ=${fields.repeats.toUpperCase()}`];
  const interval = fields.interval.trim() === '' ? 1 : Number(fields.interval);
  if (!Number.isInteger(interval) || interval < 1 || interval > 999) return { field: 'interval', problem: 'interval' };
  if (interval > 1) parts.push(`INTERVAL=${interval}`);
  const days = WEEKDAYS.filter((day) => fields.byday.includes(day));
  if (fields.repeats === 'weekly' && days.length > 0) parts.push(`BYDAY=${days.join(',')}`);
  if (fields.repeats === 'monthly' && DATE.test(startDate)) {
    parts.push(fields.monthly === 'weekday' ? `BYDAY=${weekdayInMonth(startDate)}` : `BYMONTHDAY=${Number(startDate.slice(8, 10))}`);
  }
  if (fields.ends === 'until') {
    if (!DATE.test(fields.until)) return { field: 'until', problem: 'until' };
    parts.push(`UNTIL=${compact(fields.until)}T235959Z`);
  } else if (fields.ends === 'count') {
    const count = Number(fields.count);
    if (!Number.isInteger(count) || count < 1 || count > 1000) return { field: 'count', problem: 'count' };
    parts.push(`COUNT=${count}`);
  }
  return { lines: [`RRULE:${parts.join(';')}`, ...exdates] };
}

/** The builder's fields showing stored lines: as they are, in the "RRULE" text, which says everything. */
export function repeatFieldsOf(lines: readonly string[] | undefined): RepeatFields {
  const custom = lines !== undefined && lines.length > 0;
  return {
    repeats: custom ? 'custom' : 'none',
    interval: '1',
    byday: [],
    monthly: 'day',
    ends: 'never',
    until: '',
    count: '',
    exceptions: '',
    rrule: custom ? lines.join('\n') : '',
  };
}

const PREVIEW_COUNT = 10;
const PREVIEW_MONTHS = 24;

/**
 * The first starts a series of these lines would have (local wall times), as the API would store them; or why the
 * lines give none (the recurrence module's own message). Only two years ahead, so a preview stays cheap.
 */
export function previewDates(lines: readonly string[], start: SeriesStart): { dates: string[] } | { error: string } {
  try {
    const recurrence = parseRecurrence(lines, isValidZoneName);
    const until = plusCalendar(start.local, { months: PREVIEW_MONTHS });
    const starts = expandRecurrence(recurrence, start, { until, max: 1000 });
    return { dates: starts.slice(0, PREVIEW_COUNT).map((occurrence) => occurrence.local.slice(0, start.allDay ? 10 : 16)) };
  } catch (error) {
    if (error instanceof RecurrenceError || error instanceof RangeError) return { error: error.message };
    throw error;
  }
}
