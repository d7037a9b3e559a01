import { PostgresAdapter, sql, type Kysely } from 'kysely';

// A text's change, logged only for what the text belongs to. 2026-12-02T0100-changes-public-place wrote each
// translations trigger as every mark a text could need, one after the other: the item the text belongs to, then
// the events at a venue, at an organizer and under a term, each guarded by the text's `resource_type`. An event's
// text ran all four (SQLite bumped the revision before each, PostgreSQL ran each statement), and an update ran
// them for the old row and again for the new: of SQLite's 273 µs of statements per create, 57 went to its three
// texts' triggers. Each mark now runs only for its kind of item (SQLite: a trigger with a `when` each; PostgreSQL:
// `if`), and an update marks the old row's items only when the text moved to another item. Which items a change
// names, and what it records of them, is as before; on SQLite the marks of one row run in the order SQLite fires
// triggers (unspecified: the newest first in practice), so their numbers within the transaction, which readers
// see together, may come in another order. Frozen: Kysely only.

interface Dialect {
  /** What a trigger body runs before it writes a change: SQLite bumps the revision itself, per change. */
  readonly before: string;
  readonly now: string;
}

type Op = 'insert' | 'update' | 'delete';
type Row = 'old' | 'new';

const SEQ = `(select value from revisions where name = 'calendar')`;

/** Whether a venue or organizer row is shown to anonymous readers (published, or scheduled and due). */
function isPublic(row: string, d: Dialect): string {
  return `(${row}.status = 'publish' or (${row}.status = 'future' and ${row}.date_utc <= ${d.now}))`;
}

const notPublic = (table: 'venues' | 'organizers', id: string, d: Dialect) =>
  `not exists (select 1 from ${table} p where p.id = ${id} and ${isPublic('p', d)})`;

/** The change of the items a select names, hidden from anonymous readers when `hidden` holds. */
function markItems(select: string, d: Dialect, hidden?: string): string {
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

/** One mark of a text's row: `kind` names it, `guard` is when it applies (`undefined`: always). */
interface Mark {
  readonly kind: 'item' | 'venue' | 'organizer' | 'term';
  readonly row: Row;
  readonly guard: string | undefined;
  readonly body: string;
}

/** The marks of a text's row, in 2026-12-02T0100-changes-public-place's order. */
function marksOf(row: Row, d: Dialect): Mark[] {
  const type = `${row}.resource_type`;
  const id = `${row}.resource_id`;
  return [
    { kind: 'item', row, guard: undefined, body: markItems(`select ${type} as type, ${id} as id where true`, d) },
    {
      kind: 'venue',
      row,
      guard: `${type} = 'venue'`,
      body: markItems(
        `select 'event' as type, e.id as id from events e where ${type} = 'venue' and e.venue_id = ${id}`,
        d,
        notPublic('venues', id, d),
      ),
    },
    {
      kind: 'organizer',
      row,
      guard: `${type} = 'organizer'`,
      body: markItems(
        `select 'event' as type, l.event_id as id from event_organizers l
          where ${type} = 'organizer' and l.organizer_id = ${id}`,
        d,
        notPublic('organizers', id, d),
      ),
    },
    {
      kind: 'term',
      row,
      guard: `${type} in ('category', 'tag')`,
      body: markItems(
        `select 'event' as type, l.event_id as id from event_terms l
          where ${type} in ('category', 'tag') and l.term_id = ${id}`,
        d,
      ),
    },
  ];
}

/** An update's old row names other items than its new one only when the text moved. */
const MOVED = `(old.resource_type <> new.resource_type or old.resource_id <> new.resource_id)`;

/** The marks of an operation: an update's old row only when it moved (`split`), else as before. */
function marks(op: Op, d: Dialect, split: boolean): Mark[] {
  if (op !== 'update') return marksOf(op === 'delete' ? 'old' : 'new', d);
  const moved = (mark: Mark): Mark => ({ ...mark, guard: mark.guard === undefined ? MOVED : `${MOVED} and ${mark.guard}` });
  return [...marksOf('old', d).map((mark) => (split ? moved(mark) : mark)), ...marksOf('new', d)];
}

const ALL_OPS: readonly Op[] = ['insert', 'update', 'delete'];

/** The combined trigger's name, as 2026-11-28T0100-changes named it; the split ones add the mark. */
const triggerName = (op: Op) => `translations_${op}_changes`;
const splitName = (op: Op, mark: Mark) => `${triggerName(op)}_${mark.row}_${mark.kind}`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function writeSqlite(db: Kysely<any>, d: Dialect, split: boolean): Promise<void> {
  for (const op of ALL_OPS) {
    const found = marks(op, d, split);
    const names = found.map((mark) => splitName(op, mark));
    for (const name of split ? [triggerName(op)] : names) await sql`drop trigger ${sql.id(name)}`.execute(db);
    if (!split) {
      const body = found.map((mark) => mark.body).join('\n');
      await sql`create trigger ${sql.id(triggerName(op))} after ${sql.raw(op)} on translations begin ${sql.raw(body)} end`.execute(db);
      continue;
    }
    for (const [index, mark] of found.entries()) {
      const when = mark.guard === undefined ? sql`` : sql`when ${sql.raw(mark.guard)}`;
      await sql`create trigger ${sql.id(names[index]!)} after ${sql.raw(op)} on translations ${when}
        begin ${sql.raw(mark.body)} end`.execute(db);
    }
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function writePostgres(db: Kysely<any>, d: Dialect, split: boolean): Promise<void> {
  for (const op of ALL_OPS) {
    const statements = marks(op, d, split).map((mark) =>
      split && mark.guard !== undefined ? `if ${mark.guard} then ${mark.body} end if;` : mark.body,
    );
    // Replacing a function resets its settings: it states 2026-12-07T0100-trigger-plans-generic's again.
    await sql`create or replace function ${sql.id(triggerName(op))}() returns trigger language plpgsql
      set plan_cache_mode = 'force_generic_plan'
      as $$ begin ${sql.raw(statements.join('\n'))} return null; end $$`.execute(db);
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function write(db: Kysely<any>, split: boolean): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const d: Dialect = postgres
    ? { before: '', now: `to_char(now() at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS')` }
    : { before: `update revisions set value = value + 1 where name = 'calendar';`, now: `strftime('%Y-%m-%d %H:%M:%S', 'now')` };
  await (postgres ? writePostgres(db, d, split) : writeSqlite(db, d, split));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await write(db, true);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await write(db, false);
}
