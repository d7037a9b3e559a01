import type { Kysely } from 'kysely';

// A category's colour (`#rrggbb`, lower case; null: none), which the pages paint its events with. One value for
// every language, so a column of the term rather than a translated text. Frozen: Kysely only.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('terms').addColumn('color', 'text').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('terms').dropColumn('color').execute();
}
