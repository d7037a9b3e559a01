import type { Kysely } from 'kysely';

// The events list walks this index in its order (local start, publication date, id) and reads
// every filter of the default query from it (end, status, publication date, author), so events
// that ended before the window are skipped without reading their rows. Frozen: Kysely only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('events_listing_cover')
    .on('events')
    .columns(['hide_from_listings', 'start_local', 'date', 'id', 'end_local', 'status', 'date_utc', 'author_id'])
    .execute();
  await db.schema.dropIndex('events_listing').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('events_listing').on('events').columns(['hide_from_listings', 'start_local', 'date', 'id']).execute();
  await db.schema.dropIndex('events_listing_cover').execute();
}
