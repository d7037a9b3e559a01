import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';

// Invisible means absent (issue 19): a password-protected event strips its categories and tags, so
// a term's count no longer counts it. `terms.published_count` now holds links to events stored as
// `publish` without a password; the triggers of 2026-11-24T0300 are replaced by ones that follow the
// password too (`down` puts those back). Frozen: Kysely only.

type Counted = (alias: string) => RawBuilder<unknown>;
const PUBLISHED_UNPROTECTED: Counted = (alias) => sql.raw(`(${alias}.status = 'publish' and ${alias}.password_hash is null)`);
const PUBLISHED: Counted = (alias) => sql.raw(`(${alias}.status = 'publish')`);

const SQLITE_TRIGGERS = [
  'term_counts_link_insert',
  'term_counts_link_update',
  'term_counts_link_delete',
  'term_counts_status',
  'term_counts_delete',
];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function countEvents(db: Kysely<any>, counted: Counted, watched: RawBuilder<unknown>): Promise<void> {
  const linkRemoved = sql`update terms set published_count = published_count - 1
    where id = old.term_id and exists (select 1 from events e where e.id = old.event_id and ${counted('e')})`;
  const linkAdded = sql`update terms set published_count = published_count + 1
    where id = new.term_id and exists (select 1 from events e where e.id = new.event_id and ${counted('e')})`;
  const flipped = sql`update terms set published_count = published_count + (case when ${counted('new')} then 1 else -1 end)
    where id in (select term_id from event_terms where event_id = new.id)`;
  const deleted = sql`update terms set published_count = published_count - 1 where id in (select term_id from event_terms where event_id = old.id)`;
  const flip = sql`(${counted('old')}) <> (${counted('new')})`;
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop trigger term_counts_status on events`.execute(db);
    await sql`drop trigger term_counts_delete on events`.execute(db);
    await sql`create or replace function term_counts_on_link() returns trigger language plpgsql as $$ begin
      if tg_op in ('DELETE', 'UPDATE') then ${linkRemoved}; end if;
      if tg_op in ('INSERT', 'UPDATE') then ${linkAdded}; end if;
      return null; end $$`.execute(db);
    await sql`create or replace function term_counts_on_status() returns trigger language plpgsql as $$ begin ${flipped}; return null; end $$`.execute(
      db,
    );
    await sql`create or replace function term_counts_on_delete() returns trigger language plpgsql as $$ begin ${deleted}; return old; end $$`.execute(
      db,
    );
    await sql`create trigger term_counts_status after update of ${watched} on events
      for each row when (${flip}) execute function term_counts_on_status()`.execute(db);
    await sql`create trigger term_counts_delete before delete on events
      for each row when ${counted('old')} execute function term_counts_on_delete()`.execute(db);
  } else {
    for (const name of SQLITE_TRIGGERS) await sql`drop trigger ${sql.raw(name)}`.execute(db);
    await sql`create trigger term_counts_link_insert after insert on event_terms begin ${linkAdded}; end`.execute(db);
    await sql`create trigger term_counts_link_update after update on event_terms begin ${linkRemoved}; ${linkAdded}; end`.execute(db);
    await sql`create trigger term_counts_link_delete after delete on event_terms begin ${linkRemoved}; end`.execute(db);
    await sql`create trigger term_counts_status after update of ${watched} on events when ${flip} begin ${flipped}; end`.execute(db);
    await sql`create trigger term_counts_delete before delete on events when ${counted('old')} begin ${deleted}; end`.execute(db);
  }
  await sql`update terms set published_count = (select count(*) from event_terms et inner join events e on e.id = et.event_id
    where et.term_id = terms.id and ${counted('e')})`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await countEvents(db, PUBLISHED_UNPROTECTED, sql.raw('status, password_hash'));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await countEvents(db, PUBLISHED, sql.raw('status'));
}
