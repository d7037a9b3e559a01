import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Where anonymous readers place an item they see (issue 36). An event is logged again when anything it embeds
// changes (2026-11-28T0100-changes: a venue's edit moves every event at it), which is right for its version and for
// editors, whose lists show the embedded draft venue; but anonymous lists never show a draft venue or organizer, and
// a sync that sent the event again, byte for byte, told anonymous readers that something hidden had changed.
// `public_seq` is the number of the item's last change anonymous readers can see: a trigger sets it to `seq` on
// every change but those a writer marks `hidden` (a one-shot flag the trigger clears) — the events' changes logged
// for what a venue, an organizer, their texts or an organizer link did while that venue or organizer was not public.
// Those triggers are written again here as 2026-11-28T0100-changes wrote them, with the flag. Frozen: Kysely only.

interface Dialect {
  /** What a trigger body runs before it writes a change: SQLite bumps the revision itself, per change. */
  readonly before: string;
  readonly now: string;
}

const SEQ = `(select value from revisions where name = 'calendar')`;

/** Whether a venue or organizer row is shown to anonymous readers (published, or scheduled and due). */
function isPublic(row: string, d: Dialect): string {
  return `(${row}.status = 'publish' or (${row}.status = 'future' and ${row}.date_utc <= ${d.now}))`;
}

/** The item's own change, with its visibility facts (as 2026-11-28T0100-changes records it). */
function markSelf(table: 'venues' | 'organizers', d: Dialect): string {
  const published = `case when ${isPublic('new', d)} then 1 else 0 end | case when ${isPublic('old', d)} then 1 else 0 end`;
  return `${d.before} insert into calendar_changes (type, item_id, seq, changed_at, ever_public, author_id, due_at)
    values ('${table.slice(0, -1)}', new.id, ${SEQ}, ${d.now}, ${published}, new.author_id,
      case when new.status = 'future' then new.date_utc else null end)
    on conflict (type, item_id) do update set seq = excluded.seq, changed_at = excluded.changed_at,
      ever_public = case when excluded.ever_public = 1 then 1 else calendar_changes.ever_public end,
      author_id = coalesce(excluded.author_id, calendar_changes.author_id), due_at = excluded.due_at;`;
}

/**
 * The change of the items a select names, hidden from anonymous readers when `hidden` holds. The flag is written
 * by value on both paths: PostgreSQL's insert trigger has cleared it in `excluded` by the time the update runs.
 */
function markItems(select: string, d: Dialect, hidden: string | undefined): string {
  if (hidden === undefined) {
    return `${d.before} insert into calendar_changes (type, item_id, seq, changed_at)
    select distinct picked.type, picked.id, ${SEQ}, ${d.now} from (${select}) picked where true
    on conflict (type, item_id) do update set seq = excluded.seq, changed_at = excluded.changed_at;`;
  }
  const flag = `case when ${hidden} then 1 else 0 end`;
  return `${d.before} insert into calendar_changes (type, item_id, seq, changed_at, hidden)
    select distinct picked.type, picked.id, ${SEQ}, ${d.now}, ${flag} from (${select}) picked where true
    on conflict (type, item_id) do update set seq = excluded.seq, changed_at = excluded.changed_at, hidden = ${flag};`;
}

const notPublic = (table: 'venues' | 'organizers', id: string, d: Dialect) =>
  `not exists (select 1 from ${table} p where p.id = ${id} and ${isPublic('p', d)})`;

type Op = 'insert' | 'update' | 'delete';

/** The trigger bodies written again: `withFlag` false gives 2026-11-28T0100-changes' own (for `down`). */
function bodies(d: Dialect, withFlag: boolean): { table: string; op: Op; body: string }[] {
  const when = (hidden: string) => (withFlag ? hidden : undefined);
  const rowsOf = (op: Op) => (op === 'update' ? ['old', 'new'] : [op === 'delete' ? 'old' : 'new']);
  const found: { table: string; op: Op; body: string }[] = [];
  for (const table of ['venues', 'organizers'] as const) {
    const events =
      table === 'venues'
        ? `select 'event' as type, e.id as id from events e where e.venue_id = new.id`
        : `select 'event' as type, l.event_id as id from event_organizers l where l.organizer_id = new.id`;
    const hidden = `not (${isPublic('old', d)} or ${isPublic('new', d)})`;
    found.push({ table, op: 'update', body: [markSelf(table, d), markItems(events, d, when(hidden))].join('\n') });
  }
  for (const op of ['insert', 'update', 'delete'] as const) {
    const translations = rowsOf(op).flatMap((row) => [
      markItems(`select ${row}.resource_type as type, ${row}.resource_id as id where true`, d, undefined),
      markItems(
        `select 'event' as type, e.id as id from events e where ${row}.resource_type = 'venue' and e.venue_id = ${row}.resource_id`,
        d,
        when(notPublic('venues', `${row}.resource_id`, d)),
      ),
      markItems(
        `select 'event' as type, l.event_id as id from event_organizers l
          where ${row}.resource_type = 'organizer' and l.organizer_id = ${row}.resource_id`,
        d,
        when(notPublic('organizers', `${row}.resource_id`, d)),
      ),
      markItems(
        `select 'event' as type, l.event_id as id from event_terms l
          where ${row}.resource_type in ('category', 'tag') and l.term_id = ${row}.resource_id`,
        d,
        undefined,
      ),
    ]);
    found.push({ table: 'translations', op, body: translations.join('\n') });
    const links = rowsOf(op).map((row) =>
      markItems(`select 'event' as type, ${row}.event_id as id where true`, d, when(notPublic('organizers', `${row}.organizer_id`, d))),
    );
    found.push({ table: 'event_organizers', op, body: links.join('\n') });
  }
  return found;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function replaceTriggers(db: Kysely<any>, postgres: boolean, d: Dialect, withFlag: boolean): Promise<void> {
  for (const { table, op, body } of bodies(d, withFlag)) {
    const name = `${table}_${op}_changes`;
    if (postgres) {
      await sql`create or replace function ${sql.id(name)}() returns trigger language plpgsql as $$ begin ${sql.raw(body)} return null; end $$`.execute(
        db,
      );
    } else {
      await sql`drop trigger ${sql.id(name)}`.execute(db);
      await sql`create trigger ${sql.id(name)} after ${sql.raw(op)} on ${sql.table(table)} begin ${sql.raw(body)} end`.execute(db);
    }
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const d: Dialect = postgres
    ? { before: '', now: `to_char(now() at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS')` }
    : { before: `update revisions set value = value + 1 where name = 'calendar';`, now: `strftime('%Y-%m-%d %H:%M:%S', 'now')` };
  await db.schema
    .alterTable('calendar_changes')
    .addColumn('public_seq', 'bigint', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('calendar_changes')
    .addColumn('hidden', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await sql`update calendar_changes set public_seq = seq`.execute(db);
  // Anonymous readers walk the items they see by this place.
  await db.schema
    .createIndex('calendar_changes_public_seq')
    .on('calendar_changes')
    .columns(['public_seq', 'type', 'item_id'])
    .where(sql.ref('public_now'), '=', 1)
    .execute();
  if (postgres) {
    await sql`create function calendar_changes_public_place() returns trigger language plpgsql as $$ begin
      if tg_op = 'INSERT' then
        new.public_seq := case when new.hidden = 1 then 0 else new.seq end;
      elsif new.hidden = 1 then
        new.public_seq := old.public_seq;
      elsif new.seq <> old.seq then
        new.public_seq := new.seq;
      end if;
      new.hidden := 0;
      return new;
    end $$`.execute(db);
    await sql`create trigger calendar_changes_public_place before insert or update of seq, hidden on calendar_changes
      for each row execute function calendar_changes_public_place()`.execute(db);
  } else {
    // SQLite sets a row's columns after it is written (its triggers do not fire themselves again).
    await sql`create trigger calendar_changes_public_place_insert after insert on calendar_changes begin
      update calendar_changes set public_seq = case when new.hidden = 1 then 0 else new.seq end, hidden = 0
      where type = new.type and item_id = new.item_id;
    end`.execute(db);
    await sql`create trigger calendar_changes_public_place_update after update of seq, hidden on calendar_changes
      when new.hidden = 1 or new.seq <> old.seq begin
      update calendar_changes set public_seq = case when new.hidden = 1 then old.public_seq else new.seq end, hidden = 0
      where type = new.type and item_id = new.item_id;
    end`.execute(db);
  }
  await replaceTriggers(db, postgres, d, true);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const d: Dialect = postgres
    ? { before: '', now: `to_char(now() at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS')` }
    : { before: `update revisions set value = value + 1 where name = 'calendar';`, now: `strftime('%Y-%m-%d %H:%M:%S', 'now')` };
  await replaceTriggers(db, postgres, d, false);
  if (postgres) {
    await sql`drop trigger calendar_changes_public_place on calendar_changes`.execute(db);
    await sql`drop function calendar_changes_public_place()`.execute(db);
  } else {
    await sql`drop trigger calendar_changes_public_place_insert`.execute(db);
    await sql`drop trigger calendar_changes_public_place_update`.execute(db);
  }
  await db.schema.dropIndex('calendar_changes_public_seq').execute();
  await db.schema.alterTable('calendar_changes').dropColumn('hidden').execute();
  await db.schema.alterTable('calendar_changes').dropColumn('public_seq').execute();
}
