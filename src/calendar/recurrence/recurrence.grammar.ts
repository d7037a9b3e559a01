/**
 * The `recurrence` of an event, as Google Calendar's API carries it — RFC
 * 5545 content lines without DTSTART — read strictly into a typed value:
 * a part, a value or a combination the RFC does not define is an error
 * naming it, never ignored. No zone and no expansion here (see
 * recurrence.rules.ts).
 *
 *   RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE;UNTIL=20271231T230000Z
 *   EXDATE;TZID=Europe/Rome:20270104T100000,20270111T100000
 *   EXDATE;VALUE=DATE:20270104
 *   RDATE:20270120T090000Z
 */

export const FREQUENCIES = ['SECONDLY', 'MINUTELY', 'HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface WeekdayNum {
  /** The n-th (negative: from the end) of the month or year; absent: every one. */
  readonly ordinal?: number;
  readonly weekday: Weekday;
}

export interface Rule {
  readonly freq: Frequency;
  readonly interval: number;
  readonly count?: number;
  readonly until?: RecurrenceTime;
  readonly bySecond?: readonly number[];
  readonly byMinute?: readonly number[];
  readonly byHour?: readonly number[];
  readonly byDay?: readonly WeekdayNum[];
  readonly byMonthDay?: readonly number[];
  readonly byYearDay?: readonly number[];
  readonly byWeekNo?: readonly number[];
  readonly byMonth?: readonly number[];
  readonly bySetPos?: readonly number[];
  readonly wkst?: Weekday;
}

/** A moment of a rule: a whole day, a UTC instant, or a wall time (in `zone`, else the series' zone). */
export type RecurrenceTime =
  | { readonly kind: 'date'; readonly date: string }
  | { readonly kind: 'utc'; readonly stamp: string }
  | { readonly kind: 'local'; readonly stamp: string; readonly zone?: string };

export interface Recurrence {
  readonly rule?: Rule;
  readonly exdates: readonly RecurrenceTime[];
  readonly rdates: readonly RecurrenceTime[];
}

/** How many lines a recurrence has, and how long each is, at most (the write schema says the same). */
export const MAX_LINES = 100;
export const MAX_LINE_LENGTH = 2000;
/** Times of day a rule's BYHOUR × BYMINUTE × BYSECOND may give: one a minute. */
const MAX_TIMES_OF_DAY = 1440;
/** EXDATE values, and RDATE values, of one recurrence at most: each is read on every expansion. */
export const MAX_DATES = 1000;

/**
 * The largest INTERVAL of each frequency: one step of at most a century, the
 * span a finite series is stored over (a longer step could never give a second
 * occurrence).
 */
const MAX_INTERVAL: Readonly<Record<Frequency, number>> = {
  SECONDLY: 3_155_760_000,
  MINUTELY: 52_596_000,
  HOURLY: 876_600,
  DAILY: 36_525,
  WEEKLY: 5_217,
  MONTHLY: 1_200,
  YEARLY: 100,
};

/** What is wrong with a recurrence, in words a client can act on. */
export class RecurrenceError extends Error {}

const fail = (problem: string): never => {
  throw new RecurrenceError(problem);
};

function integerList(part: string, value: string, min: number, max: number, signed: boolean): number[] {
  return value.split(',').map((item) => {
    if (!/^[+-]?\d{1,3}$/.test(item)) return fail(`${part}: "${item}" is not a number.`);
    const number = Number(item);
    const magnitude = Math.abs(number);
    if ((!signed && /^[+-]/.test(item)) || magnitude < min || magnitude > max || (signed && number === 0)) {
      return fail(`${part}: ${item} is out of range (${signed ? `±${Math.max(min, 1)}` : min} to ${signed ? '±' : ''}${max}).`);
    }
    return number;
  });
}

function weekday(part: string, value: string): Weekday {
  return (WEEKDAYS as readonly string[]).includes(value) ? (value as Weekday) : fail(`${part}: "${value}" is no weekday (MO…SU).`);
}

function byDay(value: string): WeekdayNum[] {
  return value.split(',').map((item) => {
    const match = /^([+-]?\d{1,2})?([A-Z]{2})$/.exec(item);
    if (match === null) return fail(`BYDAY: "${item}" is no weekday (MO…SU, optionally after an ordinal such as 1MO or -1FR).`);
    const day = weekday('BYDAY', match[2] as string);
    if (match[1] === undefined) return { weekday: day };
    const ordinal = Number(match[1]);
    if (ordinal === 0 || Math.abs(ordinal) > 53) fail(`BYDAY: the ordinal of "${item}" is out of range (±1 to ±53).`);
    return { ordinal, weekday: day };
  });
}

const DATE = /^(\d{4})(\d{2})(\d{2})$/;
const DATE_TIME = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)$/;

function validDate(year: string, month: string, day: string): string | undefined {
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  const ok = date.getUTCFullYear() === Number(year) && date.getUTCMonth() === Number(month) - 1 && date.getUTCDate() === Number(day);
  return ok && Number(year) >= 1 ? `${year}-${month}-${day}` : undefined;
}

/** A DATE or DATE-TIME value; `zone` (a TZID) applies to wall times. */
function time(what: string, value: string, type: 'DATE' | 'DATE-TIME' | undefined, zone?: string): RecurrenceTime {
  const dateMatch = DATE.exec(value);
  if (dateMatch !== null && type !== 'DATE-TIME') {
    const date = validDate(dateMatch[1] as string, dateMatch[2] as string, dateMatch[3] as string);
    return date === undefined ? fail(`${what}: ${value} is no date.`) : { kind: 'date', date };
  }
  const match = DATE_TIME.exec(value);
  if (match === null || type === 'DATE')
    return fail(`${what}: "${value}" is no ${type === 'DATE' ? 'date (YYYYMMDD)' : 'date-time (YYYYMMDDTHHMMSS, Z for UTC)'}.`);
  const [, year, month, day, hour, minute, second, utc] = match as unknown as string[];
  const date = validDate(year as string, month as string, day as string);
  if (date === undefined || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) fail(`${what}: ${value} is no date-time.`);
  const stamp = `${date} ${hour}:${minute}:${second}`;
  if (utc === 'Z') return zone === undefined ? { kind: 'utc', stamp } : fail(`${what}: a UTC time (Z) takes no TZID.`);
  return zone === undefined ? { kind: 'local', stamp } : { kind: 'local', stamp, zone };
}

type Parts = Map<string, string>;

function ruleParts(text: string): Parts {
  const parts: Parts = new Map();
  for (const part of text.split(';')) {
    const match = /^([A-Z]+)=(.+)$/.exec(part);
    if (match === null) fail(`"${part}" is no NAME=VALUE rule part.`);
    const [, name, value] = match as unknown as [string, string, string];
    if (parts.has(name)) fail(`${name} is given twice.`);
    parts.set(name, value);
  }
  return parts;
}

const KNOWN_PARTS = new Set([
  'FREQ',
  'UNTIL',
  'COUNT',
  'INTERVAL',
  'BYSECOND',
  'BYMINUTE',
  'BYHOUR',
  'BYDAY',
  'BYMONTHDAY',
  'BYYEARDAY',
  'BYWEEKNO',
  'BYMONTH',
  'BYSETPOS',
  'WKST',
]);

function positive(part: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) fail(`${part}: "${value}" is not a positive whole number.`);
  return Number(value);
}

/** An RRULE value (after `RRULE:`), with RFC 5545 §3.3.10's rules on which parts go together. */
export function parseRule(text: string): Rule {
  const parts = ruleParts(text);
  for (const name of parts.keys()) if (!KNOWN_PARTS.has(name)) fail(`${name} is no RRULE part.`);
  const freqText = parts.get('FREQ') ?? fail('FREQ is missing.');
  const freq = (FREQUENCIES as readonly string[]).includes(freqText)
    ? (freqText as Frequency)
    : fail(`FREQ: "${freqText}" is no frequency.`);
  if (parts.has('COUNT') && parts.has('UNTIL')) fail('COUNT and UNTIL exclude each other.');
  const interval = positive('INTERVAL', parts.get('INTERVAL')) ?? 1;
  if (interval > MAX_INTERVAL[freq]) fail(`INTERVAL: at most ${MAX_INTERVAL[freq]} with FREQ=${freq} (a step of at most 100 years).`);
  const list = (name: string, min: number, max: number, signed: boolean) => {
    const value = parts.get(name);
    return value === undefined ? undefined : integerList(name, value, min, max, signed);
  };
  const rule: Rule = {
    freq,
    interval,
    count: positive('COUNT', parts.get('COUNT')),
    until: parts.has('UNTIL') ? time('UNTIL', parts.get('UNTIL') as string, undefined) : undefined,
    bySecond: list('BYSECOND', 0, 59, false),
    byMinute: list('BYMINUTE', 0, 59, false),
    byHour: list('BYHOUR', 0, 23, false),
    byDay: parts.has('BYDAY') ? byDay(parts.get('BYDAY') as string) : undefined,
    byMonthDay: list('BYMONTHDAY', 1, 31, true),
    byYearDay: list('BYYEARDAY', 1, 366, true),
    byWeekNo: list('BYWEEKNO', 1, 53, true),
    byMonth: list('BYMONTH', 1, 12, false),
    bySetPos: list('BYSETPOS', 1, 366, true),
    wkst: parts.has('WKST') ? weekday('WKST', parts.get('WKST') as string) : undefined,
  };
  if (rule.byWeekNo !== undefined && freq !== 'YEARLY') fail('BYWEEKNO goes with FREQ=YEARLY only.');
  if (rule.byYearDay !== undefined && ['DAILY', 'WEEKLY', 'MONTHLY'].includes(freq)) fail(`BYYEARDAY does not go with FREQ=${freq}.`);
  if (rule.byMonthDay !== undefined && freq === 'WEEKLY') fail('BYMONTHDAY does not go with FREQ=WEEKLY.');
  const ordinals = rule.byDay?.some((day) => day.ordinal !== undefined) === true;
  if (ordinals && freq !== 'MONTHLY' && freq !== 'YEARLY') fail(`BYDAY ordinals (such as 1MO) go with FREQ=MONTHLY or YEARLY only.`);
  if (ordinals && freq === 'YEARLY' && rule.byWeekNo !== undefined) fail('BYDAY ordinals do not go with BYWEEKNO.');
  const timesOfDay = (rule.byHour?.length ?? 1) * (rule.byMinute?.length ?? 1) * (rule.bySecond?.length ?? 1);
  if (timesOfDay > MAX_TIMES_OF_DAY) fail(`BYHOUR, BYMINUTE and BYSECOND give ${timesOfDay} times a day: at most ${MAX_TIMES_OF_DAY}.`);
  const byParts = ['BYSECOND', 'BYMINUTE', 'BYHOUR', 'BYDAY', 'BYMONTHDAY', 'BYYEARDAY', 'BYWEEKNO', 'BYMONTH'];
  if (rule.bySetPos !== undefined && !byParts.some((name) => parts.has(name))) fail('BYSETPOS needs another BYxxx part.');
  return Object.fromEntries(Object.entries(rule).filter(([, value]) => value !== undefined)) as unknown as Rule;
}

/** The parameters of an EXDATE or RDATE line (`;TZID=…;VALUE=…`). */
function dateListParameters(name: string, text: string): { zone?: string; type?: 'DATE' | 'DATE-TIME' } {
  const result: { zone?: string; type?: 'DATE' | 'DATE-TIME' } = {};
  for (const parameter of text === '' ? [] : text.split(';')) {
    const match = /^([A-Z-]+)=(.+)$/.exec(parameter);
    if (match === null) fail(`${name}: "${parameter}" is no NAME=VALUE parameter.`);
    const [, key, value] = match as unknown as [string, string, string];
    if (key === 'TZID' && result.zone === undefined) result.zone = value;
    else if (key === 'VALUE' && result.type === undefined && (value === 'DATE' || value === 'DATE-TIME')) result.type = value;
    else fail(`${name}: the parameter ${key}=${value} is not supported (TZID, and VALUE=DATE or DATE-TIME, are).`);
  }
  return result;
}

/** One line of a `recurrence`: its rule, or the moments of an EXDATE or RDATE line. `isZone` checks a TZID. */
export type RecurrenceLine =
  { readonly name: 'RRULE'; readonly rule: Rule } | { readonly name: 'EXDATE' | 'RDATE'; readonly times: readonly RecurrenceTime[] };

export function parseLine(line: string, isZone: (name: string) => boolean): RecurrenceLine {
  const match = /^(RRULE|EXDATE|RDATE)((?:;[^:]*)?):(.*)$/i.exec(line.trim());
  if (match === null) return fail(`"${line}" is no RRULE, EXDATE or RDATE line.`);
  const [, nameText, parameterText, value] = match as unknown as [string, string, string, string];
  const name = nameText.toUpperCase() as RecurrenceLine['name'];
  if (name === 'RRULE') {
    if (parameterText !== '') fail('RRULE takes no parameters.');
    return { name, rule: parseRule(value.toUpperCase()) };
  }
  const parameters = dateListParameters(name, parameterText.slice(1));
  if (parameters.zone !== undefined && !isZone(parameters.zone)) fail(`${name}: TZID "${parameters.zone}" is no known time zone.`);
  return { name, times: value.split(',').map((item) => time(name, item.toUpperCase(), parameters.type, parameters.zone)) };
}

/**
 * The lines of a `recurrence`. At most one RRULE (RFC 5545 advises no
 * more); EXDATE and RDATE lines may repeat.
 */
export function parseRecurrence(lines: readonly string[], isZone: (name: string) => boolean): Recurrence {
  let rule: Rule | undefined;
  const exdates: RecurrenceTime[] = [];
  const rdates: RecurrenceTime[] = [];
  if (lines.length > MAX_LINES) fail(`At most ${MAX_LINES} lines.`);
  for (const line of lines) {
    if (line.length > MAX_LINE_LENGTH) fail(`A line of at most ${MAX_LINE_LENGTH} characters: "${line.slice(0, 40)}…" is longer.`);
    const parsed = parseLine(line, isZone);
    if (parsed.name === 'RRULE') {
      if (rule !== undefined) fail('Only one RRULE line is supported.');
      rule = parsed.rule;
    } else {
      const dates = parsed.name === 'EXDATE' ? exdates : rdates;
      dates.push(...parsed.times);
      if (dates.length > MAX_DATES) fail(`At most ${MAX_DATES} ${parsed.name} values in all.`);
    }
  }
  if (rule === undefined && rdates.length === 0) fail('A recurrence needs an RRULE or an RDATE line.');
  return { ...(rule === undefined ? {} : { rule }), exdates, rdates };
}
