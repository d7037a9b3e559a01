import type { Kysely } from 'kysely';

// CalDAV writes (issue 42). A calendar app puts a new event at an address it names itself, most often its UID; when
// it names it otherwise (a UID with characters an address cannot carry), that name is kept here so that the event is
// read, replaced and deleted where the app put it. Frozen: Kysely only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('caldav_resource_names')
    .addColumn('name', 'text', (col) => col.primaryKey())
    .addColumn('event_id', 'integer', (col) => col.notNull().unique().references('post_ids.id').onDelete('cascade'))
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('caldav_resource_names').execute();
}
