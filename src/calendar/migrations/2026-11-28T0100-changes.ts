import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Change tracking (issue 23). `calendar_changes` holds one row per event, venue, organizer, category
// and tag that ever existed: `seq` is the calendar revision of its last change, which is both the
// item's version (ETags, If-Match) and its place in the change log that sync tokens point into. The
// database writes it, in the writing transaction, whoever writes: a change to a row, to its texts or
// links, and to what it embeds (a venue's edit changes its events) all move the item to the end of the
// log. Sequence numbers are the calendar revision, which every calendar write bumps under a row lock
// held until it commits (PostgreSQL: the statement trigger of 2026-11-24T0100; SQLite: one writer), so
// the log is in commit order: a reader that has seen revision R has seen every change numbered ≤ R,
// across processes. Rows of deleted items stay as tombstones until pruned; `ever_public` says whether
// anonymous readers ever listed the item (only then may they hear of its removal), `due_at` when a
// scheduled item goes public without a write. `calendar_change_log` keeps the highest pruned number
// (older tokens are expired) and the key that signs tokens. Frozen: Kysely only.

const SELF_TABLES = ['events', 'venues', 'organizers', 'terms'] as const;
const LINK_TABLES = ['event_organizers', 'event_terms', 'translations'] as const;

interface Dialect {
  /** What a trigger body runs before it writes a change: SQLite bumps the revision itself, per change. */
  readonly before: string;
  readonly now: string;
}

const SEQ = `(select value from revisions where name = 'calendar')`;

function publicOf(table: string, row: string, d: Dialect): string {
  const published = `(${row}.status = 'publish' or (${row}.status = 'future' and ${row}.date_utc <= ${d.now}))`;
  const shown =
    table === 'events' ? ` and ${row}.hide_from_listings = 0 and (${row}.recurrence is null or ${row}.parent_id is not null)` : '';
  return `case when ${published}${shown} then 1 else 0 end`;
}

/** Records a change of the item itself: its visibility facts too. */
function markSelf(table: (typeof SELF_TABLES)[number], op: 'insert' | 'update' | 'delete', d: Dialect): string {
  const row = op === 'delete' ? 'old' : 'new';
  const type = table === 'terms' ? `${row}.taxonomy` : `'${table.slice(0, -1)}'`;
  const post = table !== 'terms';
  const everPublic = !post
    ? '1'
    : op === 'update'
      ? `${publicOf(table, 'new', d)} | ${publicOf(table, 'old', d)}`
      : publicOf(table, row, d);
  const author = post ? `${row}.author_id` : 'null';
  const due = post && op !== 'delete' ? `case when new.status = 'future' then new.date_utc else null end` : 'null';
  return `${d.before} insert into calendar_changes (type, item_id, seq, changed_at, ever_public, author_id, due_at)
    values (${type}, ${row}.id, ${SEQ}, ${d.now}, ${everPublic}, ${author}, ${due})
    on conflict (type, item_id) do update set seq = excluded.seq, changed_at = excluded.changed_at,
      ever_public = case when excluded.ever_public = 1 then 1 else calendar_changes.ever_public end,
      author_id = coalesce(excluded.author_id, calendar_changes.author_id), due_at = excluded.due_at;`;
}

/** Records a change of the items a select names (`type`, `id` columns), which keep their visibility facts. */
function markItems(select: string, d: Dialect): string {
  return `${d.before} insert into calendar_changes (type, item_id, seq, changed_at)
    select distinct picked.type, picked.id, ${SEQ}, ${d.now} from (${select}) picked where true
    on conflict (type, item_id) do update set seq = excluded.seq, changed_at = excluded.changed_at;`;
}

/** The events that embed what `row` of `table` is (they show its name, address, slug…). */
function embeddingEvents(table: string, row: string): string[] {
  switch (table) {
    case 'venues':
      return [`select 'event' as type, e.id as id from events e where e.venue_id = ${row}.id`];
    case 'organizers':
      return [`select 'event' as type, l.event_id as id from event_organizers l where l.organizer_id = ${row}.id`];
    // A count moves on every event write to the term; what events embed of a term moves with the others.
    case 'terms':
      return [
        `select 'event' as type, l.event_id as id from event_terms l where l.term_id = ${row}.id and old.published_count = new.published_count`,
      ];
    case 'translations':
      return [
        `select ${row}.resource_type as type, ${row}.resource_id as id where true`,
        `select 'event' as type, e.id as id from events e where ${row}.resource_type = 'venue' and e.venue_id = ${row}.resource_id`,
        `select 'event' as type, l.event_id as id from event_organizers l
          where ${row}.resource_type = 'organizer' and l.organizer_id = ${row}.resource_id`,
        `select 'event' as type, l.event_id as id from event_terms l
          where ${row}.resource_type in ('category', 'tag') and l.term_id = ${row}.resource_id`,
      ];
    case 'events':
      return [];
    default:
      return [`select 'event' as type, ${row}.event_id as id where true`];
  }
}

function bodyOf(table: string, op: 'insert' | 'update' | 'delete', d: Dialect): string {
  const self = (SELF_TABLES as readonly string[]).includes(table) ? markSelf(table as (typeof SELF_TABLES)[number], op, d) : '';
  const rows = op === 'update' && !(SELF_TABLES as readonly string[]).includes(table) ? ['old', 'new'] : [op === 'delete' ? 'old' : 'new'];
  const linked =
    op === 'update' || !(SELF_TABLES as readonly string[]).includes(table) ? rows.flatMap((row) => embeddingEvents(table, row)) : [];
  return [self, ...linked.map((select) => markItems(select, d))].join('\n');
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const d: Dialect = postgres
    ? { before: '', now: `to_char(now() at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS')` }
    : { before: `update revisions set value = value + 1 where name = 'calendar';`, now: `strftime('%Y-%m-%d %H:%M:%S', 'now')` };
  await db.schema
    .createTable('calendar_changes')
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('item_id', 'integer', (col) => col.notNull())
    .addColumn('seq', 'bigint', (col) => col.notNull())
    .addColumn('changed_at', 'text', (col) => col.notNull())
    .addColumn('ever_public', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('author_id', 'integer')
    .addColumn('due_at', 'text')
    .addPrimaryKeyConstraint('calendar_changes_pk', ['type', 'item_id'])
    .execute();
  await db.schema.createIndex('calendar_changes_seq').on('calendar_changes').column('seq').execute();
  await db.schema.createIndex('calendar_changes_due').on('calendar_changes').column('due_at').execute();
  await db.schema
    .createTable('calendar_change_log')
    .addColumn('id', 'integer', (col) => col.primaryKey())
    .addColumn('floor_seq', 'bigint', (col) => col.notNull())
    .addColumn('token_key', 'text', (col) => col.notNull())
    .execute();
  // 256 random bits from the database's own strong source (gen_random_uuid: 122 bits each).
  const key = postgres
    ? sql`replace(gen_random_uuid()::text || gen_random_uuid()::text || gen_random_uuid()::text, '-', '')`
    : sql`lower(hex(randomblob(32)))`;
  await db.insertInto('calendar_change_log').values({ id: 1, floor_seq: 0, token_key: key }).execute();

  // Every item there is now, at the current revision: its version until it changes.
  for (const table of ['events', 'venues', 'organizers'] as const) {
    const type = table.slice(0, -1);
    await sql`insert into calendar_changes (type, item_id, seq, changed_at, ever_public, author_id, due_at)
      select ${type}, t.id, ${sql.raw(SEQ)}, ${sql.raw(d.now)}, ${sql.raw(publicOf(table, 't', d))}, t.author_id,
        case when t.status = 'future' then t.date_utc else null end
      from ${sql.table(table)} t`.execute(db);
  }
  await sql`insert into calendar_changes (type, item_id, seq, changed_at, ever_public)
    select t.taxonomy, t.id, ${sql.raw(SEQ)}, ${sql.raw(d.now)}, 1 from terms t`.execute(db);

  for (const table of [...SELF_TABLES, ...LINK_TABLES]) {
    for (const op of ['insert', 'update', 'delete'] as const) {
      const name = `${table}_${op}_changes`;
      const body = bodyOf(table, op, d);
      if (postgres) {
        await sql`create function ${sql.id(name)}() returns trigger language plpgsql as $$ begin ${sql.raw(body)} return null; end $$`.execute(
          db,
        );
        await sql`create trigger ${sql.id(name)} after ${sql.raw(op)} on ${sql.table(table)}
          for each row execute function ${sql.id(name)}()`.execute(db);
      } else {
        await sql`create trigger ${sql.id(name)} after ${sql.raw(op)} on ${sql.table(table)} begin ${sql.raw(body)} end`.execute(db);
      }
    }
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const table of [...SELF_TABLES, ...LINK_TABLES]) {
    for (const op of ['insert', 'update', 'delete']) {
      const name = `${table}_${op}_changes`;
      if (postgres) {
        await sql`drop trigger ${sql.id(name)} on ${sql.table(table)}`.execute(db);
        await sql`drop function ${sql.id(name)}()`.execute(db);
      } else {
        await sql`drop trigger ${sql.id(name)}`.execute(db);
      }
    }
  }
  await db.schema.dropTable('calendar_change_log').execute();
  await db.schema.dropTable('calendar_changes').execute();
}
