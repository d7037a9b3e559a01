import {
  sql,
  type ExpressionBuilder,
  type Insertable,
  type Selectable,
  type SelectQueryBuilder,
  type SqlBool,
  type Expression,
  type Updateable,
} from 'kysely';
import { inParts, VALUES_PER_PART } from '../../platform/db/bounded-lists.ts';
import { lockingRows } from '../../platform/db/row-locks.ts';
import { behind } from '../../platform/db/group-commit.ts';
import type { ModifiedBounds } from '../posts/posts.modified.ts';
import type { Database, Db } from '../../platform/db/schema.ts';
import type { EventTable, PostType } from '../calendar.tables.ts';
import type { Exposure, ListVisibility } from '../posts/posts.access.ts';
import { exposedIn, reservePostId, translationContains, visibleIn } from '../posts/posts.repository.ts';
import { isPostgres } from '../../platform/db/dialect-of.ts';
import '../calendar.tables.ts';

type Eb = ExpressionBuilder<Database, 'events'>;

export type EventRow = Selectable<EventTable>;
export type NewEventRow = Insertable<EventTable>;
export type EventChanges = Updateable<EventTable>;

/** Everything an events list can be filtered by; bounds are local wall-time stamps. */
export interface EventListFilter extends ModifiedBounds {
  readonly visibility: ListVisibility;
  /** Whose protected content (texts, venue, organizers, terms, flags) search and filters may match on. */
  readonly exposure: Exposure;
  /** Explicit statuses (without `any`); all the caller may read when absent. */
  readonly statuses?: readonly string[];
  readonly nowUtc: string;
  readonly startFrom?: string;
  readonly startTo?: string;
  readonly startBefore?: string;
  readonly startAfter?: string;
  readonly endFrom?: string;
  readonly endTo?: string;
  readonly endBefore?: string;
  readonly endAfter?: string;
  readonly search?: { readonly words: readonly string[]; readonly languages: readonly string[] };
  readonly categoryIds?: readonly number[];
  readonly tagIds?: readonly number[];
  readonly venueIds?: readonly number[];
  readonly organizerIds?: readonly number[];
  readonly featured?: boolean;
  /** true: the venue has coordinates; false: no venue or no coordinates. */
  readonly geolocated?: boolean;
  /** Venues within the geolocation radius. */
  readonly nearVenueIds?: readonly number[];
  readonly parentId?: number;
  readonly includeIds?: readonly number[];
  /** Only this user's events (the editor's author filter; the API has none). */
  readonly authorId?: number;
}

function isPublished(eb: Eb, nowUtc: string): Expression<SqlBool> {
  return eb.or([eb('events.status', '=', 'publish'), eb.and([eb('events.status', '=', 'future'), eb('events.date_utc', '<=', nowUtc)])]);
}

function statusCondition(eb: Eb, status: string, nowUtc: string): Expression<SqlBool> {
  if (status === 'publish') return isPublished(eb, nowUtc);
  if (status === 'future') return eb.and([eb('events.status', '=', 'future'), eb('events.date_utc', '>', nowUtc)]);
  return eb('events.status', '=', status);
}

/** Deviation 9: what the caller may see, intersected with the statuses asked for. */
function visibilityCondition(eb: Eb, filter: EventListFilter): Expression<SqlBool> {
  const { visibility, statuses, nowUtc } = filter;
  const asked = statuses === undefined ? undefined : eb.or(statuses.map((status) => statusCondition(eb, status, nowUtc)));
  switch (visibility.kind) {
    case 'published':
      return isPublished(eb, nowUtc);
    case 'published-or-own': {
      const mine = eb('events.author_id', '=', visibility.userId);
      if (asked === undefined) return eb.or([isPublished(eb, nowUtc), eb.and([mine, eb('events.status', '<>', 'trash')])]);
      return eb.and([asked, eb.or([isPublished(eb, nowUtc), mine])]);
    }
    case 'all-but-trash':
      return asked ?? eb('events.status', '<>', 'trash');
  }
}

/** A venue the caller may read, and whose coordinates it may see. */
function locatedVenue(eb: Eb, filter: EventListFilter) {
  const readable = visibleIn('venues', { visibility: filter.visibility, statuses: undefined, now: filter.nowUtc });
  return eb.exists(
    eb
      .selectFrom('venues')
      .select('venues.id')
      .whereRef('venues.id', '=', 'events.venue_id')
      .where('venues.geo_lat', 'is not', null)
      .where('venues.geo_lng', 'is not', null)
      .where(readable)
      .where(exposedIn('venues', filter.exposure)),
  );
}

// The event whose texts an event shows: a generated occurrence its series' (events.inherited.ts).
const TEXTS_OWNER = sql<number>`case when events.parent_id is not null and events.is_exception = 0 then events.parent_id else events.id end`;

/**
 * How a filter on links (terms, organizers) is asked: `walk` (EXISTS per event) suits an ordered walk of the listing
 * index that stops after a page; `count` (IN the linked ids) suits a count, which SQLite then drives from the
 * links, looking each event up by id: a category's total over 100k events in 11 ms instead of 30.
 */
type LinkProbe = 'walk' | 'count';

function conditions(eb: Eb, filter: EventListFilter, asked: LinkProbe = 'walk'): Expression<SqlBool> {
  // Ids named by the filter drive any statement: the links are probed per event.
  const probe = filter.includeIds === undefined ? asked : 'walk';
  const all: Expression<SqlBool>[] = [
    eb('events.hide_from_listings', '=', 0),
    // A series is listed as its occurrences.
    eb.or([eb('events.recurrence', 'is', null), eb('events.parent_id', 'is not', null)]),
    visibilityCondition(eb, filter),
  ];
  // What a protected event strips is absent: a filter on it matches only exposed events (issue 19).
  const exposed = exposedIn('events', filter.exposure);
  const onStripped = (condition: Expression<SqlBool>) => all.push(eb.and([exposed, condition]));
  const bound = (
    column: 'events.start_local' | 'events.end_local' | 'events.modified_utc',
    op: '>=' | '<=' | '<' | '>',
    value: string | undefined,
  ) => {
    if (value !== undefined) all.push(eb(column, op, value));
  };
  bound('events.start_local', '>=', filter.startFrom);
  bound('events.start_local', '<=', filter.startTo);
  bound('events.start_local', '<', filter.startBefore);
  bound('events.start_local', '>', filter.startAfter);
  bound('events.end_local', '>=', filter.endFrom);
  bound('events.end_local', '<=', filter.endTo);
  bound('events.end_local', '<', filter.endBefore);
  bound('events.end_local', '>', filter.endAfter);
  bound('events.modified_utc', '>', filter.modifiedAfter);
  bound('events.modified_utc', '<', filter.modifiedBefore);
  if (filter.authorId !== undefined) all.push(eb('events.author_id', '=', filter.authorId));
  for (const word of filter.search?.words ?? []) {
    const languages = filter.search?.languages ?? [];
    const inTitle = translationContains('event', TEXTS_OWNER, ['title'], languages, word);
    const inTexts = translationContains('event', TEXTS_OWNER, ['excerpt', 'description'], languages, word);
    all.push(eb.or([inTitle, eb.and([exposed, inTexts])]));
  }
  for (const ids of [filter.categoryIds, filter.tagIds]) {
    if (ids === undefined) continue;
    const links = eb
      .selectFrom('event_terms')
      .select('event_terms.event_id')
      .where('event_terms.term_id', 'in', ids.length > 0 ? [...ids] : [-1]);
    onStripped(probe === 'count' ? eb('events.id', 'in', links) : eb.exists(links.whereRef('event_terms.event_id', '=', 'events.id')));
  }
  if (filter.venueIds !== undefined) onStripped(eb('events.venue_id', 'in', [...filter.venueIds]));
  if (filter.nearVenueIds !== undefined)
    onStripped(eb('events.venue_id', 'in', filter.nearVenueIds.length > 0 ? [...filter.nearVenueIds] : [-1]));
  if (filter.organizerIds !== undefined) {
    const links = eb
      .selectFrom('event_organizers')
      .select('event_organizers.event_id')
      .where('event_organizers.organizer_id', 'in', [...filter.organizerIds]);
    onStripped(probe === 'count' ? eb('events.id', 'in', links) : eb.exists(links.whereRef('event_organizers.event_id', '=', 'events.id')));
  }
  // A stripped flag is absent: not featured, not located.
  if (filter.featured !== undefined) {
    const featured = eb.and([exposed, eb('events.featured', '=', 1)]);
    all.push(filter.featured ? featured : eb.not(featured));
  }
  if (filter.geolocated !== undefined) {
    const located = eb.and([exposed, locatedVenue(eb, filter)]);
    all.push(filter.geolocated ? located : eb.not(located));
  }
  if (filter.parentId !== undefined) all.push(eb('events.parent_id', '=', filter.parentId));
  if (filter.includeIds !== undefined) all.push(eb('events.id', 'in', filter.includeIds.length > 0 ? [...filter.includeIds] : [-1]));
  return eb.and(all);
}

export async function countEvents(db: Db, filter: EventListFilter): Promise<number> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number | string>().as('total'))
    .where((eb) => conditions(eb, filter, 'count'))
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

/** The ids of the events the filter matches, up to `limit`: a total maintained from version to version (events.listing.ts). */
export async function listEventIds(db: Db, filter: EventListFilter, limit?: number): Promise<number[]> {
  let query = db
    .selectFrom('events')
    .select('events.id')
    .where((eb) => conditions(eb, filter, 'count'));
  if (limit !== undefined) query = query.limit(limit);
  const rows = await query.execute();
  return rows.map((row) => row.id);
}

/**
 * The items a filter's events belong to: each single event, and the series of each occurrence (what a CalDAV
 * collection holds); with `during`, only those with an event of the list running within it (UTC stamps, end
 * exclusive); with `owners`, only those among them.
 */
export async function listOwnerIds(
  db: Db,
  filter: EventListFilter,
  { during, owners }: { during?: { from?: string; to?: string }; owners?: readonly number[] } = {},
): Promise<number[]> {
  if (owners !== undefined && owners.length > VALUES_PER_PART) {
    // Each owner is bound twice.
    const parts = await inParts(owners, (part) => listOwnerIds(db, filter, { during, owners: part }));
    return [...new Set(parts)].sort((a, b) => a - b);
  }
  if (owners?.length === 0) return [];
  const owner = sql<number | string>`coalesce(events.parent_id, events.id)`;
  const rows = await db
    .selectFrom('events')
    .select(owner.as('owner'))
    .distinct()
    .where((eb) => conditions(eb, filter, 'count'))
    // An owner's own row by its key, its occurrences by their parent: both indexed, where `owner in` is not.
    .$if(owners !== undefined, (query) =>
      query.where((eb) =>
        eb.or([
          eb('events.parent_id', 'in', owners as readonly number[]),
          eb.and([eb('events.parent_id', 'is', null), eb('events.id', 'in', owners as readonly number[])]),
        ]),
      ),
    )
    .$if(during?.to !== undefined, (query) => query.where('events.start_utc', '<', during?.to as string))
    // An event of no duration runs at its start (RFC 4791 §9.9).
    .$if(during?.from !== undefined, (query) =>
      query.where((eb) => eb.or([eb('events.end_utc', '>', during?.from as string), eb('events.start_utc', '>=', during?.from as string)])),
    )
    .execute();
  return rows.map((row) => Number(row.owner)).sort((a, b) => a - b);
}

/** Where an event of a list runs: its id and its local start and end stamps (`YYYY-MM-DD hh:mm:ss`). */
export interface EventSpan {
  readonly id: number;
  readonly start_local: string;
  readonly end_local: string;
}

/**
 * Where every event the filter matches runs, in list order (local start, publication date, id): what a calendar
 * grid counts and places. On SQLite read from the listing index alone (`events_listing`), without the rows.
 */
export async function listEventSpans(db: Db, filter: EventListFilter): Promise<EventSpan[]> {
  return db
    .selectFrom('events')
    .select(['events.id', 'events.start_local', 'events.end_local'])
    .where((eb) => conditions(eb, filter))
    .orderBy('events.start_local')
    .orderBy('events.date')
    .orderBy('events.id')
    .execute();
}

/** The order of an events list: the API's is `asc`; `desc` (latest first) is the pages' past events. */
export type EventOrder = 'asc' | 'desc';

/**
 * One page of events: by local start, then publication date, then id
 * (with `include`: publication date, then id, as the reference); all three
 * reversed with `desc`, so that either way the list walks one index.
 */
export async function listEvents(
  db: Db,
  filter: EventListFilter,
  limit: number,
  offset: number,
  order: EventOrder = 'asc',
): Promise<EventRow[]> {
  return pageOf(db.selectFrom('events').selectAll('events'), filter, limit, offset, order).execute();
}

/** The ids on one page of events, in `listEvents`' order: on SQLite read from the listing index alone, without the rows. */
export async function listEventPageIds(
  db: Db,
  filter: EventListFilter,
  limit: number,
  offset: number,
  order: EventOrder,
): Promise<number[]> {
  const rows = await pageOf(db.selectFrom('events').select('events.id'), filter, limit, offset, order).execute();
  return rows.map((row) => row.id);
}

function pageOf<O>(
  query: SelectQueryBuilder<Database, 'events', O>,
  filter: EventListFilter,
  limit: number,
  offset: number,
  order: EventOrder,
) {
  const matching = query.where((eb) => conditions(eb, filter));
  const ordered =
    filter.includeIds === undefined
      ? matching.orderBy('events.start_local', order).orderBy('events.date', order)
      : matching.orderBy('events.date', order);
  // The limit bound as an integer: better-sqlite3 binds a JS number as a REAL, and SQLite's planner then ignores the
  // limit and sorts the whole window (a month of 100k events: 10 ms instead of 0.5 ms, docs/perf.md).
  return ordered.orderBy('events.id', order).limit(BigInt(limit)).offset(offset);
}

/**
 * The most whole days any event spans (column `duration_days`, maintained by the
 * database, migration 2026-11-22T0547): one index read.
 */
export async function findLongestDurationDays(db: Db): Promise<number> {
  const row = await db
    .selectFrom('events')
    .select(sql<number | string | null>`max(duration_days)`.as('days'))
    .executeTakeFirst();
  return Number(row?.days ?? 0);
}

export async function findEventById(db: Db, id: number): Promise<EventRow | undefined> {
  return db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The event's row and its version (its change's number in the log) in one statement: what a write answers with. */
export async function findEventWithVersion(db: Db, id: number): Promise<{ row: EventRow; version: number | undefined } | undefined> {
  const found = await db
    .selectFrom('events')
    .selectAll('events')
    .select((eb) =>
      eb
        .selectFrom('calendar_changes')
        .select('seq')
        .where('calendar_changes.type', '=', 'event')
        .whereRef('calendar_changes.item_id', '=', 'events.id')
        .as('version_seq'),
    )
    .where('events.id', '=', id)
    .executeTakeFirst();
  if (found === undefined) return undefined;
  const { version_seq: seq, ...row } = found;
  return { row, version: seq === null ? undefined : Number(seq) };
}

/** Event rows by id, in id order (ids that are not events are left out). */
export async function findEventsByIds(db: Db, ids: readonly number[]): Promise<EventRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('events')
    .selectAll()
    .where('id', 'in', [...ids])
    .orderBy('id')
    .execute();
}

/** The event a write is about to change, held until the write's transaction ends (see lockingRows). */
export async function findEventForWrite(trx: Db, id: number): Promise<EventRow | undefined> {
  return lockingRows(trx, trx.selectFrom('events').selectAll().where('id', '=', id)).executeTakeFirst();
}

/** What kind of post an id belongs to (ids are shared by events, venues, organizers and images). */
export async function findPostType(db: Db, id: number): Promise<PostType | undefined> {
  const row = await db.selectFrom('post_ids').select('type').where('id', '=', id).executeTakeFirst();
  return row?.type;
}

export async function insertEvent(db: Db, row: NewEventRow): Promise<void> {
  await db.insertInto('events').values(row).execute();
}

/**
 * Inserts an event under a new post id, and returns its row. PostgreSQL reserves the id in the same statement (a
 * round trip saved); SQLite, whose WITH takes no insert, reserves it first.
 */
export async function insertNewEvent(db: Db, row: Omit<NewEventRow, 'id'>): Promise<EventRow> {
  if (!isPostgres(db)) {
    const id = await reservePostId(db, 'event');
    return db
      .insertInto('events')
      .values({ ...row, id })
      .returningAll()
      .executeTakeFirstOrThrow();
  }
  return db
    .with('new_post', (query) => query.insertInto('post_ids').values({ type: 'event' }).returning('id'))
    .insertInto('events')
    .values((eb) => ({ ...row, id: eb.selectFrom('new_post').select('id') }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateEvent(db: Db, id: number, changes: EventChanges): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  await db.updateTable('events').set(changes).where('id', '=', id).execute();
}

/** Deletes an event for good: its links cascade with it, its id row goes too (asked for together, in this order: in a transaction). */
export async function deleteEvent(db: Db, id: number): Promise<void> {
  await behind(db.deleteFrom('events').where('id', '=', id).execute(), () => db.deleteFrom('post_ids').where('id', '=', id).execute());
}

export async function userExists(db: Db, id: number): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}

/**
 * Venues with coordinates inside a latitude/longitude box (longitude ranges may wrap: several), among
 * those the caller may read and whose coordinates it may see.
 */
export async function findVenuesInBox(
  db: Db,
  latitude: readonly [number, number],
  longitudes: readonly (readonly [number, number])[],
  scope: { readonly visibility: ListVisibility; readonly exposure: Exposure; readonly now: string },
): Promise<{ id: number; geo_lat: number; geo_lng: number }[]> {
  const rows = await db
    .selectFrom('venues')
    .select(['id', 'geo_lat', 'geo_lng'])
    .where(visibleIn('venues', { visibility: scope.visibility, statuses: undefined, now: scope.now }))
    .where(exposedIn('venues', scope.exposure))
    .where('geo_lat', '>=', latitude[0])
    .where('geo_lat', '<=', latitude[1])
    .where((eb) => eb.or(longitudes.map(([from, to]) => eb.and([eb('geo_lng', '>=', from), eb('geo_lng', '<=', to)]))))
    .execute();
  return rows.flatMap((row) =>
    row.geo_lat === null || row.geo_lng === null ? [] : [{ id: row.id, geo_lat: Number(row.geo_lat), geo_lng: Number(row.geo_lng) }],
  );
}
