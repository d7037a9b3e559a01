import ical, { ICalEventStatus, type ICalCalendar, type ICalEvent } from 'ical-generator';
import { DateTime, Duration } from 'luxon';
import { tzlib_get_ical_block, tzlib_get_timezones } from 'timezones-ical-library';
import type { EventResponse } from '../events/events.schemas.ts';
import type { ImageResponse } from '../common/images.ts';
import { parseLine, type RecurrenceTime } from '../recurrence/recurrence.grammar.ts';
import { fromInstant, fromWallTime, isValidZoneName, plusCalendar, utcStampMillis } from '../common/dates.ts';
import type { OriginalStart } from './ical.repository.ts';
import { textOfHtml } from './ical.text.ts';

/**
 * A VCALENDAR (RFC 5545, with RFC 7986's calendar properties) from events
 * as the JSON API shows them: pure, no storage, no clock. ical-generator
 * writes each VEVENT's structure and escapes its TEXT; timezones-ical-library
 * gives the VTIMEZONE of each zone used. The calendar around them is written
 * here, as are the lines ical-generator writes wrongly or not at all, and
 * each of those is tested (test/calendar/ical.feed.test.ts):
 * - its calendar folds with a TextEncoder per character (most of a feed's
 *   time), leaves the last line without CRLF, puts X- properties after the
 *   components and does not escape NAME: the calendar's lines are written
 *   here, every line folded at 75 octets without splitting a character.
 * - DTSTAMP, CREATED and LAST-MODIFIED come out as local times without `Z`
 *   once the calendar has a time zone: the calendar gets none (the site's is
 *   X-WR-TIMEZONE), so they are UTC.
 * - URL, ATTACH and IMAGE are URIs but are escaped as TEXT (`,` → `\,`); GEO is
 *   left out at latitude or longitude 0; ORGANIZER needs an email; an
 *   all-day RECURRENCE-ID is written as a DATE-TIME; RDATE alone would be
 *   written as `RRULE:RDATE…`; no LANGUAGE parameter. Those lines are written
 *   here, before END:VEVENT.
 */

/** An occurrence or a whole series as one VEVENT. */
export interface FeedComponent {
  /** RFC 5545 UID: the series' for its master and its exceptions (ical.uid.ts). */
  readonly uid: string;
  readonly sequence: number;
  /** What it shows, as the JSON API shows it to the caller (a series: the series itself). */
  readonly event: EventResponse;
  /** URL: the website the event was given, '' for none (the JSON's `website` then falls back to the event's page). */
  readonly website: string;
  /** A series master: its `recurrence` lines, and the exceptions that are not in the feed (never shown as the rule made them). */
  readonly series?: { readonly lines: readonly string[]; readonly excluded: readonly OriginalStart[] };
  /** An exception: the occurrence of its series it replaces (RECURRENCE-ID). */
  readonly replaces?: OriginalStart;
}

export interface Feed {
  /** NAME / X-WR-CALNAME. */
  readonly name: string;
  /** X-WR-TIMEZONE: the site's zone (apps that ignore TZIDs show times there). */
  readonly siteTimezone: string;
  /** The language of the texts (LANGUAGE parameters). */
  readonly language: string;
  /** REFRESH-INTERVAL and X-PUBLISHED-TTL, in seconds. */
  readonly refreshSeconds: number;
  readonly components: readonly FeedComponent[];
  /** One event's file (`/events/{id}.ics`): its image goes with it in full, as an ATTACH and a FULLSIZE IMAGE. */
  readonly single?: boolean;
}

const PRODUCT_ID = '//Almanac//Calendar events feed//EN';

/** The zone of an event whose DTSTART has no TZID (all-day, or written in UTC), which the import reads back. */
export const ZONE_PROPERTY = 'X-ALMANAC-TIMEZONE';

// The zones timezones-ical-library has a VTIMEZONE for (it logs and returns nothing for others).
const VTIMEZONE_ZONES = new Set(tzlib_get_timezones());

/** The TZID an event is written with, or undefined to write it in UTC (`UTC`, `UTC+2`, zones without a VTIMEZONE). */
function tzidOf(zone: string): string | undefined {
  return zone !== 'UTC' && VTIMEZONE_ZONES.has(zone) ? zone : undefined;
}

// Each zone's VTIMEZONE as a feed holds it (CRLF lines, folded, a CRLF after the last), the same in every feed:
// made once per zone.
const vtimezones = new Map<string, string | null>();

function vtimezoneOf(zone: string): string | null {
  let block = vtimezones.get(zone);
  if (block === undefined) {
    const written = VTIMEZONE_ZONES.has(zone) ? (tzlib_get_ical_block(zone)[0] ?? null) : null;
    block = written === null ? null : foldLines(`${written.replace(/\r?\n/g, '\r\n').trim()}\r\n`);
    vtimezones.set(zone, block);
  }
  return block;
}

/** TEXT value escaping (RFC 5545 §3.3.11), for lines written here. */
function escapeText(text: string): string {
  return text.replace(/[\\;,]/g, (char) => `\\${char}`).replace(/\r\n|\r|\n/g, '\\n');
}

/**
 * A parameter value: `^`, newlines and DQUOTE as RFC 6868 writes them (`^^`, `^n`, `^'`), other controls (which no
 * parameter may hold) as spaces, quoted when it holds what ends a plain value (`;`, `:`, `,`).
 */
function parameterValue(value: string): string {
  const encoded = value
    .replace(/\r\n?/g, '\n')
    .replace(/[\^\n"]/g, (char) => (char === '^' ? '^^' : char === '"' ? "^'" : '^n'))
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, ' ');
  return /[;:,]/.test(encoded) ? `"${encoded}"` : encoded;
}

/** A URI value: written as is, except what would break the line. */
function uriValue(uri: string): string {
  // eslint-disable-next-line no-control-regex
  return uri.replace(/[\u0000-\u001f\u007f]/g, (char) => encodeURIComponent(char));
}

const compactDate = (stamp: string) => stamp.slice(0, 10).replace(/-/g, '');
const compactUtc = (stamp: string) => `${stamp.replace(/[-:]/g, '').replace(' ', 'T')}Z`;
const utcDateTime = (stamp: string) => DateTime.fromMillis(utcStampMillis(stamp), { zone: 'utc' });
const dayAfter = (stamp: string) => plusCalendar(`${stamp.slice(0, 10)} 00:00:00`, { days: 1 });

function field(source: object, key: string): unknown {
  return (source as Record<string, unknown>)[key];
}
function textField(source: object, key: string): string {
  const value = field(source, key);
  return typeof value === 'string' ? textOfHtml(value) : '';
}

/** Whether it is written with whole days: an all-day event (a protected one shows its times instead, as the JSON does). */
const isAllDay = (event: EventResponse) => event.all_day === true;

/** LOCATION: the venue's name, then its address on one line. */
export function locationOf(event: EventResponse): { title: string; address: string } | undefined {
  if (Array.isArray(event.venue)) return undefined;
  const venue = event.venue;
  const title = textField(venue, 'venue');
  const address = ['address', 'city', 'stateprovince', 'zip', 'country']
    .map((key) => textField(venue, key))
    .filter((part) => part !== '')
    .join(', ');
  return title === '' && address === '' ? undefined : { title: title || address, address: title === '' ? '' : address };
}

/** GEO of the venue, when it has coordinates. */
function geoOf(event: EventResponse): string | undefined {
  if (Array.isArray(event.venue)) return undefined;
  const lat = field(event.venue, 'geo_lat');
  const lng = field(event.venue, 'geo_lng');
  return typeof lat === 'number' && typeof lng === 'number' ? `GEO:${lat};${lng}` : undefined;
}

/** ORGANIZER: the first organizer with an email the caller may see (a cal-address must be reachable); none otherwise. */
function organizerOf(event: EventResponse): string | undefined {
  for (const organizer of event.organizer) {
    const email = field(organizer, 'email');
    if (typeof email !== 'string' || !/^[^\s@:<>"]+@[^\s@:<>"]+$/.test(email)) continue;
    const name = textField(organizer, 'organizer');
    return `ORGANIZER${name === '' ? '' : `;CN=${parameterValue(name)}`}:mailto:${uriValue(email)}`;
  }
  return undefined;
}

/** EXDATE/RDATE values of a series, as instants (UTC) or days: never a TZID the feed has no VTIMEZONE for. */
function timesOf(times: readonly RecurrenceTime[], event: EventResponse): string {
  const zone = event.timezone;
  const allDay = isAllDay(event);
  const clock = event.start_date.slice(11);
  const values = times.map((time) => {
    if (allDay) {
      if (time.kind === 'date') return compactDate(time.date);
      if (time.kind === 'utc') return compactDate(fromInstant(utcStampMillis(time.stamp), zone)?.local ?? time.stamp);
      return compactDate(time.stamp);
    }
    if (time.kind === 'utc') return compactUtc(time.stamp);
    const stamp = time.kind === 'date' ? `${time.date} ${clock}` : time.stamp;
    const zoneOfTime = time.kind === 'local' ? (time.zone ?? zone) : zone;
    return compactUtc(fromWallTime(stamp, zoneOfTime)?.utc ?? stamp);
  });
  return `${allDay ? ';VALUE=DATE' : ''}:${values.join(',')}`;
}

/**
 * The RRULE/EXDATE/RDATE lines of a series master. UNTIL is UTC for a timed series and a DATE for an all-day
 * one (RFC 5545 §3.3.10); a DATE UNTIL of a timed series keeps its whole day.
 */
export function recurrenceLinesOf(lines: readonly string[], excluded: readonly OriginalStart[], event: EventResponse): string[] {
  const written: string[] = [];
  for (const line of lines) {
    const parsed = parseLine(line, isValidZoneName);
    if (parsed.name === 'RRULE') {
      const rule = parsed.rule.until;
      const until: RecurrenceTime | undefined =
        rule?.kind === 'date' && !isAllDay(event) ? { kind: 'local', stamp: `${rule.date} 23:59:59` } : rule;
      const value = line.trim().slice('RRULE:'.length).toUpperCase();
      written.push(
        `RRULE:${until === undefined ? value : value.replace(/UNTIL=[^;]+/, `UNTIL=${timesOf([until], event).replace(/^.*:/, '')}`)}`,
      );
    } else {
      written.push(`${parsed.name}${timesOf(parsed.times, event)}`);
    }
  }
  if (excluded.length > 0) {
    const times: RecurrenceTime[] = excluded.map((start) =>
      isAllDay(event) ? { kind: 'date', date: start.local.slice(0, 10) } : { kind: 'utc', stamp: start.utc },
    );
    written.push(`EXDATE${timesOf(times, event)}`);
  }
  return written;
}

/** A component as its VEVENT: CRLF lines, folded, a CRLF after the last. */
function veventOf(calendar: ICalCalendar, component: FeedComponent, feed: Feed): string {
  const { event } = component;
  const allDay = isAllDay(event);
  const tzid = allDay ? undefined : tzidOf(event.timezone);
  const inZone = (stamp: string) => (tzid === undefined ? utcDateTime(stamp) : utcDateTime(stamp).setZone(tzid));
  const day = (stamp: string) => DateTime.fromISO(stamp.slice(0, 10), { zone: 'utc' });
  const location = locationOf(event);
  const description = textOfHtml(event.description);
  const vevent: ICalEvent = calendar.createEvent({
    id: component.uid,
    sequence: component.sequence,
    // Without METHOD, DTSTAMP is when the information was last revised (RFC 5545 §3.8.7.2): stable between polls.
    stamp: utcDateTime(event.modified_utc),
    created: utcDateTime(event.date_utc),
    lastModified: utcDateTime(event.modified_utc),
    timezone: tzid ?? null,
    allDay,
    start: allDay ? day(event.start_date) : inZone(event.utc_start_date),
    // All-day events end on the day after their last (DTEND is exclusive).
    end: allDay ? day(dayAfter(event.end_date)) : inZone(event.utc_end_date),
    summary: textOfHtml(event.title),
    description: description === '' ? null : description,
    location: location ?? null,
    categories: event.categories.map((term) => ({ name: textField(term, 'name') })).filter((term) => term.name !== ''),
    status: event.status === 'draft' || event.status === 'pending' ? ICalEventStatus.TENTATIVE : ICalEventStatus.CONFIRMED,
  });
  // A day or a UTC time names no zone; the event's own keeps its days and wall times when the file is imported.
  const extra: string[] = tzid === undefined ? [`${ZONE_PROPERTY}:${event.timezone}`] : [];
  if (component.replaces !== undefined) {
    const original = component.replaces;
    extra.push(
      allDay
        ? `RECURRENCE-ID;VALUE=DATE:${compactDate(original.local)}`
        : tzid === undefined
          ? `RECURRENCE-ID:${compactUtc(original.utc)}`
          : `RECURRENCE-ID;TZID=${tzid}:${compactUtc(original.local).slice(0, -1)}`,
    );
  }
  if (component.series !== undefined) extra.push(...recurrenceLinesOf(component.series.lines, component.series.excluded, event));
  if (component.website !== '') extra.push(`URL;VALUE=URI:${uriValue(component.website)}`);
  if (event.image !== false) extra.push(...imageLinesOf(event.image, feed.single === true));
  const geo = geoOf(event);
  if (geo !== undefined) extra.push(geo);
  const organizer = organizerOf(event);
  if (organizer !== undefined) extra.push(organizer);
  const written = withLanguage(vevent.toString(), feed.language);
  return foldLines(written.replace(/END:VEVENT\r\n$/, `${extra.map((line) => `${line}\r\n`).join('')}END:VEVENT\r\n`));
}

/**
 * RFC 5545 §3.1 folding exactly as ical-generator folds (a line breaks before the character that takes it past 74
 * octets, each character whole, a surrogate pair as one), without an encoder per character.
 */
export function foldLines(text: string): string {
  return text.split('\r\n').map(foldLine).join('\r\n');
}

function foldLine(line: string): string {
  // eslint-disable-next-line no-control-regex -- ASCII: one octet a character.
  if (line.length <= 74 && /^[\u0000-\u007f]*$/.test(line)) return line;
  let folded = '';
  let octets = 0;
  for (const char of line) {
    const code = char.charCodeAt(0);
    const size = char.length === 2 ? 4 : code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
    octets += size;
    if (octets > 74) {
      folded += '\r\n ';
      octets = size;
    }
    folded += char;
  }
  return folded;
}

/**
 * RFC 7986's IMAGE: in every file a BADGE (the thumbnail, or the image itself when it has none) that calendar apps
 * show beside the event; in one event's file also the FULLSIZE image, and the ATTACH apps that predate RFC 7986 show.
 */
function imageLinesOf(image: ImageResponse, single: boolean): string[] {
  const type = `FMTTYPE=${imageType(image.extension)}`;
  const badge = image.sizes?.thumbnail?.url ?? image.url;
  const lines = [`IMAGE;VALUE=URI;DISPLAY=BADGE;${type}:${uriValue(badge)}`];
  if (single) lines.push(`IMAGE;VALUE=URI;DISPLAY=FULLSIZE;${type}:${uriValue(image.url)}`, `ATTACH;${type}:${uriValue(image.url)}`);
  return lines;
}

function imageType(extension: string): string {
  const lower = extension.toLowerCase();
  return `image/${lower === 'jpg' ? 'jpeg' : lower === 'svg' ? 'svg+xml' : /^[a-z0-9.+-]+$/.test(lower) ? lower : 'jpeg'}`;
}

/** LANGUAGE on the texts ical-generator writes (it has no parameter for it). Lines are not folded yet. */
function withLanguage(vevent: string, language: string): string {
  return vevent.replace(/^(SUMMARY|DESCRIPTION|LOCATION):/gm, `$1;LANGUAGE=${language}:`);
}

/** The feed as text/calendar: the calendar's properties, the VTIMEZONE of each zone its events use, its VEVENTs. */
export function toICalendar(feed: Feed): string {
  const calendar = ical();
  const vevents = feed.components.map((component) => veventOf(calendar, component, feed));
  const zones = new Set(calendar.events().flatMap((vevent) => vevent.timezone() ?? []));
  const name = escapeText(feed.name);
  // An RFC 5545 duration in its largest units (PT1H): ISO 8601's, as luxon writes it.
  const refresh = Duration.fromObject({ seconds: feed.refreshSeconds }).rescale().toISO();
  const properties = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    `PRODID:-${PRODUCT_ID}`,
    ...(name === '' ? [] : [`NAME:${name}`, `X-WR-CALNAME:${name}`]),
    `REFRESH-INTERVAL;VALUE=DURATION:${refresh}`,
    `X-PUBLISHED-TTL:${refresh}`,
    `X-WR-TIMEZONE:${escapeText(feed.siteTimezone)}`,
  ];
  const vtimezones = [...zones].flatMap((zone) => vtimezoneOf(zone) ?? []);
  return `${foldLines(properties.join('\r\n'))}\r\n${vtimezones.join('')}${vevents.join('')}END:VCALENDAR\r\n`;
}
