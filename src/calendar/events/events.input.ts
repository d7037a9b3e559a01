import { endOfDay, fromWallTime, isValidZoneName, startOfDay, type Stamp, type ZonedMoment } from '../common/dates.ts';
import { sanitizeContent, sanitizeText } from '../common/html.ts';
import { invalidParam, isHttpUrl, parseWpBoolean } from '../common/wire.ts';
import { parseWriteDate } from '../posts/posts.writes.ts';
import { parseCurrency } from './events.cost.ts';
import type { EventChanges, EventRow, NewEventRow } from './events.repository.ts';
import type { UpdateEventBody } from './events.schemas.ts';

/**
 * An event write's own fields, validated and normalised into column values
 * (the post fields every post shares are in posts.writes.ts).
 */

export type EventSchedule = Pick<NewEventRow, 'timezone' | 'all_day' | 'start_local' | 'end_local' | 'start_utc' | 'end_utc'>;

function zoneOf(timezone: string | undefined, fallback: string, siteZone: string): string {
  if (timezone === undefined) return fallback;
  if (timezone.trim() === '') return siteZone;
  if (!isValidZoneName(timezone.trim())) throw invalidParam('timezone', 'Unknown time zone.');
  return timezone.trim();
}

/** Does the write change when the event is (then `scheduleOf` must be computed)? */
export function touchesSchedule(body: UpdateEventBody): boolean {
  return [body.start_date, body.end_date, body.timezone, body.all_day].some((value) => value !== undefined);
}

/**
 * Start and end in their zone: wall time and instant computed together, never patched apart.
 * Unsent dates keep their stored wall time, re-read in a new zone.
 */
export function scheduleOf(
  body: UpdateEventBody,
  current: Pick<EventRow, 'start_local' | 'end_local' | 'timezone' | 'all_day'> | undefined,
  siteZone: string,
  now: Date,
): EventSchedule {
  const zone = zoneOf(body.timezone, current?.timezone ?? siteZone, siteZone);
  const allDay = parseWpBoolean(body.all_day) ?? current?.all_day === 1;
  const read = (name: 'start_date' | 'end_date', stored: Stamp | undefined): ZonedMoment => {
    const sent = body[name];
    if (sent !== undefined) return parseWriteDate(name, sent, zone, now);
    const moment = stored === undefined ? undefined : fromWallTime(stored, zone);
    if (moment === undefined) throw invalidParam(name);
    return moment;
  };
  let start = read('start_date', current?.start_local);
  let end = read('end_date', current?.end_local);
  if (allDay) {
    start = fromWallTime(startOfDay(start.local), zone) ?? start;
    end = fromWallTime(endOfDay(end.local), zone) ?? end;
  }
  if (end.epochMs < start.epochMs) throw invalidParam('end_date', 'The end date must not be before the start date.');
  return {
    timezone: zone,
    all_day: allDay ? 1 : 0,
    start_local: start.local,
    end_local: end.local,
    start_utc: start.utc,
    end_utc: end.utc,
  };
}

/** `website`: empty or an http(s) URL. */
export function websiteOf(website: string | undefined): string | undefined {
  if (website === undefined) return undefined;
  const value = website.trim();
  if (value !== '' && !isHttpUrl(value)) throw invalidParam('website', 'Invalid URL.');
  return value;
}

const FLAGS = ['show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured'] as const;

/** The boolean fields sent, as stored (0/1). */
export function flagChanges(body: UpdateEventBody): EventChanges {
  const changes: EventChanges = {};
  for (const flag of FLAGS) {
    const value = parseWpBoolean(body[flag]);
    if (value !== undefined) changes[flag] = value ? 1 : 0;
  }
  return changes;
}

/** One cost as a string, several as an array (never split: `1,000$` is one). */
export function costChanges(cost: string | readonly string[] | undefined): EventChanges {
  if (cost === undefined) return {};
  const costs = [cost]
    .flat()
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (costs.length === 0) return { cost: null, currency_symbol: '', currency_position: '' };
  const currency = parseCurrency(costs);
  return { cost: JSON.stringify(costs), currency_symbol: currency.symbol, currency_position: currency.position };
}

/** The translatable texts sent, sanitized; unsent ones `undefined`. */
export function textsOf(body: UpdateEventBody): { title?: string; description?: string; excerpt?: string } {
  return {
    title: body.title === undefined ? undefined : sanitizeText(body.title),
    description: body.description === undefined ? undefined : sanitizeContent(body.description),
    excerpt: body.excerpt === undefined ? undefined : sanitizeContent(body.excerpt),
  };
}
