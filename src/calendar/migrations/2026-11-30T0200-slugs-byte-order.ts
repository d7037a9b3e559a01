import { PostgresAdapter, sql, type Kysely } from 'kysely';

// A slug claim reads the slugs numbered after its stem as a range in byte order (posts.repository.ts
// findSlugsOfStem). SQLite compares text bytewise, so its primary key serves; PostgreSQL's key is in the
// database's collation, which may be linguistic, so the range is asked for `collate "C"` and indexed so.
// Frozen: Kysely only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`create index slugs_byte_order on slugs (resource_type, slug collate "C")`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop index slugs_byte_order`.execute(db);
}
