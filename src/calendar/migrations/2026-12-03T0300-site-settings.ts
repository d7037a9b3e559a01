import { PostgresAdapter, sql, type Kysely } from 'kysely';

// The site's settings (title, tagline, time zone, language, formats, currency), one row per setting that was set:
// an unset one has no row and takes its default. Every write bumps the `settings` revision, by which each process
// knows to read them again, and the `calendar` revision, since pages, feeds and event costs show them: what a
// process cached of the calendar is then recomputed. Frozen: Kysely only.

const BUMP = sql`update revisions set value = value + 1 where name in ('calendar', 'settings')`;
const OPERATIONS = ['insert', 'update', 'delete'];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('site_settings')
    .addColumn('name', 'text', (col) => col.primaryKey())
    .addColumn('value', 'text', (col) => col.notNull())
    .execute();
  await db.insertInto('revisions').values({ name: 'settings', value: 0 }).execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`create function bump_settings_revision() returns trigger language plpgsql as $$
      begin ${BUMP}; return null; end $$`.execute(db);
    await sql`create trigger site_settings_revision before insert or update or delete or truncate
      on site_settings for each statement execute function bump_settings_revision()`.execute(db);
    return;
  }
  for (const operation of OPERATIONS) {
    await sql`create trigger ${sql.id(`site_settings_${operation}_revision`)} after ${sql.raw(operation)}
      on site_settings begin ${BUMP}; end`.execute(db);
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('site_settings').execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) await sql`drop function bump_settings_revision()`.execute(db);
  await db.deleteFrom('revisions').where('name', '=', 'settings').execute();
}
