import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Whole days between an event's local start date and end date, maintained by the database itself (bulk
// loaders need not know it) and indexed: the longest duration is one index read, and bounds how long
// before today an event still running today can have started, so the default events list starts its
// index walk there instead of at the oldest event. Frozen: Kysely only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (postgres) {
    const day = (column: string) => `make_date(substr(${column}, 1, 4)::int, substr(${column}, 6, 2)::int, substr(${column}, 9, 2)::int)`;
    await sql
      .raw(`alter table events add column duration_days integer generated always as (${day('end_local')} - ${day('start_local')}) stored`)
      .execute(db);
  } else {
    await sql
      .raw(
        'alter table events add column duration_days integer generated always as ' +
          '(cast(julianday(substr(end_local, 1, 10)) - julianday(substr(start_local, 1, 10)) as integer)) virtual',
      )
      .execute(db);
  }
  await db.schema.createIndex('events_duration_days').on('events').column('duration_days').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('events_duration_days').execute();
  await db.schema.alterTable('events').dropColumn('duration_days').execute();
}
