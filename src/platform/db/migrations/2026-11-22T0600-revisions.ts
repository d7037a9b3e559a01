import type { Kysely } from 'kysely';

// A counter per cached fact, bumped in the same transaction as every write
// that changes it, so per-process caches can check freshness across
// processes with one primary-key read. Frozen: Kysely only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('revisions')
    .addColumn('name', 'text', (col) => col.primaryKey())
    .addColumn('value', 'integer', (col) => col.notNull())
    .execute();
  await db.insertInto('revisions').values({ name: 'events', value: 0 }).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('revisions').execute();
}
