import { fromInstant, fromWallTime, isValidZoneName } from '../common/dates.ts';
import { ImportProblemError, type ImportProblemCode, type ProblemParams } from '../common/import-problems.ts';
import { ZONE_PROPERTY } from './ical.feed.ts';
import type { CreateEventBody } from '../events/events.schemas.ts';
import { splitTextList, unescapeText, type Component, type ContentLine, type ParsedCalendar } from './ical.import.parse.ts';
import { FileZones, fixedOffsetName, ianaZoneMatching, instantInVtimezone } from './ical.import.zones.ts';

/**
 * What one VEVENT of an imported file says, read before anything is looked
 * up (docs/calendar-ical.md, "What each property becomes"): its times in
 * the file's zones, its texts as safe HTML, its rule lines, location and
 * organizer. A problem of the event is an `EventProblem` naming its line.
 */

/** A problem of one event, reported with its line. */
export class EventProblem extends ImportProblemError {
  constructor(
    readonly line: number,
    code: ImportProblemCode,
    params: ProblemParams = {},
  ) {
    super(code, params);
  }
}

export const property = (component: Component, name: string): ContentLine | undefined =>
  component.properties.find((line) => line.name === name);
const properties = (component: Component, name: string): ContentLine[] => component.properties.filter((line) => line.name === name);

/** Plain text as safe HTML: escaped, blank-line-separated paragraphs in `<p>`, single newlines as `<br />`. */
function textToHtml(text: string): string {
  const escaped = text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
  return escaped
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .filter((block) => block !== '')
    .map((block) => `<p>${block.replace(/\n/g, '<br />')}</p>`)
    .join('\n');
}

type Moment = { readonly kind: 'day'; readonly day: string } | { readonly kind: 'time'; readonly epochMs: number; readonly zone: string };

export const utcStamp = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 19).replace('T', ' ');
const dayStamp = (value: string) => `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6, 8)}`;
const wallStamp = (value: string) => `${dayStamp(value)} ${value.slice(9, 11)}:${value.slice(11, 13)}:${value.slice(13, 15)}`;

// The calendar holds the years 1000–9999 (dates.ts); a year less at each end keeps an event's wall time in them in every zone.
const FIRST_YEAR = 1001;
const LAST_YEAR = 9998;
const FIRST_MS = Date.UTC(FIRST_YEAR, 0, 1);
const END_MS = Date.UTC(LAST_YEAR + 1, 0, 1);

const outsideYears = (property: ContentLine, value: string) =>
  new EventProblem(property.line, 'ical_outside_years', { property: property.name, value, first: FIRST_YEAR, last: LAST_YEAR });

/** How one file's times are read: its VTIMEZONEs, its X-WR-TIMEZONE, the site zone. */
export class FileTimes {
  private readonly matched = new Map<string, string | undefined>();
  private readonly zones: FileZones;

  constructor(
    private readonly calendar: ParsedCalendar,
    private readonly siteZone: string,
  ) {
    this.zones = new FileZones(calendar.zones);
  }

  /** Zone of times without one (floating, or UTC with no TZID): X-WR-TIMEZONE, else the site's. */
  get defaultZone(): string {
    return this.calendar.calendarZone ?? this.siteZone;
  }

  /**
   * One DATE or DATE-TIME value of a property (checked by the parser); one outside the calendar's years is a problem
   * of the event. `zone` is the one of a time without TZID.
   */
  moment(property: ContentLine, value = property.value.trim(), params = property.params, zone = this.defaultZone): Moment {
    const year = Number(value.slice(0, 4));
    if (year < FIRST_YEAR || year > LAST_YEAR) throw outsideYears(property, value);
    const moment = this.momentOf(value, params, zone);
    if (moment.kind === 'time' && (moment.epochMs < FIRST_MS || moment.epochMs >= END_MS)) throw outsideYears(property, value);
    return moment;
  }

  private momentOf(value: string, params: Readonly<Record<string, string>>, defaultZone: string): Moment {
    if (params.VALUE?.toUpperCase() === 'DATE') return { kind: 'day', day: dayStamp(value) };
    if (value.endsWith('Z')) return { kind: 'time', epochMs: Date.parse(`${wallStamp(value).replace(' ', 'T')}Z`), zone: defaultZone };
    const tzid = params.TZID;
    const vtimezone = tzid === undefined ? undefined : this.zones.get(tzid);
    if (tzid !== undefined && vtimezone !== undefined) {
      const epochMs = instantInVtimezone(value, vtimezone);
      if (!this.matched.has(tzid)) this.matched.set(tzid, ianaZoneMatching(tzid, vtimezone, Number(value.slice(0, 4))));
      return { kind: 'time', epochMs, zone: this.matched.get(tzid) ?? fixedOffsetName(vtimezone, epochMs) };
    }
    const zone = tzid ?? defaultZone;
    const moment = fromWallTime(wallStamp(value), zone);
    if (moment === undefined) throw new Error(`Unreadable time ${value} in ${zone}`);
    return { kind: 'time', epochMs: Date.parse(`${moment.utc.replace(' ', 'T')}Z`), zone };
  }

  /** An EXDATE or RDATE property as `recurrence` lines: UTC, a day, or a wall time in an IANA zone. */
  recurrenceLine(line: ContentLine): string {
    const values = line.value.split(',').map((value) => value.trim().split('/')[0] as string);
    if (line.params.VALUE?.toUpperCase() === 'DATE') return `${line.name};VALUE=DATE:${values.join(',')}`;
    const tzid = line.params.TZID;
    if (tzid !== undefined && this.zones.get(tzid) === undefined) return `${line.name};TZID=${tzid}:${values.join(',')}`;
    if (tzid === undefined && values.every((value) => !value.endsWith('Z'))) return `${line.name}:${values.join(',')}`;
    const utc = values.map((value) => {
      const moment = this.moment(line, value, { ...line.params, VALUE: 'DATE-TIME' });
      return moment.kind === 'time' ? `${utcStamp(moment.epochMs).replace(/[-:]/g, '').replace(' ', 'T')}Z` : value;
    });
    return `${line.name}:${utc.join(',')}`;
  }
}

/** The statuses a file may ask for: `future` comes of a publication date, `trash` of a delete. */
const ASKABLE_STATUSES = ['publish', 'private', 'pending', 'draft'] as const;
export type AskedStatus = (typeof ASKABLE_STATUSES)[number];

/**
 * What a VEVENT says of its event's status. Calendar apps send back what a
 * feed gave them, and a feed says CONFIRMED of private events: so only
 * Almanac's own X-ALMANAC-STATUS, which no feed writes, asks for a status;
 * STATUS:CANCELLED and CLASS:PRIVATE/CONFIDENTIAL only set a ceiling.
 */
export interface StatusSaid {
  readonly asked: AskedStatus | undefined;
  readonly atMost: 'draft' | 'private' | undefined;
}

function statusSaid(event: Component, cancelled: boolean): StatusSaid {
  const line = property(event, 'X-ALMANAC-STATUS');
  const value = line?.value.trim();
  const asked = ASKABLE_STATUSES.find((status) => status === value?.toLowerCase());
  if (line !== undefined && asked === undefined)
    throw new EventProblem(line.line, 'ical_status_unknown', { value: `${value}`, statuses: ASKABLE_STATUSES.join(', ') });
  const classified = ['PRIVATE', 'CONFIDENTIAL'].includes(property(event, 'CLASS')?.value.trim().toUpperCase() ?? '');
  return { asked, atMost: cancelled ? 'draft' : classified ? 'private' : undefined };
}

/** What a VEVENT says, before anything is looked up. */
export interface Draft {
  readonly line: number;
  readonly uid: string;
  readonly sequence: number;
  readonly lastModifiedMs: number | undefined;
  /** CREATED, in UTC (`YYYY-MM-DD HH:MM:SS`): a new event's publication date. */
  readonly created?: string;
  readonly cancelled: boolean;
  readonly status: StatusSaid;
  readonly recurrenceId: { readonly line: number; readonly moment: Moment } | undefined;
  readonly body: CreateEventBody;
  /** LOCATION's first line (the venue name) and the lines after it (its address), as Apple writes them. */
  readonly location: { readonly name: string; readonly address: string } | undefined;
  readonly geo: { readonly lat: number; readonly lng: number } | undefined;
  readonly organizer: { readonly name: string; readonly email: string | undefined } | undefined;
  /** The line of the property each argument of the write comes from, for the service's errors. */
  readonly lines: Readonly<Record<string, number>>;
  /** The names of the properties the VEVENT has. */
  readonly propertyNames: ReadonlySet<string>;
}

const PARAM_PROPERTIES: Readonly<Record<string, string>> = {
  title: 'SUMMARY',
  description: 'DESCRIPTION',
  start_date: 'DTSTART',
  end_date: 'DTEND',
  timezone: 'DTSTART',
  website: 'URL',
  venue: 'LOCATION',
  organizer: 'ORGANIZER',
  categories: 'CATEGORIES',
  recurrence: 'RRULE',
  status: 'X-ALMANAC-STATUS',
};

/** The event's own zone (X-ALMANAC-TIMEZONE), for its days and its times without TZID; else the file's. */
function eventZone(event: Component, times: FileTimes): string {
  const line = property(event, ZONE_PROPERTY);
  if (line === undefined) return times.defaultZone;
  const zone = line.value.trim();
  if (!isValidZoneName(zone)) throw new EventProblem(line.line, 'ical_zone_unknown', { property: ZONE_PROPERTY, zone });
  return zone;
}

export function draftOf(event: Component, times: FileTimes): Draft {
  const uid = property(event, 'UID')?.value.trim();
  if (uid === undefined || uid === '') throw new EventProblem(event.line, 'ical_no_uid');
  const dtstart = property(event, 'DTSTART');
  if (dtstart === undefined) throw new EventProblem(event.line, 'ical_no_dtstart');
  const zone = eventZone(event, times);
  const start = times.moment(dtstart, undefined, undefined, zone);
  const dtend = property(event, 'DTEND');
  const duration = property(event, 'DURATION');
  let schedule: Pick<CreateEventBody, 'start_date' | 'end_date' | 'timezone' | 'all_day'>;
  if (start.kind === 'day') {
    // An all-day event's DTEND is the day after its last (exclusive); the API takes its last day.
    const startMs = Date.parse(`${start.day}T00:00:00Z`);
    let endMs = startMs + 86_400_000;
    if (dtend !== undefined) {
      const end = times.moment(dtend, dtend.value.trim(), { ...dtend.params, VALUE: 'DATE' }, zone);
      if (end.kind === 'day') endMs = Date.parse(`${end.day}T00:00:00Z`);
    } else if (duration !== undefined) {
      endMs = endAfter(startMs, duration);
    }
    const lastDay = new Date(Math.max(startMs, endMs - 86_400_000)).toISOString().slice(0, 10);
    schedule = { start_date: `${start.day} 00:00:00`, end_date: `${lastDay} 00:00:00`, timezone: zone, all_day: true };
  } else {
    let endMs = start.epochMs;
    if (dtend !== undefined) {
      const end = times.moment(dtend, undefined, undefined, zone);
      endMs = end.kind === 'time' ? end.epochMs : Date.parse(`${end.day}T00:00:00Z`);
    } else if (duration !== undefined) {
      endMs = endAfter(start.epochMs, duration);
    }
    if (endMs < start.epochMs) throw new EventProblem((dtend ?? dtstart).line, 'ical_ends_before_start');
    const local = (epochMs: number) => fromInstant(epochMs, start.zone)?.local ?? utcStamp(epochMs);
    schedule = { start_date: local(start.epochMs), end_date: local(endMs), timezone: start.zone, all_day: false };
  }

  const text = (name: string) => {
    const line = property(event, name);
    return line === undefined ? undefined : unescapeText(line.value).trim();
  };
  const url = text('URL');
  const recurrence = [
    ...properties(event, 'RRULE').map((line) => `RRULE:${line.value.trim()}`),
    ...properties(event, 'EXDATE').map((line) => times.recurrenceLine(line)),
    ...properties(event, 'RDATE').map((line) => times.recurrenceLine(line)),
  ];
  const recurrenceIdLine = property(event, 'RECURRENCE-ID');
  const geoLine = property(event, 'GEO');
  const geoMatch = geoLine === undefined ? null : /^\s*(-?\d+(?:\.\d+)?)\s*[;,]\s*(-?\d+(?:\.\d+)?)\s*$/.exec(geoLine.value);
  const geo = geoMatch === null ? undefined : { lat: Number(geoMatch[1]), lng: Number(geoMatch[2]) };
  if (geo !== undefined && (Math.abs(geo.lat) > 90 || Math.abs(geo.lng) > 180))
    throw new EventProblem(geoLine?.line ?? event.line, 'ical_geo_out_of_range');
  const organizerLine = property(event, 'ORGANIZER');
  const mailto = organizerLine?.value.trim().replace(/^mailto:/i, '');
  const email = mailto !== undefined && /^[^\s@]+@[^\s@]+$/.test(mailto) ? mailto : undefined;
  const organizerName = organizerLine?.params.CN?.trim() || email;
  const lastModified = property(event, 'LAST-MODIFIED')?.value.trim();
  const created = property(event, 'CREATED')?.value.trim();
  const description = text('DESCRIPTION');
  const cancelled = text('STATUS')?.toUpperCase() === 'CANCELLED';
  return {
    line: event.line,
    uid,
    sequence: Number(property(event, 'SEQUENCE')?.value.trim() ?? 0),
    lastModifiedMs: lastModified?.endsWith('Z') === true ? Date.parse(`${wallStamp(lastModified).replace(' ', 'T')}Z`) : undefined,
    created: created?.endsWith('Z') === true ? wallStamp(created) : undefined,
    cancelled,
    status: statusSaid(event, cancelled),
    recurrenceId:
      recurrenceIdLine === undefined
        ? undefined
        : { line: recurrenceIdLine.line, moment: times.moment(recurrenceIdLine, undefined, undefined, zone) },
    body: {
      title: text('SUMMARY') || '(no title)',
      description: description === undefined ? '' : textToHtml(description),
      ...schedule,
      // No URL leaves the event without a website of its own (its JSON then shows its page).
      ...(url !== undefined && /^https?:\/\//i.test(url) ? { website: url } : {}),
      categories: properties(event, 'CATEGORIES').flatMap((line) => splitTextList(line.value)),
      recurrence,
    },
    location: locationOf(text('LOCATION')),
    geo,
    organizer: organizerName === undefined ? undefined : { name: organizerName, email },
    lines: Object.fromEntries(
      Object.entries(PARAM_PROPERTIES).map(([param, name]) => [
        param,
        (property(event, name) ?? property(event, param === 'recurrence' ? 'RDATE' : name) ?? event).line,
      ]),
    ),
    propertyNames: new Set(event.properties.map((line) => line.name)),
  };
}

function locationOf(text: string | undefined): Draft['location'] {
  const [name = '', ...rest] = (text ?? '').split('\n').map((part) => part.trim());
  return name === '' ? undefined : { name, address: rest.filter((part) => part !== '').join(', ') };
}

/** The end of an event that lasts `duration` from `startMs`; one past the calendar's years is a problem of the event. */
function endAfter(startMs: number, duration: ContentLine): number {
  const endMs = startMs + durationMs(duration.value);
  if (endMs >= END_MS) throw new EventProblem(duration.line, 'ical_duration_past_years', { value: duration.value.trim(), last: LAST_YEAR });
  return endMs;
}

function durationMs(value: string): number {
  const match = /^([+-])?P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(value.trim());
  if (match === null) return 0;
  const [, sign, weeks = '0', days = '0', hours = '0', minutes = '0', seconds = '0'] = match;
  const total = ((Number(weeks) * 7 + Number(days)) * 86_400 + Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds)) * 1000;
  return sign === '-' ? -total : total;
}
