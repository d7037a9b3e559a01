import type { Kysely } from 'kysely';

// The names of deleted images' files (issue 39). A file is served for a year as immutable, so a browser or a CDN
// that kept it would go on showing it if a later upload took its name: a name once used is never given again.
// Frozen: Kysely only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('media_retired_files')
    .addColumn('key', 'text', (col) => col.primaryKey())
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('media_retired_files').execute();
}
