import { sql } from 'kysely';
import { inParts } from '../../platform/db/bounded-lists.ts';
import type { Db } from '../../platform/db/schema.ts';
import type { ListVisibility } from '../posts/posts.access.ts';
import '../calendar.tables.ts';

/** What CalDAV reads beyond what the events service lists: resource names, versions, the categories. */

/** The event an imported UID names, if any (events born here are named by their own UID, ical.uid.ts). */
export async function findEventIdOfImportedUid(db: Db, uid: string): Promise<number | undefined> {
  const row = await db.selectFrom('event_ical_uids').select('event_id').where('uid', '=', uid).executeTakeFirst();
  return row === undefined ? undefined : Number(row.event_id);
}

/** The event a CalDAV client put at `name` (other than its UID), if any. */
export async function findEventIdOfResourceName(db: Db, name: string): Promise<number | undefined> {
  const row = await db.selectFrom('caldav_resource_names').select('event_id').where('name', '=', name).executeTakeFirst();
  return row === undefined ? undefined : Number(row.event_id);
}

/** The events `names` name, by name: an imported UID, else the name a CalDAV client put an event at; in one statement. */
export async function findEventIdsOfNames(db: Db, names: readonly string[]): Promise<Map<string, number>> {
  if (names.length === 0) return new Map();
  const imported = db
    .selectFrom('event_ical_uids')
    .select(['uid as name', 'event_id', sql<number>`0`.as('rank')])
    .where('uid', 'in', [...names]);
  const put = db
    .selectFrom('caldav_resource_names')
    .select(['name', 'event_id', sql<number>`1`.as('rank')])
    .where('name', 'in', [...names]);
  const rows = await imported.unionAll(put).execute();
  // An imported UID wins over a name: set last.
  rows.sort((a, b) => Number(b.rank) - Number(a.rank));
  return new Map(rows.map((row) => [row.name, Number(row.event_id)]));
}

export async function insertResourceName(db: Db, name: string, eventId: number): Promise<void> {
  await db.insertInto('caldav_resource_names').values({ name, event_id: eventId }).execute();
}

/** Each event's version (its last change in the log), by id. */
export async function findEventVersions(db: Db, ids: readonly number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('calendar_changes')
    .select(['item_id', 'seq'])
    .where('type', '=', 'event')
    .where('item_id', 'in', [...ids])
    .execute();
  return new Map(rows.map((row) => [Number(row.item_id), Number(row.seq)]));
}

/**
 * The version of each resource among `ids` as a reader whose lists are `visibility` sees it: the last change of the
 * event or, for a series, of the series and any of its occurrences (changes are numbered by one revision, so the
 * highest moves with any of them), counting only changes that reader can see: what anonymous readers see of an item
 * moves its `public_seq`, not a hidden draft's edits (the rules of the change log, changes.repository.ts).
 * `'every'`: every resource stored, in one pass over the table, for a calendar that holds nearly all of them (at
 * 100k events 7 times faster than by ids, a thousand at a time).
 */
export async function findResourceVersions(
  db: Db,
  ids: readonly number[] | 'every',
  visibility: ListVisibility,
): Promise<Map<number, number>> {
  if (ids !== 'every' && ids.length === 0) return new Map();
  const owner = sql<number | string>`coalesce(events.parent_id, events.id)`;
  const seen =
    visibility.kind === 'all-but-trash'
      ? sql<number | string>`calendar_changes.seq`
      : visibility.kind === 'published'
        ? sql<number | string>`calendar_changes.public_seq`
        : sql<
            number | string
          >`case when calendar_changes.author_id = ${visibility.userId} then calendar_changes.seq else calendar_changes.public_seq end`;
  const versions = db
    .selectFrom('events')
    .innerJoin('calendar_changes', (join) =>
      join.onRef('calendar_changes.item_id', '=', 'events.id').on('calendar_changes.type', '=', 'event'),
    )
    .select([owner.as('owner'), sql<number | string>`max(${seen})`.as('seq')])
    .groupBy(owner);
  // A part holds each of its owners' rows whole: the owner by its id, its occurrences by their parent.
  const rows =
    ids === 'every'
      ? await versions.execute()
      : await inParts(ids, (part) =>
          versions.where((eb) => eb.or([eb('events.id', 'in', [...part]), eb('events.parent_id', 'in', [...part])])).execute(),
        );
  return new Map(rows.map((row) => [Number(row.owner), Number(row.seq)]));
}

/** The series each of `ids` belongs to (itself when it is none's occurrence); ids no longer stored are left out. */
export async function findOwnersOf(db: Db, ids: readonly number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('events')
    .select(['id', 'parent_id'])
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((row) => [row.id, row.parent_id ?? row.id]));
}

/** Every category's id, oldest first. */
export async function listCategoryIds(db: Db): Promise<number[]> {
  const rows = await db.selectFrom('terms').select('id').where('taxonomy', '=', 'category').orderBy('id').execute();
  return rows.map((row) => row.id);
}
