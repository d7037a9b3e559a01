import type { Kysely } from 'kysely';

// Recurring events (issue 21). A series is an event row holding `recurrence` (its RFC 5545 lines, JSON)
// and no parent; each occurrence is an event row with the series as parent, the series' recurrence
// copied, and the start the rule gave it (`original_start_*`), so lists, filters and visibility treat
// occurrences as the events they are, through the same indexes. `event_occurrences` keeps the id of
// every (series, original start) for the life of the series: an occurrence that an edit removes and a
// later edit brings back gets its id again. Frozen: Kysely only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').addColumn('recurrence', 'text').execute();
  await db.schema.alterTable('events').addColumn('original_start_local', 'text').execute();
  await db.schema.alterTable('events').addColumn('original_start_utc', 'text').execute();
  await db.schema
    .alterTable('events')
    .addColumn('is_exception', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  // A series whose rule has no end is stored up to a horizon; the series due for more are found by it.
  await db.schema.alterTable('events').addColumn('recurrence_horizon', 'text').execute();
  await db.schema.createIndex('events_recurrence_horizon').on('events').column('recurrence_horizon').execute();
  await db.schema
    .createTable('event_occurrences')
    .addColumn('series_id', 'integer', (col) => col.notNull().references('post_ids.id').onDelete('cascade'))
    .addColumn('original_start_utc', 'text', (col) => col.notNull())
    .addColumn('id', 'integer', (col) => col.notNull().unique().references('post_ids.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('event_occurrences_pk', ['series_id', 'original_start_utc'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('event_occurrences').execute();
  await db.schema.dropIndex('events_recurrence_horizon').execute();
  for (const column of ['recurrence_horizon', 'is_exception', 'original_start_utc', 'original_start_local', 'recurrence']) {
    await db.schema.alterTable('events').dropColumn(column).execute();
  }
}
