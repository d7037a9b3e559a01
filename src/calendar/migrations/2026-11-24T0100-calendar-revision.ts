import { PostgresAdapter, sql, type Kysely } from 'kysely';

// One `calendar` revision, bumped by the database itself on every write to a table whose rows a
// calendar response shows or depends on, in the writing transaction: what processes cache of the
// calendar (term counts, list totals, public responses) is keyed by it, and no write path, present or
// future, CLI or bulk loader, can forget to bump it. It replaces the `events` revision that event
// writes bumped in code. Venues and organizers get the (status, date_utc) index events have: the next
// scheduled publication of any post ends what a revision may be cached for. Frozen: Kysely only.

const TABLES = [
  'events',
  'venues',
  'organizers',
  'images',
  'event_organizers',
  'terms',
  'event_terms',
  'translations',
  'slugs',
  'term_names',
];
const OPERATIONS = ['insert', 'update', 'delete'];
const BUMP = sql`update revisions set value = value + 1 where name = 'calendar'`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('revisions').where('name', '=', 'events').execute();
  await db.insertInto('revisions').values({ name: 'calendar', value: 0 }).execute();
  for (const table of ['venues', 'organizers']) {
    await db.schema.createIndex(`${table}_status_date_utc`).on(table).columns(['status', 'date_utc']).execute();
  }
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`create function bump_calendar_revision() returns trigger language plpgsql as $$
      begin ${BUMP}; return null; end $$`.execute(db);
    for (const table of TABLES) {
      // Once per statement: a bulk insert bumps once, not once per row. Before it: the revision row is the
      // first row every calendar write locks, so calendar writes serialize from their first statement.
      // Otherwise a write that updates a term's count before the revision (an event's status change)
      // deadlocks with one that does the reverse (an event, then its links), and at READ COMMITTED each
      // could miss the other's uncommitted row in the count.
      await sql`create trigger ${sql.id(`${table}_calendar_revision`)} before insert or update or delete or truncate
        on ${sql.table(table)} for each statement execute function bump_calendar_revision()`.execute(db);
    }
    return;
  }
  for (const table of TABLES) {
    for (const operation of OPERATIONS) {
      // SQLite has row triggers only; bumping one row in the writing transaction costs a few microseconds.
      await sql`create trigger ${sql.id(`${table}_${operation}_calendar_revision`)} after ${sql.raw(operation)}
        on ${sql.table(table)} begin ${BUMP}; end`.execute(db);
    }
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    for (const table of TABLES) await sql`drop trigger ${sql.id(`${table}_calendar_revision`)} on ${sql.table(table)}`.execute(db);
    await sql`drop function bump_calendar_revision()`.execute(db);
  } else {
    for (const table of TABLES) {
      for (const operation of OPERATIONS) await sql`drop trigger ${sql.id(`${table}_${operation}_calendar_revision`)}`.execute(db);
    }
  }
  for (const table of ['venues', 'organizers']) await db.schema.dropIndex(`${table}_status_date_utc`).execute();
  await db.deleteFrom('revisions').where('name', '=', 'calendar').execute();
  await db.insertInto('revisions').values({ name: 'events', value: 0 }).execute();
}
