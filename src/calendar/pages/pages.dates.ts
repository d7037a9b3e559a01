import type { Language } from '../../config/config.ts';

/**
 * Calendar days of the public pages: `YYYY-MM-DD` strings, computed in UTC
 * arithmetic (a day is a wall-clock date, never an instant), and their
 * formatting in a language with Intl.
 */

const DAY_MS = 86_400_000;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const MONTH = /^(\d{4})-(\d{2})$/;

function millisOf(day: string): number {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return Date.UTC(year, month - 1, date);
}

function dayOfMillis(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Years a view may show: its grid, links and bounds stay within the years dates are read in (1000–9999). */
const inYears = (year: string | undefined) => Number(year) >= 1001 && Number(year) <= 9998;

/** A real day of years 1001–9998 (`2026-02-30` is not one), or undefined. */
export function parseDay(text: string): string | undefined {
  const match = DAY.exec(text);
  if (match === null || !inYears(match[1])) return undefined;
  return dayOfMillis(millisOf(text)) === text ? text : undefined;
}

/** A real month `YYYY-MM` of years 1001–9998, or undefined. */
export function parseMonth(text: string): string | undefined {
  const match = MONTH.exec(text);
  if (match === null || !inYears(match[1]) || Number(match[2]) < 1 || Number(match[2]) > 12) return undefined;
  return text;
}

export function addDays(day: string, days: number): string {
  return dayOfMillis(millisOf(day) + days * DAY_MS);
}

export function addMonths(month: string, months: number): string {
  const [year, number] = month.split('-').map(Number) as [number, number];
  return dayOfMillis(Date.UTC(year, number - 1 + months, 1)).slice(0, 7);
}

/** The first day of the week of `day`, weeks starting on `firstDay` (0 Sunday … 6 Saturday; the site's `start_of_week`). */
export function weekStart(day: string, firstDay = 1): string {
  const weekday = (new Date(millisOf(day)).getUTCDay() - firstDay + 7) % 7;
  return addDays(day, -weekday);
}

export function daysBetween(first: string, last: string): string[] {
  const days: string[] = [];
  for (let day = first; day <= last; day = addDays(day, 1)) days.push(day);
  return days;
}

/** The weeks that show a month, each starting on `firstDay` (0 Sunday … 6 Saturday). */
export function monthWeeks(month: string, firstDay = 1): string[][] {
  const first = `${month}-01`;
  const last = addDays(`${addMonths(month, 1)}-01`, -1);
  const days = daysBetween(weekStart(first, firstDay), addDays(weekStart(last, firstDay), 6));
  const weeks: string[][] = [];
  for (let index = 0; index < days.length; index += 7) weeks.push(days.slice(index, index + 7));
  return weeks;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(language: Language, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${language}\u0000${JSON.stringify(options)}`;
  let format = formatters.get(key);
  if (format === undefined) {
    format = new Intl.DateTimeFormat(language, { ...options, timeZone: 'UTC' });
    formatters.set(key, format);
  }
  return format;
}

/** A wall-clock stamp (`YYYY-MM-DD[ HH:MM[:SS]]`) formatted as it reads in its own zone. */
function wall(stamp: string): Date {
  const [day = '', time = '00:00:00'] = stamp.split(' ');
  const [hours = 0, minutes = 0, seconds = 0] = time.split(':').map(Number);
  return new Date(millisOf(day) + ((hours * 60 + minutes) * 60 + seconds) * 1000);
}

/**
 * Texts a page formats, cached: a month of 500 events formats the same
 * few days and times again and again, and each Intl format costs
 * microseconds that add up to milliseconds. Bounded.
 */
const formatted = new Map<string, string>();
const MAX_FORMATTED = 10_000;

function cachedFormat(key: string, make: () => string): string {
  let text = formatted.get(key);
  if (text === undefined) {
    if (formatted.size >= MAX_FORMATTED) formatted.clear();
    text = make();
    formatted.set(key, text);
  }
  return text;
}

const formatOf = (kind: string, options: Intl.DateTimeFormatOptions) => (value: string, language: Language) =>
  cachedFormat(`${kind}\u0000${language}\u0000${value}`, () => formatter(language, options).format(wall(value)));

const formatLongDay = formatOf('day', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
/** A day as the site's date format shows it (`date_format`); by default the language's long date, with its weekday. */
export const formatDay = (day: string, language: Language, dateFormat = '') =>
  dateFormat === '' ? formatLongDay(day, language) : formatInNotation(dateFormat, day, language);
const formatMonthDay = formatOf('month', { month: 'long', year: 'numeric' });
export const formatMonth = (month: string, language: Language) => formatMonthDay(`${month}-01`, language);
// `hour: 'numeric'`: no leading zero ("6:00 PM", "9:30"), in the clock the language uses.
const formatClock = formatOf('time', { hour: 'numeric', minute: '2-digit' });
/**
 * A stamp's time of day as the site's time format shows it (`time_format`); by default in the language's own clock.
 * Only its hours and minutes are shown, so only they are the key.
 */
export const formatTime = (stamp: string, language: Language, timeFormat = '') => {
  const time = `2000-01-01 ${stamp.slice(11, 16) || '00:00'}`;
  return timeFormat === '' ? formatClock(time, language) : formatInNotation(timeFormat, time, language);
};
export const formatWeekdayName = formatOf('weekday', { weekday: 'long' });
export const formatWeekdayShort = formatOf('weekday-short', { weekday: 'short' });
export const formatDate = formatOf('date', { day: 'numeric', month: 'long', year: 'numeric' });
export const formatDayOfMonth = formatOf('day-of-month', { day: 'numeric', month: 'long' });
export const formatMonthName = formatOf('month-name', { month: 'long' });

const pad = (number: number) => String(number).padStart(2, '0');
const ordinal = (day: number) => (day % 100 >= 11 && day % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][day % 10] ?? 'th'));

/** What each letter of WordPress's date and time formats (PHP `date()`) stands for; names in the page's language. */
const LETTERS: Readonly<Record<string, (date: Date, language: Language) => string>> = {
  d: (date) => pad(date.getUTCDate()),
  j: (date) => String(date.getUTCDate()),
  // English ordinals ("1st"); Italian writes none.
  S: (date, language) => (language === 'en' ? ordinal(date.getUTCDate()) : ''),
  D: (date, language) => formatter(language, { weekday: 'short' }).format(date),
  l: (date, language) => formatter(language, { weekday: 'long' }).format(date),
  m: (date) => pad(date.getUTCMonth() + 1),
  n: (date) => String(date.getUTCMonth() + 1),
  F: (date, language) => formatter(language, { month: 'long' }).format(date),
  M: (date, language) => formatter(language, { month: 'short' }).format(date),
  Y: (date) => String(date.getUTCFullYear()),
  y: (date) => pad(date.getUTCFullYear() % 100),
  g: (date) => String(date.getUTCHours() % 12 || 12),
  h: (date) => pad(date.getUTCHours() % 12 || 12),
  G: (date) => String(date.getUTCHours()),
  H: (date) => pad(date.getUTCHours()),
  i: (date) => pad(date.getUTCMinutes()),
  s: (date) => pad(date.getUTCSeconds()),
  a: (date) => (date.getUTCHours() < 12 ? 'am' : 'pm'),
  A: (date) => (date.getUTCHours() < 12 ? 'AM' : 'PM'),
};

/** A wall-clock stamp in WordPress's notation (`F j, Y`, `g:i a`): its letters replaced, a backslash escaping the next, the rest as written. */
export function formatInNotation(format: string, stamp: string, language: Language): string {
  return cachedFormat(`notation\u0000${language}\u0000${format}\u0000${stamp}`, () => {
    const date = wall(stamp);
    let text = '';
    for (let index = 0; index < format.length; index += 1) {
      const letter = format[index] as string;
      if (letter === '\\') {
        index += 1;
        text += format[index] ?? '';
      } else text += LETTERS[letter]?.(date, language) ?? letter;
    }
    return text;
  });
}
