import { PostgresAdapter, type Kysely } from 'kysely';

// A venue's list in list order: with planner statistics and no value samples (src/platform/db/dialect/sqlite.ts),
// SQLite walked the listing index for a venue's page, reading the row of every event of the window to find the
// venue's (3.5 ms a page at 20k events); through `(venue_id)` alone it reads the venue's rows and sorts them. In
// list order after the venue, a page is one walk of the venue's own entries. PostgreSQL plans from its own
// statistics and keeps its index. Frozen: Kysely only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await db.schema.dropIndex('events_venue').execute();
  await db.schema
    .createIndex('events_venue')
    .on('events')
    .columns(['venue_id', 'hide_from_listings', 'start_local', 'date', 'id'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await db.schema.dropIndex('events_venue').execute();
  await db.schema.createIndex('events_venue').on('events').column('venue_id').execute();
}
