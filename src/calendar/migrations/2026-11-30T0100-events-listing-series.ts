import { PostgresAdapter, type Kysely } from 'kysely';

// Every list leaves series out (`recurrence is null or parent_id is not null`: a series is listed as its
// occurrences) and filters of an anonymous list match only unprotected events (`password_hash is null`), and
// `events_listing_cover` held none of those columns, so each entry of the walk read its row: over 100k events a
// month's grid (5.3k entries) took 9.4 ms instead of 4.2, the same filtered by a category 16.5 instead of 10.1, and
// the default list's total was a table scan (24 ms) instead of an index walk (8 ms). SQLite gets the columns in the
// index (an expression or a partial index is not covering for its planner); PostgreSQL the series condition as the
// index's predicate, which its planner proves from the query, since a btree entry is at most ~2.7 kB and a rule's
// text may be longer.
// Frozen: Kysely only.
const COLUMNS = ['hide_from_listings', 'start_local', 'date', 'id', 'end_local', 'status', 'date_utc', 'author_id'];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const index = db.schema.createIndex('events_listing').on('events');
  await (
    postgres
      ? index.columns(COLUMNS).where((eb) => eb.or([eb('recurrence', 'is', null), eb('parent_id', 'is not', null)]))
      : index.columns([...COLUMNS, 'parent_id', 'recurrence', 'password_hash'])
  ).execute();
  await db.schema.dropIndex('events_listing_cover').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('events_listing_cover').on('events').columns(COLUMNS).execute();
  await db.schema.dropIndex('events_listing').execute();
}
