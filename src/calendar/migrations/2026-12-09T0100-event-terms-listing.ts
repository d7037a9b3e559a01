import { PostgresAdapter, sql, type Kysely } from 'kysely';

// A term's events in list order: one row per link of `event_terms`, with the event's local start and publication
// date beside the term, kept by the database in the transaction of every write to a link or to those two columns
// of an event. A page of one category walked the listing index of every event and probed each one's links: about
// 400 events and probes for the third page of a category holding one event in fourteen (2.4–4.2 ms on PostgreSQL
// at 100k events, read again in every calendar version). Walked from the term, the page reads its own entries and
// looks each event up by id. Derived rows: writing them bumps no revision and logs no change, since the write that
// causes them does. Frozen: Kysely only.

const COPY = sql`insert into event_terms_listing (term_id, start_local, date, event_id)
  select new.term_id, e.start_local, e.date, e.id from events e where e.id = new.event_id`;
const REMOVE = sql`delete from event_terms_listing where event_id = old.event_id and term_id = old.term_id`;
const FOLLOW = sql`update event_terms_listing set start_local = new.start_local, date = new.date where event_id = new.id`;
const MOVED = sql`old.start_local <> new.start_local or old.date <> new.date`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('event_terms_listing')
    .addColumn('term_id', 'integer', (col) => col.notNull())
    .addColumn('start_local', 'text', (col) => col.notNull())
    .addColumn('date', 'text', (col) => col.notNull())
    .addColumn('event_id', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('event_terms_listing_pk', ['term_id', 'start_local', 'date', 'event_id'])
    .$call((table) => (postgres ? table : table.modifyEnd(sql`without rowid`)))
    .execute();
  await db.schema.createIndex('event_terms_listing_event').on('event_terms_listing').columns(['event_id', 'term_id']).execute();
  await sql`insert into event_terms_listing (term_id, start_local, date, event_id)
    select et.term_id, e.start_local, e.date, e.id from event_terms et inner join events e on e.id = et.event_id`.execute(db);
  if (postgres) {
    await sql`create function event_terms_listing_on_link() returns trigger language plpgsql
      set plan_cache_mode = 'force_generic_plan'
      as $$ begin
        if tg_op in ('DELETE', 'UPDATE') then ${REMOVE}; end if;
        if tg_op in ('INSERT', 'UPDATE') then ${COPY}; end if;
        return null; end $$`.execute(db);
    await sql`create trigger event_terms_listing_link after insert or update or delete on event_terms
      for each row execute function event_terms_listing_on_link()`.execute(db);
    await sql`create function event_terms_listing_on_event() returns trigger language plpgsql
      set plan_cache_mode = 'force_generic_plan'
      as $$ begin ${FOLLOW}; return null; end $$`.execute(db);
    await sql`create trigger event_terms_listing_event after update of start_local, date on events
      for each row when (${MOVED}) execute function event_terms_listing_on_event()`.execute(db);
  } else {
    await sql`create trigger event_terms_listing_insert after insert on event_terms begin ${COPY}; end`.execute(db);
    await sql`create trigger event_terms_listing_update after update on event_terms begin ${REMOVE}; ${COPY}; end`.execute(db);
    await sql`create trigger event_terms_listing_delete after delete on event_terms begin ${REMOVE}; end`.execute(db);
    await sql`create trigger event_terms_listing_event after update of start_local, date on events
      when ${MOVED} begin ${FOLLOW}; end`.execute(db);
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop trigger event_terms_listing_link on event_terms`.execute(db);
    await sql`drop trigger event_terms_listing_event on events`.execute(db);
    await sql`drop function event_terms_listing_on_link()`.execute(db);
    await sql`drop function event_terms_listing_on_event()`.execute(db);
  } else {
    for (const name of ['insert', 'update', 'delete', 'event'])
      await sql`drop trigger ${sql.id(`event_terms_listing_${name}`)}`.execute(db);
  }
  await db.schema.dropTable('event_terms_listing').execute();
}
