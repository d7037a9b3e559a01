import type { Kysely } from 'kysely';

// Failed secret checks are counted per bucket: `login` (passwords and tokens of users) and
// `post-password` (passwords of protected posts), so that guessing one never locks the other out.
// Frozen: Kysely only.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('auth_failures')
    .addColumn('bucket', 'text', (col) => col.notNull().defaultTo('login'))
    .execute();
  await db.schema.dropIndex('auth_failures_address_time').execute();
  await db.schema
    .createIndex('auth_failures_bucket_address_time')
    .on('auth_failures')
    .columns(['bucket', 'address', 'failed_at_ms'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('auth_failures_bucket_address_time').execute();
  await db.schema.createIndex('auth_failures_address_time').on('auth_failures').columns(['address', 'failed_at_ms']).execute();
  await db.schema.alterTable('auth_failures').dropColumn('bucket').execute();
}
