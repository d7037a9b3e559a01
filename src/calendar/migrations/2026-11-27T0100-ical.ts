import type { Kysely } from 'kysely';

// iCalendar (issue 22). `sequence` is an event's RFC 5545 SEQUENCE: 0 when created, one more on every
// edit of the event, so calendar apps that subscribe to a feed take the newer version. `event_ical_uids`
// keeps the UID an event came with from an imported file, so that importing the file again updates it
// and feeds give it back; events born here have a UID made of their id (not of their dates), and no row.
// Frozen: Kysely only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('events')
    .addColumn('sequence', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('event_ical_uids')
    .addColumn('uid', 'text', (col) => col.primaryKey())
    .addColumn('event_id', 'integer', (col) => col.notNull().unique().references('post_ids.id').onDelete('cascade'))
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('event_ical_uids').execute();
  await db.schema.alterTable('events').dropColumn('sequence').execute();
}
