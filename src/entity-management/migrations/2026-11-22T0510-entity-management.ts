import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Migrations are frozen in time: they use Kysely only, never application code.
// The entity-management back-end is data: adding a type or a field never needs a migration.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const id = postgres ? 'serial' : 'integer';
  // Keys and text values compare and sort by code point on both databases (SQLite's default is binary).
  const binary = sql`collate "C"`;

  await db.schema
    .createTable('em_entity_types')
    .addColumn('code', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull().unique())
    .addColumn('segment', 'text', (col) => col.notNull().unique())
    .addColumn('description', 'text', (col) => col.notNull())
    .addColumn('position', 'integer', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('em_fields')
    .addColumn('entity_code', 'text', (col) => col.notNull().references('em_entity_types.code').onDelete('cascade'))
    .addColumn('code', 'text', (col) => col.notNull())
    .addColumn('name', 'text')
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull())
    .addColumn('position', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('em_fields_pk', ['entity_code', 'code'])
    .addUniqueConstraint('em_fields_name_unique', ['entity_code', 'name'])
    .execute();

  await db.schema
    .createTable('em_records')
    .addColumn('id', id, (col) => (postgres ? col.primaryKey() : col.primaryKey().autoIncrement()))
    .addColumn('entity_code', 'text', (col) => col.notNull().references('em_entity_types.code'))
    .addColumn('record_key', 'text', (col) => (postgres ? col.notNull().modifyEnd(binary) : col.notNull()))
    .addColumn('data', 'text', (col) => col.notNull())
    .addColumn('search_text', 'text', (col) => col.notNull())
    .addUniqueConstraint('em_records_key_unique', ['entity_code', 'record_key'])
    .execute();

  await db.schema
    .createTable('em_record_values')
    .addColumn('record_id', 'integer', (col) => col.notNull().references('em_records.id').onDelete('cascade'))
    .addColumn('entity_code', 'text', (col) => col.notNull())
    .addColumn('field_code', 'text', (col) => col.notNull())
    .addColumn('record_key', 'text', (col) => (postgres ? col.notNull().modifyEnd(binary) : col.notNull()))
    .addColumn('text_value', 'text', (col) => (postgres ? col.modifyEnd(binary) : col))
    .addColumn('number_value', 'double precision')
    .addPrimaryKeyConstraint('em_record_values_pk', ['record_id', 'field_code'])
    .execute();
  await db.schema
    .createIndex('em_record_values_text')
    .on('em_record_values')
    .columns(['entity_code', 'field_code', 'text_value', 'record_key'])
    .execute();
  await db.schema
    .createIndex('em_record_values_number')
    .on('em_record_values')
    .columns(['entity_code', 'field_code', 'number_value', 'record_key'])
    .execute();

  await db.schema
    .createTable('em_actions')
    .addColumn('code', 'text', (col) => col.primaryKey())
    .addColumn('description', 'text', (col) => col.notNull())
    .addColumn('params', 'text', (col) => col.notNull())
    .addColumn('command', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();

  // One row: bumped by every change of the definitions, polled by every process.
  await db.schema
    .createTable('em_definitions_version')
    .addColumn('id', 'integer', (col) => col.primaryKey())
    .addColumn('version', 'integer', (col) => col.notNull())
    .execute();
  await db.insertInto('em_definitions_version').values({ id: 1, version: 0 }).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('em_definitions_version').execute();
  await db.schema.dropTable('em_actions').execute();
  await db.schema.dropTable('em_record_values').execute();
  await db.schema.dropTable('em_records').execute();
  await db.schema.dropTable('em_fields').execute();
  await db.schema.dropTable('em_entity_types').execute();
}
