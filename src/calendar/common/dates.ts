import { FixedOffsetZone, IANAZone, type Zone } from 'luxon';
import { readDateText, type CalendarDate, type DatePhrase, type Direction, type TimeOfDay } from './dates.grammar.ts';

/**
 * Dates and time zones of the calendar (docs/calendar-events.md, Dates).
 *
 * Every result carries the local wall time in its zone and the UTC instant,
 * computed together. Nothing here reads the process time zone: zones are
 * always explicit, and "now" is an argument.
 *
 * `parseDate` reads its text with the grammar of dates.grammar.ts, then
 * applies it here: a date (iso date, keyword or weekday) resets the time to
 * 00:00:00 unless a time is given; relative parts are applied last. Wall
 * times in a DST gap move forward by the gap; ambiguous ones take the first
 * (daylight) offset, as PHP does.
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
 * process runs. Bounded, as names come from requests (only valid ones are stored).
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
 * requests, so they are cached (bounded). Not for "now": it never recurs.
 */
const knownOffsets = new Map<Zone, Map<number, number>>();
const MAX_KNOWN_OFFSETS = 10_000;

/**
 * A zone's offset in minutes at an instant, from Intl's `longOffset` name ("GMT+01:00", "GMT-00:25:21"): one
 * `format` call, a quarter of luxon's `offset` (which formats every field); both read ICU's data, to the second.
 */
const offsetFormats = new WeakMap<Zone, Intl.DateTimeFormat>();
const LONG_OFFSET = /GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/;

function offsetOf(zone: Zone, epochMs: number): number {
  if (zone.isUniversal) return zone.offset(epochMs);
  let format = offsetFormats.get(zone);
  if (format === undefined)
    offsetFormats.set(zone, (format = new Intl.DateTimeFormat('en-US', { timeZone: zone.name, timeZoneName: 'longOffset' })));
  const match = LONG_OFFSET.exec(format.format(epochMs));
  if (match === null) return zone.offset(epochMs);
  const [, sign, hours, minutes, seconds] = match;
  if (sign === undefined) return 0;
  const offset = Number(hours) * 60 + Number(minutes) + Number(seconds ?? 0) / 60;
  return sign === '-' ? -offset : offset;
}

function offsetAt(zone: Zone, epochMs: number): number {
  if (zone.isUniversal) return zone.offset(epochMs);
  let offsets = knownOffsets.get(zone);
  if (offsets === undefined) knownOffsets.set(zone, (offsets = new Map()));
  let offset = offsets.get(epochMs);
  if (offset === undefined) {
    offset = offsetOf(zone, epochMs);
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
// Luxon remains the source of zone names; Intl that of offsets.

type Wall = CalendarDate & TimeOfDay;

export function wallOfMillis(ms: number): Wall {
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

const FIRST_MS = Date.UTC(MIN_YEAR, 0, 1);
const PAST_LAST_MS = Date.UTC(MAX_YEAR + 1, 0, 1);

/** The stamp of milliseconds read as UTC, for years MIN_YEAR to MAX_YEAR (toISOString writes them with four digits). */
function stampOfMillis(ms: number): Stamp {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

function momentAt(epochMs: number, zone: Zone): ZonedMoment | undefined {
  if (!Number.isFinite(epochMs)) return undefined;
  const offsetMinutes = offsetOf(zone, epochMs);
  const localMs = epochMs + offsetMinutes * 60_000;
  if (!Number.isFinite(offsetMinutes) || [localMs, epochMs].some((ms) => ms < FIRST_MS || ms >= PAST_LAST_MS)) return undefined;
  return { local: stampOfMillis(localMs), utc: stampOfMillis(epochMs), epochMs, offsetMinutes };
}

/** The moment of an instant, rendered in a zone. */
export function fromInstant(epochMs: number, zoneName: string): ZonedMoment | undefined {
  return momentAt(epochMs, zoneOrThrow(zoneName));
}

/**
 * The instant of a wall time (milliseconds of it read as UTC) in a zone whose offset (ms) `offsetMsAt` gives: a
 * time in a DST gap moves forward by the gap, an ambiguous one takes the earlier instant. The rule of every wall
 * time of the calendar, IANA zones and the zones an imported file defines alike.
 */
export function instantOfWall(wallMs: number, offsetMsAt: (epochMs: number) => number): number {
  const before = offsetMsAt(wallMs - DAY_MS);
  const after = offsetMsAt(wallMs + DAY_MS);
  if (before === after) return wallMs - before;
  const candidates = [before, after]
    .map((offset) => wallMs - offset)
    .filter((instant) => offsetMsAt(instant) === wallMs - instant)
    .sort((a, b) => a - b);
  return candidates[0] ?? wallMs - before;
}

const resolveWall = (wallMs: number, zone: Zone): number => instantOfWall(wallMs, (epochMs) => offsetOf(zone, epochMs) * 60_000);

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
  return ms === undefined ? undefined : fromWallMillis(ms, zoneName);
}

/** The moment of a wall time given as milliseconds read as UTC (a valid one: series expansion's wall times), in a zone. */
export function fromWallMillis(wallMs: number, zoneName: string): ZonedMoment | undefined {
  const zone = zoneOrThrow(zoneName);
  return momentAt(resolveWall(wallMs, zone), zone);
}

function nowWall(nowMs: number, zone: Zone): Wall {
  return wallOfMillis(nowMs + offsetOf(zone, nowMs) * 60_000);
}

/** A calendar date plus years and months (the same day, or the month's last day), then days: luxon's `plus`. */
function shiftDate(date: CalendarDate, shift: { years?: number; months?: number; days?: number }): CalendarDate {
  const months = date.year * 12 + (date.month - 1) + (shift.years ?? 0) * 12 + (shift.months ?? 0);
  const year = Math.floor(months / 12);
  const month = months - year * 12 + 1;
  const lastDay = wallOfMillis(millisOfWall(year, month + 1, 0)).day;
  const shifted = wallOfMillis(millisOfWall(year, month, Math.min(date.day, lastDay) + (shift.days ?? 0)));
  return { year: shifted.year, month: shifted.month, day: shifted.day };
}

/** ISO weekday, Monday 1 to Sunday 7. */
function weekdayOf(date: CalendarDate): number {
  return new Date(millisOfWall(date.year, date.month, date.day)).getUTCDay() || 7;
}

/** Days from a day of weekday `from` to weekday `to`: "this" is that day or ahead, "next" strictly ahead, "last" strictly behind. */
function daysToWeekday(from: number, to: number, direction: Direction): number {
  const forward = (to - from + 7) % 7;
  if (direction === 'this') return forward;
  if (direction === 'next') return forward || 7;
  return -((from - to + 7) % 7 || 7);
}

const MIDNIGHT: TimeOfDay = { hour: 0, minute: 0, second: 0 };

/** The instant a phrase names before its exact (hours and less) amounts; `undefined` when its day or time does not exist. */
function anchoredInstant(phrase: DatePhrase, nowMs: number, zone: Zone): number | undefined {
  const wall = nowWall(nowMs, zone);
  let date: CalendarDate = { year: wall.year, month: wall.month, day: wall.day };
  let time: TimeOfDay = { hour: wall.hour, minute: wall.minute, second: wall.second };
  if (phrase.date !== undefined) {
    if (wallMillis({ ...phrase.date, ...MIDNIGHT }) === undefined) return undefined;
    date = phrase.date;
    time = MIDNIGHT;
  }
  if (phrase.resetTime) time = MIDNIGHT;
  date = shiftDate(date, { days: phrase.dayShift });
  if (phrase.weekday !== undefined) {
    date = shiftDate(date, { days: daysToWeekday(weekdayOf(date), phrase.weekday.day, phrase.weekday.direction) });
    time = MIDNIGHT;
  }
  if (phrase.time !== undefined) time = phrase.time;
  date = shiftDate(date, phrase.relative);
  const ms = wallMillis({ ...date, ...time });
  if (ms === undefined) return undefined;
  return phrase.offsetMinutes === undefined ? resolveWall(ms, zone) : ms - phrase.offsetMinutes * 60_000;
}

/** A phrase read at `nowMs` in a zone: hours, minutes and seconds move the instant, not the wall time. */
function momentOfPhrase(phrase: DatePhrase, nowMs: number, zone: Zone): ZonedMoment | undefined {
  const { relative } = phrase;
  const calendarShift = relative.years !== 0 || relative.months !== 0 || relative.days !== 0;
  const base = phrase.anchored || calendarShift ? anchoredInstant(phrase, nowMs, zone) : nowMs;
  if (base === undefined) return undefined;
  const exact = (relative.hours * 3600 + relative.minutes * 60 + relative.seconds) * 1000;
  return momentAt(base + exact, zone);
}

const MAX_TIMESTAMP = 253_402_300_799;

function momentOfTimestamp(seconds: number, zone: Zone): ZonedMoment | undefined {
  return Number.isInteger(seconds) && Math.abs(seconds) <= MAX_TIMESTAMP ? momentAt(seconds * 1000, zone) : undefined;
}

/**
 * Parses a date of the grammar (dates.grammar.ts) in a zone. Integers are
 * UNIX timestamps (instants). `undefined` when the text is not in the
 * grammar or out of range.
 */
export function parseDate(input: string | number, zoneName: string, now: Date = new Date()): ZonedMoment | undefined {
  const zone = zoneOrThrow(zoneName);
  if (typeof input === 'number') return momentOfTimestamp(input, zone);
  if (typeof input !== 'string') return undefined;
  const text = readDateText(input);
  if (text === undefined) return undefined;
  return text.kind === 'timestamp' ? momentOfTimestamp(text.seconds, zone) : momentOfPhrase(text.phrase, now.getTime(), zone);
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

/** The reference's date details object: zero-padded string components (strings on the wire, whatever its docs say). */
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
  return numericAbbreviation(offsetOf(zone, epochMs));
}

/** ISO 8601 with the zone's offset at that instant (`2017-01-05T14:23:36-05:00`), for JSON-LD. */
export function isoWithOffset(epochMs: number, zoneName: string): string {
  const zone = zoneOrThrow(zoneName);
  const offset = offsetAt(zone, epochMs);
  const local = new Date(epochMs + offset * 60_000)
    .toISOString()
    .replace(/\.000Z$/, '')
    .replace(/Z$/, '');
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
