import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Who may hear of a change (issue 36). `ever_public` (2026-11-28T0100-changes) told whether anonymous readers once
// listed an item, and so whether a removal may be named to them; but it stays set, so every later change of an item
// they no longer list named it again — each edit of an event made a series, each edit of an unpublished draft — and a
// sync could not tell in SQL which rows its caller may hear of at all. Each log row now carries, for each audience,
// whether its lists show the item (`*_now`) and the number of the change that last took it out of them (`*_left`, 0
// if none): a sync places a removal there, so it is heard of once, and changes its reader cannot see never move it.
// The audiences are anonymous readers (`public`: published or due, not hidden, not a series) and those who list every
// status but trash (`listed`: editors, and authors for their own items). Who lists an item depends on its own row
// alone, so a trigger on the log works them out from the item tables when a change of that row is logged, or a
// scheduled publication: the writes that set the row's own facts (`ever_public`, `due_at`). A change logged for what
// an item embeds (a venue's edit moves every event at it) sets neither, and costs nothing more. The listing rule is
// written here once. Frozen: Kysely only.

type Audience = 'public' | 'listed';

const POSTS = { event: 'events', venue: 'venues', organizer: 'organizers' } as const;

/**
 * Whether `audience` lists the post `t` (of `table`) that the log row `row` names. A scheduled post is public once
 * its time has come (`now`: the database's UTC stamp), or once a sync recorded its publication (due_at cleared).
 */
function lists(audience: Audience, table: string, row: string, now: string): string {
  const status =
    audience === 'public'
      ? `(t.status = 'publish' or (t.status = 'future' and (${row}.due_at is null or ${row}.due_at <= ${now})))`
      : `t.status <> 'trash'`;
  return table === 'events' ? `${status} and t.hide_from_listings = 0 and (t.recurrence is null or t.parent_id is not null)` : status;
}

/** Whether `audience` lists the item the log row `row` names, as 1 or 0, in one expression (terms: while they exist). */
function shown(audience: Audience, row: string, now: string): string {
  const posts = Object.entries(POSTS).map(
    ([type, table]) =>
      `when '${type}' then exists (select 1 from ${table} t where t.id = ${row}.item_id and ${lists(audience, table, row, now)})`,
  );
  return `(case when (case ${row}.type ${posts.join(' ')}
    else exists (select 1 from terms t where t.id = ${row}.item_id) end) then 1 else 0 end)`;
}

/** A scheduled item whose time came before this change, and whose publication no sync recorded: anonymous lists showed it. */
function dueUnrecorded(now: string): string {
  return `(old.public_now = 0 and old.due_at is not null and old.due_at <= ${now} and old.listed_now = 1)`;
}

/** Whether `audience` listed the item before this change. */
function wasShown(audience: Audience, now: string): string {
  return audience === 'listed' ? `old.listed_now = 1` : `(old.public_now = 1 or ${dueUnrecorded(now)})`;
}

/** The number of the change that last took the item out of `audience`'s lists (this one if it did), given `shownNow`. */
function left(audience: Audience, shownNow: string, now: string): string {
  return `case when ${wasShown(audience, now)} and ${shownNow} = 0 then new.seq else old.${audience}_left end`;
}

const COLUMNS = ['public_now', 'public_left', 'listed_now', 'listed_left'] as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function postgresTriggers(db: Kysely<any>, now: string): Promise<void> {
  // One statement on the item's own table per change. A new row is set after it is inserted: before, every upsert
  // that updates would look its item up twice.
  const flags = (table: string) => `select case when ${lists('public', table, 'new', now)} then 1 else 0 end,
      case when ${lists('listed', table, 'new', now)} then 1 else 0 end
      into shown_public, shown_listed from ${table} t where t.id = new.item_id;`;
  const posts = Object.entries(POSTS).map(
    ([type, table], index) => `${index === 0 ? 'if' : 'elsif'} new.type = '${type}' then ${flags(table)}`,
  );
  await sql`create function calendar_changes_audiences() returns trigger language plpgsql as $$
    declare
      shown_public integer;
      shown_listed integer;
    begin
      ${sql.raw(posts.join('\n      '))}
      else select 1, 1 into shown_public, shown_listed from terms t where t.id = new.item_id;
      end if;
      if not found then
        shown_public := 0;
        shown_listed := 0;
      end if;
      if tg_op = 'INSERT' then
        update calendar_changes set public_now = shown_public, listed_now = shown_listed
        where type = new.type and item_id = new.item_id and shown_public + shown_listed > 0;
        return null;
      end if;
      -- Most changes leave the audiences as they were (a new title).
      if shown_public = old.public_now and shown_listed = old.listed_now and old.due_at is null then
        return new;
      end if;
      new.public_left := ${sql.raw(left('public', 'shown_public', now))};
      new.listed_left := ${sql.raw(left('listed', 'shown_listed', now))};
      new.public_now := shown_public;
      new.listed_now := shown_listed;
      return new;
    end $$`.execute(db);
  await sql`create trigger calendar_changes_audiences_insert after insert on calendar_changes
    for each row execute function calendar_changes_audiences()`.execute(db);
  await sql`create trigger calendar_changes_audiences_update before update of ever_public, due_at on calendar_changes
    for each row execute function calendar_changes_audiences()`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function sqliteTriggers(db: Kysely<any>, now: string): Promise<void> {
  // SQLite cannot set a row's columns before it is written: it updates the row after, when something changes.
  const publicNow = shown('public', 'new', now);
  const listedNow = shown('listed', 'new', now);
  await sql`create trigger calendar_changes_audiences_insert after insert on calendar_changes
    when ${sql.raw(publicNow)} = 1 or ${sql.raw(listedNow)} = 1 begin
    update calendar_changes set public_now = ${sql.raw(publicNow)}, listed_now = ${sql.raw(listedNow)}
    where type = new.type and item_id = new.item_id;
  end`.execute(db);
  await sql`create trigger calendar_changes_audiences_update after update of ever_public, due_at on calendar_changes
    when ${sql.raw(publicNow)} <> old.public_now or ${sql.raw(listedNow)} <> old.listed_now or ${sql.raw(dueUnrecorded(now))} begin
    update calendar_changes set public_left = ${sql.raw(left('public', publicNow, now))},
      listed_left = ${sql.raw(left('listed', listedNow, now))}, public_now = ${sql.raw(publicNow)}, listed_now = ${sql.raw(listedNow)}
    where type = new.type and item_id = new.item_id;
  end`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const now = postgres ? `to_char(now() at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS')` : `strftime('%Y-%m-%d %H:%M:%S', 'now')`;
  for (const column of COLUMNS) {
    await db.schema
      .alterTable('calendar_changes')
      .addColumn(column, column.endsWith('_now') ? 'integer' : 'bigint', (col) => col.notNull().defaultTo(0))
      .execute();
  }
  // What is in the log now: a removal that anonymous readers heard of may be named again once more, as it was.
  await sql`update calendar_changes set public_now = ${sql.raw(shown('public', 'calendar_changes', now))},
    listed_now = ${sql.raw(shown('listed', 'calendar_changes', now))}`.execute(db);
  await sql`update calendar_changes set public_left = case when public_now = 0 and ever_public = 1 then seq else 0 end,
    listed_left = case when listed_now = 0 then seq else 0 end`.execute(db);
  // A sync reads the removals its reader hears of by where they left its lists: few rows, in that order.
  for (const audience of ['public', 'listed'] as const) {
    await db.schema
      .createIndex(`calendar_changes_${audience}_left`)
      .on('calendar_changes')
      .columns([`${audience}_left`, 'type', 'item_id'])
      .where(sql.ref(`${audience}_now`), '=', 0)
      .execute();
  }
  await (postgres ? postgresTriggers(db, now) : sqliteTriggers(db, now));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const op of ['insert', 'update']) {
    const name = `calendar_changes_audiences_${op}`;
    await (postgres ? sql`drop trigger ${sql.id(name)} on calendar_changes` : sql`drop trigger ${sql.id(name)}`).execute(db);
  }
  if (postgres) await sql`drop function calendar_changes_audiences()`.execute(db);
  for (const audience of ['public', 'listed']) await db.schema.dropIndex(`calendar_changes_${audience}_left`).execute();
  for (const column of COLUMNS) await db.schema.alterTable('calendar_changes').dropColumn(column).execute();
}
