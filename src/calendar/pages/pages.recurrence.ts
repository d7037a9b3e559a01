import type { Language } from '../../config/config.ts';
import { fromInstant, isValidZoneName, utcStampMillis, type Stamp } from '../common/dates.ts';
import { parseRecurrence, WEEKDAYS, type RecurrenceTime, type Rule, type Weekday } from '../recurrence/recurrence.grammar.ts';
import { addDays, formatDate, formatDayOfMonth, formatMonthName, formatWeekdayName } from './pages.dates.ts';

/**
 * How a series repeats, in a sentence of the page's language: "Every Monday and Wednesday until March 31, 2027",
 * "Ogni mese il secondo martedì". A rule this does not phrase (BYSETPOS, BYYEARDAY, BYWEEKNO, times of day,
 * hourly rules, unusual ordinals) and a series of RDATEs alone get one general sentence rather than a wrong one;
 * the page's list of next dates says the rest. EXDATEs only remove dates, so they change no words.
 */

/** Where a series starts: its first start (a wall time) in its zone. Rules without BYxxx parts repeat its day. */
export interface SeriesStart {
  readonly local: Stamp;
  readonly zone: string;
}

type Unit = 'day' | 'week' | 'month' | 'year';

/** What differs between languages: word order, articles and their genders, ordinals. */
interface Phrasing {
  readonly several: string;
  every(unit: Unit, interval: number): string;
  /** "Every Monday and Friday": each of the weekdays, every week. */
  everyWeekday(days: string): string;
  /** "Every 2 weeks on Friday": `what` is a list of `onWeekday`, `nth`, `monthDays` or `onDate` phrases. */
  on(every: string, what: string): string;
  onWeekday(day: Weekday, name: string): string;
  /** The n-th weekday of the month (or of the months named); undefined for an ordinal without words. */
  nth(ordinal: number, day: Weekday, name: string): string | undefined;
  /** Days of the month, positive (1 to 31) or counted from its end (-1, -2); undefined for others. */
  monthDays(days: readonly number[], list: (items: string[]) => string): string | undefined;
  onDate(dayAndMonth: string): string;
  inMonths(text: string, months: string): string;
  times(text: string, count: number): string;
  until(text: string, date: string): string;
  alsoOtherDates(text: string): string;
}

const UNITS_EN: Record<Unit, string> = { day: 'day', week: 'week', month: 'month', year: 'year' };
const ORDINALS_EN: Record<number, string> = {
  1: 'first',
  2: 'second',
  3: 'third',
  4: 'fourth',
  5: 'fifth',
  [-1]: 'last',
  [-2]: 'second to last',
};
const FROM_END_EN: Record<number, string> = { [-1]: 'the last day', [-2]: 'the second to last day' };
const SUFFIXES_EN: Record<string, string> = { one: 'st', two: 'nd', few: 'rd', other: 'th' };
const englishOrdinals = new Intl.PluralRules('en', { type: 'ordinal' });

const EN: Phrasing = {
  several: 'Repeats on several dates',
  every: (unit, interval) => (interval === 1 ? `Every ${UNITS_EN[unit]}` : `Every ${interval} ${UNITS_EN[unit]}s`),
  everyWeekday: (days) => `Every ${days}`,
  on: (every, what) => `${every} on ${what}`,
  onWeekday: (_day, name) => name,
  nth: (ordinal, _day, name) => (ORDINALS_EN[ordinal] === undefined ? undefined : `the ${ORDINALS_EN[ordinal]} ${name}`),
  monthDays: (days, list) => {
    const counted = days.filter((day) => day > 0).map((day) => `${day}${SUFFIXES_EN[englishOrdinals.select(day)] ?? 'th'}`);
    const fromEnd = days.filter((day) => day < 0).map((day) => FROM_END_EN[day]);
    if (fromEnd.includes(undefined)) return undefined;
    return list([...(counted.length > 0 ? [`the ${list(counted)}`] : []), ...(fromEnd as string[])]);
  },
  onDate: (dayAndMonth) => dayAndMonth,
  inMonths: (text, months) => `${text} in ${months}`,
  times: (text, count) => (count === 1 ? `${text}, once` : `${text}, ${count} times`),
  until: (text, date) => `${text} until ${date}`,
  alsoOtherDates: (text) => `${text}, and on other dates`,
};

const UNITS_IT: Record<Unit, [string, string]> = {
  day: ['giorno', 'giorni'],
  week: ['settimana', 'settimane'],
  month: ['mese', 'mesi'],
  year: ['anno', 'anni'],
};
/** Masculine and feminine (only "domenica" is feminine among the weekdays). */
const ORDINALS_IT: Record<number, [string, string]> = {
  1: ['il primo', 'la prima'],
  2: ['il secondo', 'la seconda'],
  3: ['il terzo', 'la terza'],
  4: ['il quarto', 'la quarta'],
  5: ['il quinto', 'la quinta'],
  [-1]: ['l’ultimo', 'l’ultima'],
  [-2]: ['il penultimo', 'la penultima'],
};
const FROM_END_IT: Record<number, string> = { [-1]: 'l’ultimo giorno', [-2]: 'il penultimo giorno' };
const feminine = (day: Weekday) => (day === 'SU' ? 1 : 0);
/** "il 4 luglio" but "l’8 luglio", "l’11 luglio": the article is elided before a number read with a vowel. */
const elided = (article: string, elision: string, text: string) => (/^(8|11)\b/.test(text) ? `${elision}${text}` : `${article} ${text}`);

const IT: Phrasing = {
  several: 'Si ripete in più date',
  every: (unit, interval) => (interval === 1 ? `Ogni ${UNITS_IT[unit][0]}` : `Ogni ${interval} ${UNITS_IT[unit][1]}`),
  everyWeekday: (days) => `Ogni ${days}`,
  on: (every, what) => `${every} ${what}`,
  onWeekday: (day, name) => `${['il', 'la'][feminine(day)]} ${name}`,
  nth: (ordinal, day, name) => (ORDINALS_IT[ordinal] === undefined ? undefined : `${ORDINALS_IT[ordinal][feminine(day)]} ${name}`),
  monthDays: (days, list) => {
    const counted = days.filter((day) => day > 0).map(String);
    const fromEnd = days.filter((day) => day < 0).map((day) => FROM_END_IT[day]);
    if (fromEnd.includes(undefined)) return undefined;
    const numbered = counted.length === 0 ? [] : [counted.length === 1 ? `il giorno ${counted[0]}` : `i giorni ${list(counted)}`];
    return list([...numbered, ...(fromEnd as string[])]);
  },
  onDate: (dayAndMonth) => elided('il', 'l’', dayAndMonth),
  inMonths: (text, months) => `${text} di ${months}`,
  times: (text, count) => (count === 1 ? `${text}, una volta` : `${text}, ${count} volte`),
  until: (text, date) => `${text} fino ${elided('al', 'all’', date)}`,
  alsoOtherDates: (text) => `${text}, e in altre date`,
};

const PHRASINGS: Readonly<Record<Language, Phrasing>> = { en: EN, it: IT };

const listFormats = new Map<Language, Intl.ListFormat>();
function listOf(language: Language): (items: string[]) => string {
  let format = listFormats.get(language);
  if (format === undefined) listFormats.set(language, (format = new Intl.ListFormat(language, { type: 'conjunction' })));
  return (items) => format.format(items);
}

/** 1 January 2024 was a Monday: the stamps that name each weekday. */
const weekdayStamp = (day: Weekday) => `2024-01-0${WEEKDAYS.indexOf(day) + 1}`;
const weekdayOf = (stamp: Stamp) => WEEKDAYS[(new Date(`${stamp.slice(0, 10)}T00:00:00Z`).getUTCDay() + 6) % 7] as Weekday;
const monthStamp = (month: number, day = 1) => `2024-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;

const UNIT_OF: Partial<Record<Rule['freq'], Unit>> = { DAILY: 'day', WEEKLY: 'week', MONTHLY: 'month', YEARLY: 'year' };

/** The rule's frequency and days in words, without its months and its end; undefined when it has no words here. */
function daysInWords(rule: Rule, unit: Unit, start: SeriesStart, language: Language): { text: string; monthsSaid?: boolean } | undefined {
  const phrasing = PHRASINGS[language];
  const list = listOf(language);
  const every = phrasing.every(unit, rule.interval);
  const weekdayName = (day: Weekday) => formatWeekdayName(weekdayStamp(day), language);
  const byDay = rule.byDay ?? [];
  const ordinals = byDay.filter((day) => day.ordinal !== undefined);
  const startDay = Number(start.local.slice(8, 10));
  if (ordinals.length > 0) {
    // The n-th weekday of each month (or, yearly, of the months the rule names; of the year has no words here).
    if (ordinals.length < byDay.length || rule.byMonthDay !== undefined) return undefined;
    if (unit !== 'month' && !(unit === 'year' && rule.byMonth !== undefined)) return undefined;
    const days = ordinals.map((day) => phrasing.nth(day.ordinal as number, day.weekday, weekdayName(day.weekday)));
    return days.includes(undefined) ? undefined : { text: phrasing.on(every, list(days as string[])) };
  }
  if (byDay.length > 0 || unit === 'week') {
    if (rule.byMonthDay !== undefined) return undefined;
    const weekdays = byDay.length > 0 ? byDay.map((day) => day.weekday) : [weekdayOf(start.local)];
    if (rule.interval === 1) return { text: phrasing.everyWeekday(list(weekdays.map(weekdayName))) };
    if (unit !== 'week') return undefined;
    return { text: phrasing.on(every, list(weekdays.map((day) => phrasing.onWeekday(day, weekdayName(day))))) };
  }
  if (unit === 'day') return rule.byMonthDay === undefined ? { text: every } : undefined;
  // A yearly BYMONTHDAY without BYMONTH repeats in every month of the year (RFC 5545): no words here say that plainly.
  if (unit === 'year' && rule.byMonthDay !== undefined && rule.byMonth === undefined) return undefined;
  const monthDays = rule.byMonthDay ?? [startDay];
  const months = rule.byMonth ?? [Number(start.local.slice(5, 7))];
  if (unit === 'year' && months.length === 1 && monthDays.every((day) => day > 0)) {
    const dates = monthDays.map((day) => phrasing.onDate(formatDayOfMonth(monthStamp(months[0] as number, day), language)));
    return { text: phrasing.on(every, list(dates)), monthsSaid: true };
  }
  const days = phrasing.monthDays(monthDays, list);
  return days === undefined ? undefined : { text: phrasing.on(every, days) };
}

/** The day of the last occurrence UNTIL allows, in the series' zone: a bound earlier in its day than the start ends the day before. */
function lastDayOf(until: RecurrenceTime, start: SeriesStart): string {
  if (until.kind === 'date') return until.date;
  const local = until.kind === 'utc' ? (fromInstant(utcStampMillis(until.stamp), start.zone)?.local ?? until.stamp) : until.stamp;
  const day = local.slice(0, 10);
  return local.slice(11) < start.local.slice(11) ? addDays(day, -1) : day;
}

const UNPHRASED_PARTS = ['bySetPos', 'byYearDay', 'byWeekNo', 'byHour', 'byMinute', 'bySecond'] as const;

function ruleInWords(rule: Rule, start: SeriesStart, language: Language): string | undefined {
  const unit = UNIT_OF[rule.freq];
  if (unit === undefined || UNPHRASED_PARTS.some((part) => rule[part] !== undefined)) return undefined;
  const days = daysInWords(rule, unit, start, language);
  if (days === undefined) return undefined;
  const phrasing = PHRASINGS[language];
  let text = days.text;
  if (rule.byMonth !== undefined && days.monthsSaid !== true) {
    text = phrasing.inMonths(text, listOf(language)(rule.byMonth.map((month) => formatMonthName(monthStamp(month), language))));
  }
  if (rule.count !== undefined) text = phrasing.times(text, rule.count);
  if (rule.until !== undefined) text = phrasing.until(text, formatDate(lastDayOf(rule.until, start), language));
  return text;
}

/** The sentence that says how the series of `lines` (its stored `recurrence`), starting at `start`, repeats. */
export function recurrenceInWords(lines: readonly string[], start: SeriesStart, language: Language): string {
  const recurrence = parseRecurrence(lines, isValidZoneName);
  const phrasing = PHRASINGS[language];
  const text = recurrence.rule === undefined ? undefined : ruleInWords(recurrence.rule, start, language);
  if (text === undefined) return phrasing.several;
  return recurrence.rdates.length > 0 ? phrasing.alsoOtherDates(text) : text;
}
