import { PostgresAdapter, type Kysely } from 'kysely';

// The media library (issue 39): an image is an uploaded file now, not only a recorded URL. `images` gains what
// WordPress keeps of an attachment (its stored file, type, dimensions, sizes, texts, the post it was uploaded to);
// a recorded URL keeps `file` null. `media_files` holds the files themselves when they are stored in the database
// (the default: every process and machine on the database sees them). Frozen: Kysely only.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const columns: [string, 'text' | 'integer', string | number | null][] = [
    ['file', 'text', null],
    ['mime_type', 'text', ''],
    ['width', 'integer', 0],
    ['height', 'integer', 0],
    ['filesize', 'integer', 0],
    ['sizes', 'text', '{}'],
    ['slug', 'text', ''],
    ['title', 'text', ''],
    ['alt_text', 'text', ''],
    ['caption', 'text', ''],
  ];
  for (const [name, type, fallback] of columns) {
    await db.schema
      .alterTable('images')
      .addColumn(name, type, (col) => (fallback === null ? col : col.notNull().defaultTo(fallback)))
      .execute();
  }
  // The post it was uploaded to, as WordPress's post_parent: a plain number, kept when that post is deleted.
  await db.schema.alterTable('images').addColumn('parent_id', 'integer').execute();
  await db.schema.createIndex('images_file').unique().on('images').column('file').execute();
  await db.schema.createIndex('images_created').on('images').columns(['created_at', 'id']).execute();

  await db.schema
    .createTable('media_files')
    .addColumn('key', 'text', (col) => col.primaryKey())
    .addColumn('bytes', postgres ? 'bytea' : 'blob', (col) => col.notNull())
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('media_files').execute();
  await db.schema.dropIndex('images_created').execute();
  await db.schema.dropIndex('images_file').execute();
  for (const name of ['parent_id', 'caption', 'alt_text', 'title', 'slug', 'sizes', 'filesize', 'height', 'width', 'mime_type', 'file']) {
    await db.schema.alterTable('images').dropColumn(name).execute();
  }
}
