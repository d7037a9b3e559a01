import { sql, type Kysely } from 'kysely';

// The occurrences of a series by their series: only occurrences have a parent. Indexing the single events too
// (a NULL each) left SQLite's statistics saying every parent holds every event, so a membership check by series
// (`parent_id in (…)`, CalDAV's multiget) walked the whole listing index instead: 40 ms for 100 events at 100k.
// Frozen: Kysely only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('events_parent').execute();
  await db.schema.createIndex('events_parent').on('events').column('parent_id').where(sql.ref('parent_id'), 'is not', null).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('events_parent').execute();
  await db.schema.createIndex('events_parent').on('events').column('parent_id').execute();
}
