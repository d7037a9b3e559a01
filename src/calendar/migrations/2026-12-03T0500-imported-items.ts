import type { Kysely } from 'kysely';

// Imports (issue 43). `imported_items` records where an imported event, venue or organizer came from — an
// importer (`source`: csv) and the item's key there — so that importing the same input again updates the item
// instead of adding another, and `digest` (of what the input said) tells an unchanged item, which is not written.
// A post deleted for good takes its row with it: importing it again creates it anew.
// Frozen: Kysely only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('imported_items')
    .addColumn('source', 'text', (col) => col.notNull())
    .addColumn('item_key', 'text', (col) => col.notNull())
    .addColumn('post_id', 'integer', (col) => col.notNull().references('post_ids.id').onDelete('cascade'))
    .addColumn('digest', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('imported_items_pkey', ['source', 'item_key'])
    .execute();
  await db.schema.createIndex('imported_items_post').on('imported_items').column('post_id').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('imported_items').execute();
}
