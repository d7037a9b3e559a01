import { PostgresAdapter, type Kysely } from 'kysely';

// Every list leaves series out (`recurrence is null or parent_id is not null`: a series is listed as its
// occurrences) and filters of an anonymous list match only unprotected events (`password_hash is null`), and
// `events_listing_cover` held none of those columns, so each entry of the walk read its row: over 100k events a
// month's grid (5.3k entries) took 9.4 ms instead of 4.2, the same filtered by a category 16.5 instead of 10.1, and
// the default list's total was a table scan (24 ms) instead of an index walk (8 ms). SQLite gets the columns in the
// index (an expression or a partial index is not covering for its planner). PostgreSQL keeps its index: a btree
// entry is at most ~2.7 kB and a rule's text may be longer, and the same columns as a partial index (`where
// recurrence is null or parent_id is not null`), though index-only for a grid (2.8 ms instead of 11.5), made its
// planner walk `events_status_start` for a list's later pages (3.3 ms instead of 0.5).
// SQLite also drops `events_status_start` (status, local start), which every list now finds in this index: once
// `PRAGMA optimize` has statistics, its equality on `status` (a bound parameter, so no histogram helps) made the
// planner prefer it for a grid's window, reading each row and sorting (15 ms instead of 4.9 over 100k events);
// a list of one rare status (drafts) now reads them through `events_status_date_utc` and sorts (2 ms, was 0.2).
// Frozen: Kysely only.
const COLUMNS = ['hide_from_listings', 'start_local', 'date', 'id', 'end_local', 'status', 'date_utc', 'author_id'];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await db.schema
    .createIndex('events_listing')
    .on('events')
    .columns([...COLUMNS, 'parent_id', 'recurrence', 'password_hash'])
    .execute();
  await db.schema.dropIndex('events_listing_cover').execute();
  await db.schema.dropIndex('events_status_start').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await db.schema.createIndex('events_status_start').on('events').columns(['status', 'start_local']).execute();
  await db.schema.createIndex('events_listing_cover').on('events').columns(COLUMNS).execute();
  await db.schema.dropIndex('events_listing').execute();
}
