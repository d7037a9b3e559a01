import { FixedOffsetZone, IANAZone, type Zone } from 'luxon';

/**
 * Dates and time zones of the calendar (calendar-api.md §1).
 *
 * Every result carries the local wall time in its zone and the UTC instant,
 * computed together. Nothing here reads the process time zone: zones are
 * always explicit, and "now" is an argument.
 *
 * Grammar accepted by `parseDate` (case-insensitive, tokens separated by
 * spaces or commas):
 *   timestamp   := -?digits | @digits                   UNIX seconds, an instant
 *   iso         := YYYY-MM-DD[(T| )HH:MM[:SS[.frac]]][Z|±HH[:MM]]
 *   keyword     := now | today | midnight | noon | tomorrow | yesterday
 *   relative    := [+|-]N unit[s]                        unit: sec|second|min|minute|hour|day|week|fortnight|month|year
 *   weekday     := [next|last] monday…sunday (or mon…sun); next|last day|week|month|year
 *   time        := H[:MM[:SS]](am|pm) | HH:MM[:SS]
 * A date (iso date, keyword or weekday) resets the time to 00:00:00 unless a
 * time is given; relative parts are applied last. Wall times in a DST gap
 * move forward by the gap; ambiguous ones take the first (daylight) offset,
 * as PHP does.
 */

/** `YYYY-MM-DD HH:MM:SS`. */
export type Stamp = string;

export interface ZonedMoment {
  /** Wall time in the zone. */
  readonly local: Stamp;
  /** The same instant in UTC. */
  readonly utc: Stamp;
  readonly epochMs: number;
  /** Offset from UTC in minutes at that instant. */
  readonly offsetMinutes: number;
}

const MIN_YEAR = 1000;
const MAX_YEAR = 9999;
const DAY_MS = 86_400_000;

const UTC_OFFSET_ZONE = /^utc([+-])(\d{1,2})(?:(?::(\d{2}))|(?:\.(\d+)))?$/i;

/**
 * IANA zones already validated in this process. `IANAZone.isValidZone` builds
 * an Intl formatter on every call, and every event read resolves its zone
 * (10% of a single event GET's CPU); validity never changes while the
 * process runs. Bounded, as names come from requests (only valid ones are kept).
 */
const knownZones = new Map<string, Zone>();
const MAX_KNOWN_ZONES = 1000;

/**
 * A time zone by name: an IANA id, `UTC`, or `UTC±H[:MM]` (also WordPress's
 * `UTC+5.5`). `undefined` when unknown.
 */
export function resolveZone(name: string): Zone | undefined {
  if (typeof name !== 'string' || name.length === 0 || name.length > 64) return undefined;
  if (/^utc$/i.test(name)) return FixedOffsetZone.utcInstance;
  const offset = UTC_OFFSET_ZONE.exec(name);
  if (offset !== null) {
    const [, sign, hours = '0', minutes, fraction] = offset;
    const fractionMinutes = fraction === undefined ? 0 : Math.round(Number(`0.${fraction}`) * 60);
    const total = Number(hours) * 60 + (minutes === undefined ? fractionMinutes : Number(minutes));
    if (Number(hours) > 14 || (minutes !== undefined && Number(minutes) > 59)) return undefined;
    return FixedOffsetZone.instance(sign === '-' ? -total : total);
  }
  const known = knownZones.get(name);
  if (known !== undefined) return known;
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name) || !IANAZone.isValidZone(name)) return undefined;
  const zone = IANAZone.create(name);
  if (knownZones.size < MAX_KNOWN_ZONES) knownZones.set(name, zone);
  return zone;
}

export function isValidZoneName(name: string): boolean {
  return resolveZone(name) !== undefined;
}

/**
 * A zone's offset from UTC in minutes at a stored instant. Luxon asks Intl for
 * it on every call (formatToParts: the costliest step of an event's JSON-LD);
 * an offset at a given instant never changes, and events' times recur across
 * requests, so they are remembered (bounded). Not for "now": it never recurs.
 */
const knownOffsets = new Map<Zone, Map<number, number>>();
const MAX_KNOWN_OFFSETS = 10_000;

function offsetAt(zone: Zone, epochMs: number): number {
  if (zone.isUniversal) return zone.offset(epochMs);
  let offsets = knownOffsets.get(zone);
  if (offsets === undefined) knownOffsets.set(zone, (offsets = new Map()));
  let offset = offsets.get(epochMs);
  if (offset === undefined) {
    offset = zone.offset(epochMs);
    if (offsets.size >= MAX_KNOWN_OFFSETS) offsets.clear();
    offsets.set(epochMs, offset);
  }
  return offset;
}

function zoneOrThrow(name: string): Zone {
  const zone = resolveZone(name);
  if (zone === undefined) throw new RangeError(`unknown time zone ${name}`);
  return zone;
}

// Calendar arithmetic runs on wall times read as UTC milliseconds (Date's UTC fields): luxon
// DateTime objects and their format strings cost more than the rest of a cached list request.
// Luxon remains the source of zone offsets and names.

interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function wallOfMillis(ms: number): Wall {
  const date = new Date(ms);
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
  };
}

/** Milliseconds of a wall time read as UTC, any year (Date.UTC maps years 0–99 to 19xx); months and days may overflow. */
function millisOfWall(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

const two = (value: number) => (value < 10 ? `0${value}` : String(value));

function stampOfWall(wall: Wall): Stamp {
  return `${String(wall.year).padStart(4, '0')}-${two(wall.month)}-${two(wall.day)} ${two(wall.hour)}:${two(wall.minute)}:${two(wall.second)}`;
}

function momentAt(epochMs: number, zone: Zone): ZonedMoment | undefined {
  if (!Number.isFinite(epochMs)) return undefined;
  const offsetMinutes = zone.offset(epochMs);
  const local = wallOfMillis(epochMs + offsetMinutes * 60_000);
  const utc = wallOfMillis(epochMs);
  if (!Number.isFinite(offsetMinutes) || ![local.year, utc.year].every((year) => year >= MIN_YEAR && year <= MAX_YEAR)) return undefined;
  return { local: stampOfWall(local), utc: stampOfWall(utc), epochMs, offsetMinutes };
}

/** The moment of an instant, rendered in a zone. */
export function fromInstant(epochMs: number, zoneName: string): ZonedMoment | undefined {
  return momentAt(epochMs, zoneOrThrow(zoneName));
}

/**
 * The instant of a wall time (given as milliseconds of that wall time read as
 * UTC) in a zone: a time in a DST gap moves forward by the gap; an ambiguous
 * one takes the earlier instant (the daylight offset).
 */
function resolveWall(wallMs: number, zone: Zone): number {
  const before = zone.offset(wallMs - DAY_MS);
  const after = zone.offset(wallMs + DAY_MS);
  const candidates = [...new Set([before, after])]
    .map((offset) => wallMs - offset * 60_000)
    .filter((instant) => zone.offset(instant) * 60_000 === wallMs - instant)
    .sort((a, b) => a - b);
  return candidates[0] ?? wallMs - before * 60_000;
}

/** Milliseconds of a valid wall time read as UTC; `undefined` for a day or time that does not exist (Feb 30, 24:00). */
function wallMillis(wall: Wall): number | undefined {
  const { year, month, day, hour, minute, second } = wall;
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const ms = millisOfWall(year, month, day, hour, minute, second);
  const back = wallOfMillis(ms);
  return back.year === year && back.month === month && back.day === day ? ms : undefined;
}

const STAMP_PATTERN = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

function wallOfStamp(stamp: Stamp): Wall | undefined {
  const match = STAMP_PATTERN.exec(stamp);
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  return { year, month, day, hour, minute, second };
}

/** A stored wall time read in a zone (gap forward, overlap first). */
export function fromWallTime(stamp: Stamp, zoneName: string): ZonedMoment | undefined {
  const wall = wallOfStamp(stamp);
  const ms = wall === undefined ? undefined : wallMillis(wall);
  if (ms === undefined) return undefined;
  const zone = zoneOrThrow(zoneName);
  return momentAt(resolveWall(ms, zone), zone);
}

// ---------------------------------------------------------------------------
// The grammar.

const WEEKDAYS: Readonly<Record<string, number>> = {
  monday: 1, mon: 1, tuesday: 2, tue: 2, tues: 2, wednesday: 3, wed: 3, thursday: 4, thu: 4, thurs: 4,
  friday: 5, fri: 5, saturday: 6, sat: 6, sunday: 7, sun: 7,
};

type Unit = 'years' | 'months' | 'days' | 'hours' | 'minutes' | 'seconds';
const UNITS: Readonly<Record<string, readonly [Unit, number]>> = {
  sec: ['seconds', 1], second: ['seconds', 1], min: ['minutes', 1], minute: ['minutes', 1], hour: ['hours', 1],
  day: ['days', 1], week: ['days', 7], fortnight: ['days', 14], month: ['months', 1], year: ['years', 1],
};

interface Parsed {
  date?: { year: number; month: number; day: number };
  dayShift: number;
  resetTime: boolean;
  weekday?: { direction: 'next' | 'last' | 'this'; day: number };
  time?: { hour: number; minute: number; second: number };
  offsetMinutes?: number;
  relative: Record<Unit, number>;
  /** Whether anything but "now" and relative units was given. */
  anchored: boolean;
}

const TOKEN = new RegExp(
  [
    // 1-3 date, 4-7 time, 8 offset
    String.raw`(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:t|\s+)(\d{1,2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?(z|[+-]\d{2}(?::?\d{2})?)?`,
    // 9-12 time of day with am/pm or 24h
    String.raw`(\d{1,2})(?::(\d{2})(?::(\d{2}))?)?\s*(am|pm|a\.m\.|p\.m\.)`,
    // 13-15 24h time
    String.raw`(\d{1,2}):(\d{2})(?::(\d{2}))?`,
    // 16-18 relative amount and unit
    String.raw`([+-]?)\s*(\d{1,6})\s*(second|sec|minute|min|hour|day|week|fortnight|month|year)s?\b`,
    // 19-20 next/last + weekday or unit
    String.raw`(next|last|this)\s+([a-z]+)`,
    // 21 keywords and bare weekdays
    String.raw`([a-z]+)`,
  ]
    .map((part) => `(?:${part})`)
    .join('|'),
  'y',
);

function parseOffset(text: string): number | undefined {
  if (text === 'z') return 0;
  const match = /^([+-])(\d{2}):?(\d{2})?$/.exec(text);
  if (match === null) return undefined;
  const hours = Number(match[2]);
  const minutes = Number(match[3] ?? '0');
  if (hours > 14 || minutes > 59) return undefined;
  return (match[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

function twelveHour(hour: number, meridiem: string): number | undefined {
  if (hour < 1 || hour > 12) return undefined;
  const pm = meridiem.startsWith('p');
  return (hour % 12) + (pm ? 12 : 0);
}

function tokenize(input: string): Parsed | undefined {
  const parsed: Parsed = {
    dayShift: 0,
    resetTime: false,
    relative: { years: 0, months: 0, days: 0, hours: 0, minutes: 0, seconds: 0 },
    anchored: false,
  };
  const setTime = (hour: number, minute: number, second: number): boolean => {
    if (parsed.time !== undefined || hour > 23 || minute > 59 || second > 59) return false;
    parsed.time = { hour, minute, second };
    parsed.anchored = true;
    return true;
  };
  let position = 0;
  while (position < input.length) {
    const separator = /[\s,]+/y;
    separator.lastIndex = position;
    if (separator.test(input)) {
      position = separator.lastIndex;
      continue;
    }
    TOKEN.lastIndex = position;
    const match = TOKEN.exec(input);
    if (match === null) return undefined;
    position = TOKEN.lastIndex;
    const g = match;
    if (g[1] !== undefined) {
      if (parsed.date !== undefined) return undefined;
      parsed.date = { year: Number(g[1]), month: Number(g[2]), day: Number(g[3]) };
      parsed.anchored = true;
      if (g[4] !== undefined && !setTime(Number(g[4]), Number(g[5]), Number(g[6] ?? '0'))) return undefined;
      if (g[8] !== undefined) {
        if (g[4] === undefined) return undefined;
        parsed.offsetMinutes = parseOffset(g[8]);
        if (parsed.offsetMinutes === undefined) return undefined;
      }
    } else if (g[9] !== undefined) {
      const hour = twelveHour(Number(g[9]), g[12] ?? '');
      if (hour === undefined || !setTime(hour, Number(g[10] ?? '0'), Number(g[11] ?? '0'))) return undefined;
    } else if (g[13] !== undefined) {
      if (!setTime(Number(g[13]), Number(g[14]), Number(g[15] ?? '0'))) return undefined;
    } else if (g[17] !== undefined) {
      const [unit, factor] = UNITS[g[18] ?? ''] ?? [];
      if (unit === undefined || factor === undefined) return undefined;
      parsed.relative[unit] += (g[16] === '-' ? -1 : 1) * Number(g[17]) * factor;
    } else if (g[19] !== undefined) {
      const direction = g[19] as 'next' | 'last' | 'this';
      const word = g[20] ?? '';
      const weekday = WEEKDAYS[word];
      if (weekday !== undefined) {
        if (parsed.weekday !== undefined) return undefined;
        parsed.weekday = { direction, day: weekday };
        parsed.anchored = true;
      } else {
        const [unit, factor] = UNITS[word] ?? [];
        if (unit === undefined || factor === undefined || direction === 'this') return undefined;
        parsed.relative[unit] += (direction === 'last' ? -1 : 1) * factor;
      }
    } else {
      const word = g[21] ?? '';
      const weekday = WEEKDAYS[word];
      if (weekday !== undefined) {
        if (parsed.weekday !== undefined) return undefined;
        parsed.weekday = { direction: 'this', day: weekday };
        parsed.anchored = true;
        continue;
      }
      switch (word) {
        case 'now':
          break;
        case 'today':
        case 'midnight':
          parsed.resetTime = true;
          parsed.anchored = true;
          break;
        case 'tomorrow':
        case 'yesterday':
          parsed.dayShift += word === 'tomorrow' ? 1 : -1;
          parsed.resetTime = true;
          parsed.anchored = true;
          break;
        case 'noon':
          if (!setTime(12, 0, 0)) return undefined;
          break;
        default:
          return undefined;
      }
    }
  }
  return parsed;
}

function nowWall(nowMs: number, zone: Zone): Wall {
  return wallOfMillis(nowMs + zone.offset(nowMs) * 60_000);
}

/** A calendar date plus years and months (the day kept, or the month's last day), then days: luxon's `plus`. */
function shiftDate(date: { year: number; month: number; day: number }, shift: { years?: number; months?: number; days?: number }) {
  const months = date.year * 12 + (date.month - 1) + (shift.years ?? 0) * 12 + (shift.months ?? 0);
  const year = Math.floor(months / 12);
  const month = months - year * 12 + 1;
  const lastDay = wallOfMillis(millisOfWall(year, month + 1, 0)).day;
  const shifted = wallOfMillis(millisOfWall(year, month, Math.min(date.day, lastDay) + (shift.days ?? 0)));
  return { year: shifted.year, month: shifted.month, day: shifted.day };
}

/** ISO weekday, Monday 1 to Sunday 7. */
function weekdayOf(date: { year: number; month: number; day: number }): number {
  return new Date(millisOfWall(date.year, date.month, date.day)).getUTCDay() || 7;
}

function anchoredInstant(parsed: Parsed, nowMs: number, zone: Zone): number | undefined {
  const wall = nowWall(nowMs, zone);
  let date = { year: wall.year, month: wall.month, day: wall.day };
  let time = { hour: wall.hour, minute: wall.minute, second: wall.second };
  const midnight = { hour: 0, minute: 0, second: 0 };
  if (parsed.date !== undefined) {
    if (wallMillis({ ...parsed.date, ...midnight }) === undefined) return undefined;
    date = parsed.date;
    time = midnight;
  }
  if (parsed.resetTime) time = midnight;
  date = shiftDate(date, { days: parsed.dayShift });
  if (parsed.weekday !== undefined) {
    const { direction, day } = parsed.weekday;
    const weekday = weekdayOf(date);
    const forward = (day - weekday + 7) % 7;
    date = shiftDate(date, { days: direction === 'last' ? -((weekday - day + 7) % 7 || 7) : direction === 'next' ? forward || 7 : forward });
    time = midnight;
  }
  if (parsed.time !== undefined) time = parsed.time;
  date = shiftDate(date, parsed.relative);
  const ms = wallMillis({ ...date, ...time });
  if (ms === undefined) return undefined;
  return parsed.offsetMinutes === undefined ? resolveWall(ms, zone) : ms - parsed.offsetMinutes * 60_000;
}

const MAX_TIMESTAMP = 253_402_300_799;

/**
 * Parses a date of the grammar above in a zone. Integers are UNIX
 * timestamps (instants). `undefined` when the text is not in the grammar
 * or out of range.
 */
export function parseDate(input: string | number, zoneName: string, now: Date = new Date()): ZonedMoment | undefined {
  const zone = zoneOrThrow(zoneName);
  if (typeof input === 'number') {
    return Number.isInteger(input) && Math.abs(input) <= MAX_TIMESTAMP ? momentAt(input * 1000, zone) : undefined;
  }
  if (typeof input !== 'string' || input.length > 200) return undefined;
  const text = input.trim().toLowerCase();
  if (text === '') return undefined;
  const timestamp = /^@?(-?\d{1,12})$/.exec(text);
  if (timestamp !== null) return parseDate(Number(timestamp[1]), zoneName, now);
  const parsed = tokenize(text);
  if (parsed === undefined) return undefined;
  const nowMs = now.getTime();
  const calendarShift = parsed.relative.years !== 0 || parsed.relative.months !== 0 || parsed.relative.days !== 0;
  const base = parsed.anchored || calendarShift ? anchoredInstant(parsed, nowMs, zone) : nowMs;
  if (base === undefined) return undefined;
  const exact = (parsed.relative.hours * 3600 + parsed.relative.minutes * 60 + parsed.relative.seconds) * 1000;
  return momentAt(base + exact, zone);
}

// ---------------------------------------------------------------------------
// Rendering.

/** The calendar day of a stamp (`YYYY-MM-DD`). */
export function dayOf(stamp: Stamp): string {
  return stamp.slice(0, 10);
}

export function startOfDay(stamp: Stamp): Stamp {
  return `${dayOf(stamp)} 00:00:00`;
}

export function endOfDay(stamp: Stamp): Stamp {
  return `${dayOf(stamp)} 23:59:59`;
}

/** The reference's date details object: zero-padded string components (reference §8.6). */
export interface DateDetails {
  year: string;
  month: string;
  day: string;
  hour: string;
  minutes: string;
  seconds: string;
}

export function dateDetails(stamp: Stamp): DateDetails {
  return {
    year: stamp.slice(0, 4),
    month: stamp.slice(5, 7),
    day: stamp.slice(8, 10),
    hour: stamp.slice(11, 13),
    minutes: stamp.slice(14, 16),
    seconds: stamp.slice(17, 19),
  };
}

// Locales whose short zone names are the tz database abbreviations of their regions.
const ABBREVIATION_LOCALES = ['en-US', 'en-GB', 'en-AU', 'en-IN', 'en-NZ', 'en-ZA', 'en-IE'];

function numericAbbreviation(offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? '-' : '+';
  const absolute = Math.abs(offsetMinutes);
  const hours = String(Math.floor(absolute / 60)).padStart(2, '0');
  const minutes = absolute % 60;
  return minutes === 0 ? `${sign}${hours}` : `${sign}${hours}${String(minutes).padStart(2, '0')}`;
}

/**
 * The zone's abbreviation at an instant, like PHP's `T` format: `EST`/`EDT`,
 * `CET`/`CEST`; `+05`-style where the zone has no letters; a `UTC±x` zone
 * is its own abbreviation.
 */
export function timezoneAbbr(zoneName: string, epochMs: number): string {
  const zone = zoneOrThrow(zoneName);
  if (zone instanceof FixedOffsetZone) return /^utc$/i.test(zoneName) ? 'UTC' : zoneName;
  for (const locale of ABBREVIATION_LOCALES) {
    const name = zone.offsetName(epochMs, { format: 'short', locale });
    if (name !== null && /^[A-Z]{2,5}$/.test(name)) return name;
  }
  return numericAbbreviation(zone.offset(epochMs));
}

/** ISO 8601 with the zone's offset at that instant (`2017-01-05T14:23:36-05:00`), for JSON-LD. */
export function isoWithOffset(epochMs: number, zoneName: string): string {
  const zone = zoneOrThrow(zoneName);
  const offset = offsetAt(zone, epochMs);
  const local = new Date(epochMs + offset * 60_000).toISOString().replace(/\.000Z$/, '').replace(/Z$/, '');
  // luxon's rendering: Z for a universal zone at offset 0, else ±HH:MM.
  if (zone.isUniversal && offset === 0) return `${local}Z`;
  const sign = offset < 0 ? '-' : '+';
  return `${local}${sign}${two(Math.trunc(Math.abs(offset) / 60))}:${two(Math.trunc(Math.abs(offset) % 60))}`;
}

/** Milliseconds since the epoch of a UTC stamp. */
export function utcStampMillis(stamp: Stamp): number {
  return Date.parse(`${stamp.replace(' ', 'T')}Z`);
}

/** The moment now, in a zone. */
export function nowIn(zoneName: string, now: Date = new Date()): ZonedMoment {
  const moment = momentAt(now.getTime(), zoneOrThrow(zoneName));
  if (moment === undefined) throw new RangeError('clock out of range');
  return moment;
}

/** Calendar arithmetic on a wall stamp (`plusMonths(…, 24)`), independent of zones. */
export function plusCalendar(stamp: Stamp, shift: { months?: number; days?: number }): Stamp {
  const wall = wallOfStamp(stamp);
  if (wall === undefined) throw new RangeError(`not a stamp: ${stamp}`);
  return stampOfWall({ ...wall, ...shiftDate(wall, shift) });
}
