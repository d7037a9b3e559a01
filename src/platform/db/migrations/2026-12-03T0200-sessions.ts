import type { Kysely } from 'kysely';

// Browser sessions of the editor: a row per signed-in browser, found by the hash of its cookie's token.
// Deleting the row ends the session in every process. Frozen: Kysely only.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('credential', 'text', (col) => col.notNull())
    .addColumn('created_at_ms', 'bigint', (col) => col.notNull())
    .addColumn('last_seen_ms', 'bigint', (col) => col.notNull())
    .addColumn('expires_at_ms', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();
  await db.schema.createIndex('sessions_expiry').on('sessions').column('expires_at_ms').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sessions').execute();
}
