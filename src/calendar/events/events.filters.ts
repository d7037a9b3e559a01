import type { AuthUser } from '../../platform/auth/authenticate.ts';
import { cacheKey } from '../../platform/cache/read-cache.ts';
import type { Db } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import { assertOrganizersReadable } from '../organizers/organizers.links.ts';
import type { RequestContext } from '../common/context.ts';
import { endOfDay, nowIn, parseDate, plusCalendar, startOfDay, type Stamp } from '../common/dates.ts';
import { echoPairs, type QueryPairs } from '../common/pagination.ts';
import { modifiedBounds } from '../posts/posts.modified.ts';
import { canRead, exposureOf, listVisibility, mayListUnpublished, requestedStatuses, utcStamp } from '../posts/posts.access.ts';
import { boundedSearchWords, invalidParam, parseIdList, parseWpBoolean } from '../common/wire.ts';
import { resolveTermFilter } from '../terms/terms.links.ts';
import { assertVenuesReadable } from '../venues/venues.links.ts';
import { boundingBox, distanceKm } from './events.geo.ts';
import { findEventById, findLongestDurationDays, findPostType, findVenuesInBox, type EventListFilter } from './events.repository.ts';
import { DEFAULT_GEOLOC_RADIUS_KM, type ListEventsQuery } from './events.schemas.ts';

/**
 * The arguments of `GET /events` turned into a repository filter (reference
 * §3.3–3.5 with deviations 5, 6, 9 and 13), and echoed back in archive links.
 */

type MutableFilter = { -readonly [K in keyof EventListFilter]: EventListFilter[K] };

/** Echo order of list arguments in archive links (the reference's, then deviation 9's additions). */
const ECHO_ORDER = [
  'per_page',
  'start_date',
  'end_date',
  'search',
  'geoloc',
  'geoloc_lat',
  'geoloc_lng',
  'status',
  'post_parent',
  'include',
  'starts_before',
  'starts_after',
  'ends_before',
  'ends_after',
  'ticketed',
  'venue',
  'organizer',
  'featured',
  'categories',
  'tags',
  'strict_dates',
  'geoloc_radius',
  'modified_after',
  'modified_before',
  'translation_language',
] as const;

const RELATIVE_BOUNDS = ['starts_before', 'starts_after', 'ends_before', 'ends_after'] as const;
const MODIFIED_BOUNDS = ['modified_after', 'modified_before'] as const;
type DateArgument = 'start_date' | 'end_date' | (typeof RELATIVE_BOUNDS)[number];

const ticketsNotActive = () =>
  new AppError(400, 'rest_invalid_param', 'Invalid parameter(s): ticketed', {
    params: { ticketed: 'Event Tickets plugin is not activated.' },
    details: { ticketed: { code: 'event-tickets-not-active', message: 'Event Tickets plugin is not activated.', data: { status: 400 } } },
  });

/** The arguments as archive links repeat them: as sent, the defaulted status spelled out. */
export function listEcho(query: ListEventsQuery, perPage: number, user: AuthUser | null): QueryPairs {
  const values: Record<string, unknown> = {
    ...query,
    per_page: perPage,
    status: query.status ?? (mayListUnpublished(user) ? 'any' : 'publish'),
  };
  return echoPairs(values, ECHO_ORDER);
}

/** WordPress splits a search into words, keeping quoted phrases. */
function searchWords(search: string): string[] {
  const words = [...search.matchAll(/"([^"]+)"|(\S+)/g)].map((match) => (match[1] ?? match[2] ?? '').trim()).filter((word) => word !== '');
  return boundedSearchWords(words, search.trim());
}

/** Date bounds of a list: wall-clock stamps of the site zone, compared with each event's local start or end. */
interface DateWindow {
  readonly startFrom?: Stamp;
  readonly startTo?: Stamp;
  readonly startBefore?: Stamp;
  readonly startAfter?: Stamp;
  readonly endFrom?: Stamp;
  readonly endTo?: Stamp;
  readonly endBefore?: Stamp;
  readonly endAfter?: Stamp;
}

/**
 * The date bounds a list asks for at `now`, with the defaults: a function
 * of the arguments and the clock (to the second) alone, no database.
 * Inclusive mode widens bounds to whole days.
 */
function dateWindow(query: ListEventsQuery, zone: string, now: Date): DateWindow {
  const strict = parseWpBoolean(query.strict_dates) === true;
  const bound = (name: DateArgument, inclusive: (stamp: Stamp) => Stamp): Stamp | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    const moment = parseDate(value, zone, now);
    if (moment === undefined) throw invalidParam(name, `Invalid date: ${name}.`);
    return strict ? moment.local : inclusive(moment.local);
  };
  const bounds = {
    startFrom: bound('start_date', startOfDay),
    endTo: bound('end_date', endOfDay),
    startBefore: bound('starts_before', endOfDay),
    startAfter: bound('starts_after', endOfDay),
    endBefore: bound('ends_before', endOfDay),
    endAfter: bound('ends_after', endOfDay),
  };
  // Any relative bound drops both defaults, as the reference does; so does asking by modification, which the event's own dates do not bound.
  if ([...RELATIVE_BOUNDS, ...MODIFIED_BOUNDS].some((name) => query[name] !== undefined)) return bounds;
  // Deviation 5: by default, events still running today and starting within 24 months (site-local).
  const today = startOfDay(nowIn(zone, now).local);
  return {
    ...bounds,
    ...(bounds.startFrom === undefined ? { endFrom: today } : {}),
    ...(bounds.endTo === undefined ? { startTo: endOfDay(plusCalendar(today, { months: 24 })) } : {}),
  };
}

async function addDateBounds(db: Db, filter: MutableFilter, query: ListEventsQuery, caller: RequestContext, now: Date): Promise<void> {
  const window = dateWindow(query, caller.site.timezone, now);
  const include = query.include === undefined ? [] : parseIdList(query.include, 'include');
  if (include.length > 0) {
    // Deviation 6: include ignores every date filter.
    filter.includeIds = include;
    return;
  }
  Object.assign(filter, window);
  // No event running on that day (or ending after that moment) started before it minus the longest duration: the index walk
  // starts there. The calendar pages ask for each view's days so (ends_after and starts_before).
  const endsFrom = window.endFrom ?? (window.startFrom === undefined ? window.endAfter : undefined);
  if (endsFrom !== undefined) {
    filter.startFrom = plusCalendar(endsFrom, { days: -(await longestDurationDays(db, caller)) - 1 });
  }
  // Nor did an event ending before a moment start after it (a day's margin: across a DST fall-back its local end may precede its
  // local start): the walk stops there, and a list of past events read latest first starts there rather than at the last event.
  // The last day of stamps has no next one (a five-digit year would sort before every other stamp).
  const endsBy = window.endBefore ?? window.endTo;
  if (endsBy !== undefined && endsBy < '9999-12-31' && window.startTo === undefined && window.startBefore === undefined) {
    filter.startTo = plusCalendar(endsBy, { days: 1 });
  }
}

/** The most whole days an event spans, read once per calendar version: only a write changes it, and each starts a version. */
async function longestDurationDays(db: Db, caller: RequestContext): Promise<number> {
  const version = await caller.version();
  return version.once(
    cacheKey('events-longest-days'),
    () => findLongestDurationDays(db),
    () => 8,
  );
}

async function linkedIds(
  db: Db,
  value: string | readonly string[] | undefined,
  param: 'venue' | 'organizer',
  assertReadable: (db: Db, ids: number[], caller: RequestContext) => Promise<void>,
  caller: RequestContext,
): Promise<number[] | undefined> {
  if (value === undefined) return undefined;
  const ids = parseIdList(value, param);
  if (ids.length === 0) throw invalidParam(param);
  const readable = async () => {
    await assertReadable(db, ids, caller);
    return true;
  };
  // Anonymous readers may read the same posts while the version holds (a write or a publication ends it); a refusal is not cached.
  if (caller.user === null) {
    const version = await caller.version();
    await version.once(cacheKey('readable', param, ...ids), readable, () => 8 * ids.length);
  } else await readable();
  return ids;
}

/** Venues within `radiusKm` of a point: the box uses the index, the great circle decides. */
async function venuesNear(db: Db, filter: MutableFilter, latitude: number, longitude: number, radiusKm: number): Promise<number[]> {
  const box = boundingBox(latitude, longitude, radiusKm);
  const venues = await findVenuesInBox(db, box.latitude, box.longitudes, { ...filter, now: filter.nowUtc });
  return venues.filter((venue) => distanceKm(latitude, longitude, venue.geo_lat, venue.geo_lng) <= radiusKm).map((venue) => venue.id);
}

/**
 * What names a list's events within a calendar version: its whole filter but the instant it is read at (a version
 * holds across instants: calendar-version.ts).
 */
export function filterKey(filter: EventListFilter): string {
  const { nowUtc: _now, ...rest } = filter;
  return JSON.stringify(rest);
}

export async function listFilter(db: Db, query: ListEventsQuery, caller: RequestContext, now: Date): Promise<EventListFilter> {
  const filter: MutableFilter = {
    visibility: listVisibility(caller.user),
    exposure: exposureOf(caller.user, query.context),
    statuses: requestedStatuses(caller.user, query.status),
    nowUtc: utcStamp(now),
    ...modifiedBounds(query),
  };
  if (parseWpBoolean(query.ticketed) === true) throw ticketsNotActive();
  await addDateBounds(db, filter, query, caller, now);
  if (query.search !== undefined) {
    filter.search = { words: searchWords(query.search), languages: [...new Set([caller.language, caller.defaultLanguage])] };
  }
  if (query.categories !== undefined) filter.categoryIds = await resolveTermFilter(db, 'category', query.categories, caller, 'categories');
  if (query.tags !== undefined) filter.tagIds = await resolveTermFilter(db, 'tag', query.tags, caller, 'tags');
  filter.venueIds = await linkedIds(db, query.venue, 'venue', assertVenuesReadable, caller);
  filter.organizerIds = await linkedIds(db, query.organizer, 'organizer', assertOrganizersReadable, caller);
  if (query.featured !== undefined) filter.featured = parseWpBoolean(query.featured);
  if (query.geoloc !== undefined) filter.geolocated = parseWpBoolean(query.geoloc);
  if (query.geoloc_lat !== undefined || query.geoloc_lng !== undefined) {
    if (query.geoloc_lat === undefined) throw invalidParam('geoloc_lat', 'geoloc_lat is required with geoloc_lng.');
    if (query.geoloc_lng === undefined) throw invalidParam('geoloc_lng', 'geoloc_lng is required with geoloc_lat.');
    filter.nearVenueIds = await venuesNear(db, filter, query.geoloc_lat, query.geoloc_lng, query.geoloc_radius ?? DEFAULT_GEOLOC_RADIUS_KM);
  }
  if (query.post_parent !== undefined) {
    // A parent the caller may not read is unknown to it.
    const parent = (await findPostType(db, query.post_parent)) === 'event' ? await findEventById(db, query.post_parent) : undefined;
    if (parent === undefined || !canRead(caller.user, parent, now)) throw invalidParam('post_parent');
    filter.parentId = query.post_parent;
  }
  return filter;
}
