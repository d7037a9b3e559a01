import { PostgresAdapter, sql, type Kysely } from 'kysely';

// A term's count is the number of its published events. Counting them on each read cost time linear
// in the term's events (7k per category at 100k events: 9 ms after every event write). The database
// now keeps `terms.published_count` — links to events whose stored status is `publish` — in the
// writing transaction, whoever writes: a link added or removed, an event's status changing to or from
// `publish`, an event deleted (before its links cascade, which then find it gone). Readers add the
// few `future` events whose date has passed. Frozen: Kysely only.

const LINK_CHANGED = sql`
  update terms set published_count = published_count - 1
    where id = old.term_id and exists (select 1 from events where id = old.event_id and status = 'publish')`;
const LINK_ADDED = sql`
  update terms set published_count = published_count + 1
    where id = new.term_id and exists (select 1 from events where id = new.event_id and status = 'publish')`;
const STATUS_CHANGED = sql`
  update terms set published_count = published_count + (case when new.status = 'publish' then 1 else -1 end)
    where id in (select term_id from event_terms where event_id = new.id)`;
const PUBLISHED_DELETED = sql`
  update terms set published_count = published_count - 1 where id in (select term_id from event_terms where event_id = old.id)`;
const PUBLISH_FLIP = sql`(old.status = 'publish') <> (new.status = 'publish')`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('terms')
    .addColumn('published_count', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await sql`update terms set published_count = (select count(*) from event_terms et inner join events e on e.id = et.event_id
    where et.term_id = terms.id and e.status = 'publish')`.execute(db);
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`create function term_counts_on_link() returns trigger language plpgsql as $$ begin
      if tg_op in ('DELETE', 'UPDATE') then ${LINK_CHANGED}; end if;
      if tg_op in ('INSERT', 'UPDATE') then ${LINK_ADDED}; end if;
      return null; end $$`.execute(db);
    await sql`create function term_counts_on_status() returns trigger language plpgsql as $$ begin ${STATUS_CHANGED}; return null; end $$`.execute(
      db,
    );
    await sql`create function term_counts_on_delete() returns trigger language plpgsql as $$ begin ${PUBLISHED_DELETED}; return old; end $$`.execute(
      db,
    );
    await sql`create trigger term_counts_link after insert or update or delete on event_terms
      for each row execute function term_counts_on_link()`.execute(db);
    await sql`create trigger term_counts_status after update of status on events
      for each row when (${PUBLISH_FLIP}) execute function term_counts_on_status()`.execute(db);
    await sql`create trigger term_counts_delete before delete on events
      for each row when (old.status = 'publish') execute function term_counts_on_delete()`.execute(db);
    return;
  }
  await sql`create trigger term_counts_link_insert after insert on event_terms begin ${LINK_ADDED}; end`.execute(db);
  await sql`create trigger term_counts_link_update after update on event_terms begin ${LINK_CHANGED}; ${LINK_ADDED}; end`.execute(db);
  await sql`create trigger term_counts_link_delete after delete on event_terms begin ${LINK_CHANGED}; end`.execute(db);
  await sql`create trigger term_counts_status after update of status on events when ${PUBLISH_FLIP} begin ${STATUS_CHANGED}; end`.execute(
    db,
  );
  await sql`create trigger term_counts_delete before delete on events when old.status = 'publish' begin ${PUBLISHED_DELETED}; end`.execute(
    db,
  );
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop trigger term_counts_link on event_terms`.execute(db);
    await sql`drop trigger term_counts_status on events`.execute(db);
    await sql`drop trigger term_counts_delete on events`.execute(db);
    for (const name of ['term_counts_on_link', 'term_counts_on_status', 'term_counts_on_delete'])
      await sql`drop function ${sql.raw(name)}()`.execute(db);
  } else {
    for (const name of [
      'term_counts_link_insert',
      'term_counts_link_update',
      'term_counts_link_delete',
      'term_counts_status',
      'term_counts_delete',
    ]) {
      await sql`drop trigger ${sql.raw(name)}`.execute(db);
    }
  }
  await db.schema.alterTable('terms').dropColumn('published_count').execute();
}
