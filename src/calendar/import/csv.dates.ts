import { ImportProblemError } from '../common/import-problems.ts';

/**
 * Dates and times as people type them in a spreadsheet: ISO (`2026-12-03`),
 * day first or month first (`3/12/2026`, `12.3.2026`, `3-12-2026`) and
 * times on 24 or 12 hours (`14:30`, `14.30`, `2:30 pm`, `2pm`). A day-first
 * or month-first date is read in the order given; without one, a date whose
 * first two numbers could both be the month is refused rather than guessed.
 */

export type DateOrder = 'dmy' | 'mdy';

export const DATE_ORDERS: readonly DateOrder[] = ['dmy', 'mdy'];

/** A date or time that cannot be read: why, in words for the person who typed it. */
export class DateTextProblem extends ImportProblemError {}

const pad = (value: number) => String(value).padStart(2, '0');

function isRealDate(year: number, month: number, day: number): boolean {
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function dateOf(year: number, month: number, day: number, text: string): string {
  if (!isRealDate(year, month, day)) throw new DateTextProblem('csv_no_such_date', { value: text });
  return `${String(year).padStart(4, '0')}-${pad(month)}-${pad(day)}`;
}

const ISO = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$/;
const NUMERIC = /^(\d{1,2})([/.-])(\d{1,2})\2(\d{4})$/;

/** `YYYY-MM-DD` of a typed date; `order` settles `1/2/2026`. */
export function parseDateText(text: string, order: DateOrder | undefined): string {
  const trimmed = text.trim();
  const iso = ISO.exec(trimmed);
  if (iso !== null) return dateOf(Number(iso[1]), Number(iso[2]), Number(iso[3]), trimmed);
  const numeric = NUMERIC.exec(trimmed);
  if (numeric === null) throw new DateTextProblem('csv_not_date', { value: trimmed });
  const first = Number(numeric[1]);
  const second = Number(numeric[3]);
  const year = Number(numeric[4]);
  let dayFirst: boolean;
  if (order !== undefined) dayFirst = order === 'dmy';
  else if (first === second || first > 12 || second > 12) dayFirst = first > 12 || first === second;
  else throw new DateTextProblem('csv_day_or_month', { value: trimmed });
  return dayFirst ? dateOf(year, second, first, trimmed) : dateOf(year, first, second, trimmed);
}

const TWELVE = /^(\d{1,2})(?:[:.](\d{2}))?(?::(\d{2}))?\s*([ap])\.?\s*m\.?$/i;
const TWENTY_FOUR = /^(\d{1,2})[:.](\d{2})(?::(\d{2}))?$/;

/** `HH:MM:SS` of a typed time of day. */
export function parseTimeText(text: string): string {
  const trimmed = text.trim();
  const twelve = TWELVE.exec(trimmed);
  const twentyFour = TWENTY_FOUR.exec(trimmed);
  const minute = Number((twelve ?? twentyFour)?.[2] ?? 0);
  const second = Number((twelve ?? twentyFour)?.[3] ?? 0);
  let hour: number;
  if (twelve !== null) {
    const clock = Number(twelve[1]);
    if (clock < 1 || clock > 12) throw new DateTextProblem('csv_twelve_hours', { value: trimmed });
    hour = (clock % 12) + ((twelve[4] as string).toLowerCase() === 'p' ? 12 : 0);
  } else if (twentyFour !== null) {
    hour = Number(twentyFour[1]);
  } else {
    throw new DateTextProblem('csv_not_time', { value: trimmed });
  }
  if (hour > 23 || minute > 59 || second > 59) throw new DateTextProblem('csv_no_such_time', { value: trimmed });
  return `${pad(hour)}:${pad(minute)}:${pad(second)}`;
}

/**
 * A date cell that may carry its time too (`2026-12-03 14:30`, `2026-12-03T14:30:00`, `3/12/2026 2 pm`):
 * the date, and the time when there is one.
 */
export function parseDateTimeText(text: string, order: DateOrder | undefined): { date: string; time: string | undefined } {
  const trimmed = text.trim();
  const match = /^(\S+?)(?:[T\s]+(.+))?$/.exec(trimmed);
  const datePart = match?.[1] ?? trimmed;
  const timePart = match?.[2];
  return { date: parseDateText(datePart, order), time: timePart === undefined ? undefined : parseTimeText(timePart) };
}
