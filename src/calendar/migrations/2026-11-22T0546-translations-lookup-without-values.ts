import type { Kysely } from 'kysely';

// `translations_lookup` indexed whole values: PostgreSQL refuses B-tree entries over ~2.7 kB, so a
// long description that does not compress failed to save. No query compares values through it
// (name lookups fold case with lower()), so the index keeps the prefix they filter on. Frozen: Kysely only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('translations_lookup').execute();
  await db.schema.createIndex('translations_field').on('translations').columns(['resource_type', 'field', 'language']).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('translations_field').execute();
  await db.schema.createIndex('translations_lookup').on('translations').columns(['resource_type', 'field', 'value']).execute();
}
