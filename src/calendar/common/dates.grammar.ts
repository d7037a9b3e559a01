/**
 * The text of a date, as clients send it, read into a typed result: no zone,
 * no clock and no calendar arithmetic here (dates.ts applies the result).
 *
 * Grammar (case-insensitive, tokens separated by spaces or commas):
 *   timestamp   := -?digits | @digits                   UNIX seconds, an instant
 *   iso         := YYYY-MM-DD[(T| )HH:MM[:SS[.frac]]][Z|±HH[:MM]]
 *   keyword     := now | today | midnight | noon | tomorrow | yesterday
 *   relative    := [+|-]N unit[s]                        unit: sec|second|min|minute|hour|day|week|fortnight|month|year
 *   weekday     := [next|last|this] monday…sunday (or mon…sun); next|last day|week|month|year
 *   time        := H[:MM[:SS]](am|pm) | HH:MM[:SS]
 * At most one iso date, one weekday and one time a text; amounts add up.
 */

export interface CalendarDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

export interface TimeOfDay {
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

export type Unit = 'years' | 'months' | 'days' | 'hours' | 'minutes' | 'seconds';

export type Direction = 'next' | 'last' | 'this';

/** A text made of tokens: what each one said, to be applied to "now" in a zone. */
export interface DatePhrase {
  readonly date?: CalendarDate;
  /** Days added by tomorrow/yesterday. */
  readonly dayShift: number;
  /** Whether a keyword (today, midnight, tomorrow, yesterday) starts the day at 00:00:00. */
  readonly resetTime: boolean;
  /** ISO weekday, Monday 1 to Sunday 7. */
  readonly weekday?: { readonly direction: Direction; readonly day: number };
  readonly time?: TimeOfDay;
  /** The ISO text's own offset from UTC: the wall time is read at it instead of in the zone. */
  readonly offsetMinutes?: number;
  /** Signed amounts, applied last. */
  readonly relative: Readonly<Record<Unit, number>>;
  /** Whether anything but "now" and relative units was given. */
  readonly anchored: boolean;
}

export type DateText = { readonly kind: 'timestamp'; readonly seconds: number } | { readonly kind: 'phrase'; readonly phrase: DatePhrase };

const MAX_TEXT_LENGTH = 200;

/** Reads a date text of the grammar; `undefined` when it is not in it. */
export function readDateText(input: string): DateText | undefined {
  if (input.length > MAX_TEXT_LENGTH) return undefined;
  const text = input.trim().toLowerCase();
  if (text === '') return undefined;
  const timestamp = /^@?(?<seconds>-?\d{1,12})$/.exec(text)?.groups?.seconds;
  if (timestamp !== undefined) return { kind: 'timestamp', seconds: Number(timestamp) };
  const phrase = readPhrase(text);
  return phrase === undefined ? undefined : { kind: 'phrase', phrase };
}

// ---------------------------------------------------------------------------
// Words. Maps, not object literals: a word from a request must not find
// Object.prototype's members ("constructor").

const WEEKDAYS: ReadonlyMap<string, number> = new Map(
  Object.entries({
    monday: 1,
    mon: 1,
    tuesday: 2,
    tue: 2,
    tues: 2,
    wednesday: 3,
    wed: 3,
    thursday: 4,
    thu: 4,
    thurs: 4,
    friday: 5,
    fri: 5,
    saturday: 6,
    sat: 6,
    sunday: 7,
    sun: 7,
  }),
);

const UNITS: ReadonlyMap<string, { readonly unit: Unit; readonly factor: number }> = new Map(
  Object.entries({
    sec: { unit: 'seconds', factor: 1 },
    second: { unit: 'seconds', factor: 1 },
    min: { unit: 'minutes', factor: 1 },
    minute: { unit: 'minutes', factor: 1 },
    hour: { unit: 'hours', factor: 1 },
    day: { unit: 'days', factor: 1 },
    week: { unit: 'days', factor: 7 },
    fortnight: { unit: 'days', factor: 14 },
    month: { unit: 'months', factor: 1 },
    year: { unit: 'years', factor: 1 },
  } as const),
);

// ---------------------------------------------------------------------------
// Tokens.

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type Draft = Mutable<Omit<DatePhrase, 'relative'>> & { readonly relative: Record<Unit, number> };
type Groups = Readonly<Record<string, string | undefined>>;

interface TokenRule {
  /** Sticky: it matches at the reader's position only. */
  readonly pattern: RegExp;
  /** Adds the token to the phrase; false when the phrase cannot take it. */
  readonly read: (token: Groups, phrase: Draft) => boolean;
}

/**
 * Tried in this order at each position, the first match taken: a 12-hour time
 * before a 24-hour one (`9:30pm`), a time before an amount (`9 am`), a
 * directed word before a bare one.
 */
const TOKEN_RULES: readonly TokenRule[] = [
  {
    pattern:
      /(?<year>\d{4})-(?<month>\d{1,2})-(?<day>\d{1,2})(?:(?:t|\s+)(?<hour>\d{1,2}):(?<minute>\d{2})(?::(?<second>\d{2})(?:\.\d+)?)?)?(?<offset>z|[+-]\d{2}(?::?\d{2})?)?/y,
    read: readIsoDate,
  },
  { pattern: /(?<hour>\d{1,2})(?::(?<minute>\d{2})(?::(?<second>\d{2}))?)?\s*(?<meridiem>am|pm|a\.m\.|p\.m\.)/y, read: readTwelveHourTime },
  { pattern: /(?<hour>\d{1,2}):(?<minute>\d{2})(?::(?<second>\d{2}))?/y, read: readClockTime },
  {
    pattern: /(?<sign>[+-]?)\s*(?<amount>\d{1,6})\s*(?<unit>second|sec|minute|min|hour|day|week|fortnight|month|year)s?\b/y,
    read: readAmount,
  },
  { pattern: /(?<direction>next|last|this)\s+(?<word>[a-z]+)/y, read: readDirectedWord },
  { pattern: /(?<word>[a-z]+)/y, read: readWord },
];

const SEPARATOR = /[\s,]+/y;

/** The phrase of a trimmed, lower-case text; `undefined` at the first token it cannot read. */
function readPhrase(text: string): DatePhrase | undefined {
  const phrase: Draft = {
    dayShift: 0,
    resetTime: false,
    relative: { years: 0, months: 0, days: 0, hours: 0, minutes: 0, seconds: 0 },
    anchored: false,
  };
  let position = 0;
  while (position < text.length) {
    SEPARATOR.lastIndex = position;
    if (SEPARATOR.test(text)) position = SEPARATOR.lastIndex;
    else position = readToken(text, position, phrase);
    if (position < 0) return undefined;
  }
  return phrase;
}

/** Reads the token at `position` into the phrase; the position after it, or -1. */
function readToken(text: string, position: number, phrase: Draft): number {
  for (const { pattern, read } of TOKEN_RULES) {
    pattern.lastIndex = position;
    const match = pattern.exec(text);
    if (match !== null) return read(match.groups ?? {}, phrase) ? pattern.lastIndex : -1;
  }
  return -1;
}

const numeric = (digits: string | undefined): number => Number(digits ?? '0');

function setTime(phrase: Draft, hour: number, minute: number, second: number): boolean {
  if (phrase.time !== undefined || hour > 23 || minute > 59 || second > 59) return false;
  phrase.time = { hour, minute, second };
  phrase.anchored = true;
  return true;
}

function setWeekday(phrase: Draft, direction: Direction, day: number): boolean {
  if (phrase.weekday !== undefined) return false;
  phrase.weekday = { direction, day };
  phrase.anchored = true;
  return true;
}

function readIsoDate(token: Groups, phrase: Draft): boolean {
  if (phrase.date !== undefined) return false;
  phrase.date = { year: numeric(token.year), month: numeric(token.month), day: numeric(token.day) };
  phrase.anchored = true;
  if (token.hour !== undefined && !setTime(phrase, numeric(token.hour), numeric(token.minute), numeric(token.second))) return false;
  if (token.offset === undefined) return true;
  // An offset says how to read a wall time: a date alone has none.
  if (token.hour === undefined) return false;
  phrase.offsetMinutes = readOffset(token.offset);
  return phrase.offsetMinutes !== undefined;
}

function readOffset(text: string): number | undefined {
  if (text === 'z') return 0;
  const offset = /^(?<sign>[+-])(?<hours>\d{2}):?(?<minutes>\d{2})?$/.exec(text)?.groups;
  if (offset === undefined) return undefined;
  const hours = numeric(offset.hours);
  const minutes = numeric(offset.minutes);
  if (hours > 14 || minutes > 59) return undefined;
  return (offset.sign === '-' ? -1 : 1) * (hours * 60 + minutes);
}

function readTwelveHourTime(token: Groups, phrase: Draft): boolean {
  const hour = numeric(token.hour);
  if (hour < 1 || hour > 12) return false;
  const pm = token.meridiem?.startsWith('p') ?? false;
  return setTime(phrase, (hour % 12) + (pm ? 12 : 0), numeric(token.minute), numeric(token.second));
}

function readClockTime(token: Groups, phrase: Draft): boolean {
  return setTime(phrase, numeric(token.hour), numeric(token.minute), numeric(token.second));
}

function readAmount(token: Groups, phrase: Draft): boolean {
  const step = UNITS.get(token.unit ?? '');
  if (step === undefined) return false;
  phrase.relative[step.unit] += (token.sign === '-' ? -1 : 1) * numeric(token.amount) * step.factor;
  return true;
}

function readDirectedWord(token: Groups, phrase: Draft): boolean {
  const direction = token.direction as Direction;
  const word = token.word ?? '';
  const weekday = WEEKDAYS.get(word);
  if (weekday !== undefined) return setWeekday(phrase, direction, weekday);
  const step = UNITS.get(word);
  if (step === undefined || direction === 'this') return false;
  phrase.relative[step.unit] += (direction === 'last' ? -1 : 1) * step.factor;
  return true;
}

/** What each keyword does to the phrase; false when it cannot. */
const KEYWORDS: ReadonlyMap<string, (phrase: Draft) => boolean> = new Map(
  Object.entries({
    now: () => true,
    today: startDay(0),
    midnight: startDay(0),
    tomorrow: startDay(1),
    yesterday: startDay(-1),
    noon: (phrase: Draft) => setTime(phrase, 12, 0, 0),
  }),
);

/** A keyword that moves to the start of a day `days` away. */
function startDay(days: number): (phrase: Draft) => boolean {
  return (phrase) => {
    phrase.dayShift += days;
    phrase.resetTime = true;
    phrase.anchored = true;
    return true;
  };
}

function readWord(token: Groups, phrase: Draft): boolean {
  const word = token.word ?? '';
  const weekday = WEEKDAYS.get(word);
  if (weekday !== undefined) return setWeekday(phrase, 'this', weekday);
  return KEYWORDS.get(word)?.(phrase) ?? false;
}
