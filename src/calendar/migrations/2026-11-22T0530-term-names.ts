import type { Kysely } from 'kysely';

// Term names are unique per taxonomy, parent and language (docs/calendar-terms.md). The names live in
// `translations`, which cannot carry that constraint; this table holds one key per (taxonomy, parent,
// language, folded name) so two concurrent creates of the same name cannot both succeed, and serves
// the case-insensitive lookups by name. Frozen: Kysely only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('term_names')
    .addColumn('taxonomy', 'text', (col) => col.notNull())
    // 0 for top-level terms, so the primary key also covers them.
    .addColumn('parent_key', 'integer', (col) => col.notNull())
    .addColumn('language', 'text', (col) => col.notNull())
    .addColumn('name_key', 'text', (col) => col.notNull())
    .addColumn('term_id', 'integer', (col) => col.notNull().references('terms.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('term_names_pk', ['taxonomy', 'parent_key', 'language', 'name_key'])
    .execute();
  await db.schema.createIndex('term_names_lookup').on('term_names').columns(['taxonomy', 'name_key']).execute();
  await db.schema.createIndex('term_names_term').on('term_names').columns(['term_id', 'language']).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('term_names').execute();
}
