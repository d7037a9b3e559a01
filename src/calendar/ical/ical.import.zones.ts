import ICAL from 'ical.js';
import { fromInstant, isValidZoneName } from '../shared/dates.ts';

/**
 * The time zone of an imported time. An IANA TZID is used as it is (its
 * VTIMEZONE, if any, is only a copy of tz data). Any other TZID — Outlook's
 * Windows names such as "W. Europe Standard Time", or a name of the sender's
 * own — is read through the VTIMEZONE the file gives for it (ical.js), and the
 * event takes an IANA zone whose offsets agree with that VTIMEZONE on every
 * day of the event's year and the next, so that a series keeps its wall time
 * across daylight saving changes; when none agrees, the fixed offset of the
 * start (`UTC+01:00`).
 */

/** Preferred names among agreeing zones, for the Windows zones most often seen; only used when they agree. */
const PREFERRED: Readonly<Record<string, string>> = {
  'W. Europe Standard Time': 'Europe/Berlin',
  'Romance Standard Time': 'Europe/Paris',
  'Central Europe Standard Time': 'Europe/Budapest',
  'Central European Standard Time': 'Europe/Warsaw',
  'GMT Standard Time': 'Europe/London',
  'FLE Standard Time': 'Europe/Helsinki',
  'Eastern Standard Time': 'America/New_York',
  'Central Standard Time': 'America/Chicago',
  'Mountain Standard Time': 'America/Denver',
  'Pacific Standard Time': 'America/Los_Angeles',
  'Tokyo Standard Time': 'Asia/Tokyo',
  'AUS Eastern Standard Time': 'Australia/Sydney',
};

const DAY_MS = 86_400_000;

function vtimezoneOffsetMinutes(zone: ICAL.Timezone, epochMs: number): number {
  const time = ICAL.Time.fromJSDate(new Date(epochMs), true);
  return Math.round(zone.utcOffset(time) / 60);
}

function ianaOffsetMinutes(name: string, epochMs: number): number | undefined {
  const moment = fromInstant(epochMs, name);
  if (moment === undefined) return undefined;
  return Math.round((Date.parse(`${moment.local.replace(' ', 'T')}Z`) - epochMs) / 60_000);
}

function agrees(name: string, zone: ICAL.Timezone, instants: readonly number[]): boolean {
  return instants.every((instant) => ianaOffsetMinutes(name, instant) === vtimezoneOffsetMinutes(zone, instant));
}

/** An IANA zone that agrees with a VTIMEZONE through `year` and the year after, or undefined. */
export function ianaZoneMatching(tzid: string, zone: ICAL.Timezone, year: number): string | undefined {
  const first = Date.UTC(year, 0, 1, 12);
  const seasons = [0, 90, 181, 273].map((day) => first + day * DAY_MS);
  const everyDay = Array.from({ length: 731 }, (_, day) => first + day * DAY_MS);
  const preferred = PREFERRED[tzid];
  const names = [...(preferred === undefined ? [] : [preferred]), ...Intl.supportedValuesOf('timeZone')];
  // Four instants rule out nearly every zone cheaply; the survivors are checked on every day of two years.
  return names.find((name) => isValidZoneName(name) && agrees(name, zone, seasons) && agrees(name, zone, everyDay));
}

/** `UTC±HH:MM` of a VTIMEZONE at an instant. */
export function fixedOffsetName(zone: ICAL.Timezone, epochMs: number): string {
  const minutes = vtimezoneOffsetMinutes(zone, epochMs);
  const sign = minutes < 0 ? '-' : '+';
  const hours = String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0');
  return `UTC${sign}${hours}:${String(Math.abs(minutes) % 60).padStart(2, '0')}`;
}

/** The instant of a wall time (`YYYYMMDDTHHMMSS`) in a VTIMEZONE, by ical.js. */
export function instantInVtimezone(wall: string, zone: ICAL.Timezone): number {
  const time = ICAL.Time.fromDateTimeString(
    `${wall.slice(0, 4)}-${wall.slice(4, 6)}-${wall.slice(6, 8)}T${wall.slice(9, 11)}:${wall.slice(11, 13)}:${wall.slice(13, 15)}`,
  );
  time.zone = zone;
  return time.toUnixTime() * 1000;
}
