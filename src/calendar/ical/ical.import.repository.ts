import { sql, type SqlBool } from 'kysely';
import type { Db } from '../../platform/db/schema.ts';

/** What an import needs to know of an event it may update. */
export interface ImportTarget {
  readonly id: number;
  readonly sequence: number;
  readonly modified_utc: string;
  readonly parent_id: number | null;
  readonly is_exception: number;
  readonly timezone: string;
  readonly status: string;
  readonly password_hash: string | null;
  readonly website: string | null;
}

const TARGET_COLUMNS = [
  'id',
  'sequence',
  'modified_utc',
  'parent_id',
  'is_exception',
  'timezone',
  'status',
  'password_hash',
  'website',
] as const;

export async function findEventIdByUid(db: Db, uid: string): Promise<number | undefined> {
  const row = await db.selectFrom('event_ical_uids').select('event_id').where('uid', '=', uid).executeTakeFirst();
  return row?.event_id;
}

export async function insertUid(db: Db, uid: string, eventId: number): Promise<void> {
  await db.insertInto('event_ical_uids').values({ uid, event_id: eventId }).execute();
}

export async function findImportTarget(db: Db, id: number): Promise<ImportTarget | undefined> {
  return db.selectFrom('events').select(TARGET_COLUMNS).where('id', '=', id).executeTakeFirst();
}

/** The occurrence of a series whose rule gave it `originalStartUtc` (`YYYY-MM-DD HH:MM:SS`). */
export async function findOccurrence(db: Db, seriesId: number, originalStartUtc: string): Promise<ImportTarget | undefined> {
  return db
    .selectFrom('events')
    .select(TARGET_COLUMNS)
    .where('parent_id', '=', seriesId)
    .where('original_start_utc', '=', originalStartUtc)
    .executeTakeFirst();
}

/**
 * An imported event's SEQUENCE is at least its source's, so that the file's
 * next version is recognised as newer; never lower than it is, so that an
 * update by an import counts as the edit it is (and the same file imported
 * again is not newer).
 */
export async function raiseSequence(db: Db, id: number, sequence: number): Promise<void> {
  await db.updateTable('events').set({ sequence }).where('id', '=', id).where('sequence', '<', sequence).execute();
}

const hasName = (type: 'venue' | 'organizer', name: string) =>
  sql<SqlBool>`exists (select 1 from translations t where t.resource_type = ${type} and t.resource_id = p.id and t.field = ${type} and lower(t.value) = lower(${name}))`;

/** Venues named `name` (any language, any case) that are not trashed, oldest first, with their coordinates. */
export async function findVenuesNamed(db: Db, name: string) {
  return db
    .selectFrom('venues as p')
    .select(['p.id', 'p.geo_lat', 'p.geo_lng'])
    .where('p.status', '<>', 'trash')
    .where(hasName('venue', name))
    .orderBy('p.id')
    .execute();
}

/** The oldest organizer, not trashed, with this e-mail address (any case). */
export async function findOrganizerByEmail(db: Db, email: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('organizers as p')
    .select('p.id')
    .where('p.status', '<>', 'trash')
    .where(sql<SqlBool>`lower(p.email) = lower(${email})`)
    .orderBy('p.id')
    .executeTakeFirst();
  return row?.id;
}

/** The oldest organizer, not trashed, named `name` (any language, any case). */
export async function findOrganizerByName(db: Db, name: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('organizers as p')
    .select('p.id')
    .where('p.status', '<>', 'trash')
    .where(hasName('organizer', name))
    .orderBy('p.id')
    .executeTakeFirst();
  return row?.id;
}
