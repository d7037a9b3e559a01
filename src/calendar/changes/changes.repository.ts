import { sql, type Expression, type ExpressionBuilder, type Selectable, type SqlBool } from 'kysely';
import type { Database, Db } from '../../platform/db/schema.ts';
import type { CalendarChangeTable, ChangeType } from '../calendar.tables.ts';
import type { ListVisibility } from '../posts/posts.access.ts';

/**
 * The change log (migration 2026-11-28T0100-changes): one row per item,
 * numbered by the calendar revision of its last change, which the
 * database's triggers write.
 */

/** An item's version: the number of its last change; `undefined` for an item that never existed. */
export async function findVersion(db: Db, type: ChangeType, id: number): Promise<number | undefined> {
  const row = await db.selectFrom('calendar_changes').select('seq').where('type', '=', type).where('item_id', '=', id).executeTakeFirst();
  return row === undefined ? undefined : Number(row.seq);
}

/** A row of the log as sync reads it. */
export interface ChangeRow {
  readonly type: ChangeType;
  readonly id: number;
  readonly seq: number;
  /** UTC `YYYY-MM-DD HH:MM:SS`. */
  readonly changedAt: string;
}

/** Where a page of changes resumes: after this change, in log order (seq, type, id) — a reader's own order for a sync (listHeardChanges); after every change `seq` holds when only `seq` is given. */
export interface ChangeCursor {
  readonly seq: number;
  readonly type?: ChangeType;
  readonly id?: number;
}

/**
 * A column that places rows in the log: `seq`, the number of the item's last change; or, for a reader, the number of
 * the change that took the item out of its lists (see listHeardChanges).
 */
type Place = 'seq' | 'public_seq' | 'public_left' | 'listed_left';

/** The rows placed up to `upTo` after `after` by `place`, in that order, of the types asked. */
function rowsAfter(db: Db, after: ChangeCursor, upTo: number, types: readonly ChangeType[], place: Place = 'seq') {
  const { type, id } = after;
  return db
    .selectFrom('calendar_changes')
    .select(['type', 'item_id', 'seq', 'changed_at'])
    .where((eb) =>
      type === undefined || id === undefined
        ? eb(place, '>', after.seq)
        : // The bound alone first: an index walk starts there.
          eb.and([
            eb(place, '>=', after.seq),
            eb.or([
              eb(place, '>', after.seq),
              eb.and([eb(place, '=', after.seq), eb.or([eb('type', '>', type), eb.and([eb('type', '=', type), eb('item_id', '>', id)])])]),
            ]),
          ]),
    )
    .where(place, '<=', upTo)
    .where('type', 'in', types)
    .orderBy(place)
    .orderBy('type')
    .orderBy('item_id');
}

function toChangeRow(row: Pick<Selectable<CalendarChangeTable>, 'type' | 'item_id' | 'seq' | 'changed_at'>): ChangeRow {
  return {
    type: row.type,
    id: row.item_id,
    seq: Number(row.seq),
    changedAt: row.changed_at,
  };
}

/** A change as one reader of the log hears of it. */
export interface HeardChange extends ChangeRow {
  /**
   * Its place in the reader's log: the number of its last change while the reader's lists show the item, else of
   * the change that took it out of them. Changes the reader cannot see never move it.
   */
  readonly place: number;
  /** Whether the reader's lists show the item: else it hears of its removal. */
  readonly shown: boolean;
}

type Where = (eb: ExpressionBuilder<Database, 'calendar_changes'>) => Expression<SqlBool>;

/**
 * How a reader's log is made, from the audiences migration 2026-12-01T0100-changes-audiences keeps per row:
 * the items its lists show, placed by their last change it can see (`public_seq` for what anonymous lists show,
 * 2026-12-02T0100-changes-public-place), and the items they showed and no longer do, placed where they left. Anonymous readers list what anonymous lists show; editors what is not in the trash; others
 * (authors, contributors) that for their own items and the first for the rest (posts.access.ts). Flags are
 * literals, so each part walks an index (partial ones for removals).
 */
function readerParts(visibility: ListVisibility): { place: Place; shown: boolean; where: Where }[] {
  const flag =
    (column: 'public_now' | 'listed_now', value: 0 | 1): Where =>
    (eb) =>
      eb(column, '=', eb.lit(value));
  switch (visibility.kind) {
    case 'published':
      return [
        { place: 'public_seq', shown: true, where: flag('public_now', 1) },
        { place: 'public_left', shown: false, where: flag('public_now', 0) },
      ];
    case 'all-but-trash':
      return [
        { place: 'seq', shown: true, where: flag('listed_now', 1) },
        { place: 'listed_left', shown: false, where: flag('listed_now', 0) },
      ];
    case 'published-or-own': {
      const own: Where = (eb) => eb('author_id', '=', visibility.userId);
      return [
        {
          place: 'public_seq',
          shown: true,
          where: (eb) =>
            eb.and([flag('public_now', 1)(eb), eb.or([eb('author_id', 'is', null), eb('author_id', '<>', visibility.userId)])]),
        },
        { place: 'seq', shown: true, where: (eb) => eb.and([own(eb), flag('listed_now', 1)(eb)]) },
        {
          place: 'public_left',
          shown: false,
          where: (eb) =>
            eb.and([flag('public_now', 0)(eb), eb.or([eb('author_id', 'is', null), eb('author_id', '<>', visibility.userId)])]),
        },
        { place: 'listed_left', shown: false, where: (eb) => eb.and([flag('listed_now', 0)(eb), own(eb)]) },
      ];
    }
  }
}

const byPlace = (a: HeardChange, b: HeardChange) => a.place - b.place || (a.type < b.type ? -1 : a.type > b.type ? 1 : a.id - b.id);

/**
 * The changes a reader whose lists are `visibility` hears of, placed after `after` up to `upTo` in its log, in
 * that order, of the types asked, at most `limit`. Changes of items it never listed, or that left its lists before
 * `after`, are not read: a page starts after the last change its reader heard of, and a removal is heard of once.
 */
export async function listHeardChanges(
  db: Db,
  visibility: ListVisibility,
  after: ChangeCursor,
  upTo: number,
  types: readonly ChangeType[],
  limit: number,
): Promise<HeardChange[]> {
  // One statement (one snapshot): each part its own index walk, in a subquery of its own.
  const [first, ...rest] = readerParts(visibility).map(({ place, shown, where }) =>
    db
      .selectFrom(
        rowsAfter(db, after, upTo, types, place)
          .select((eb) => [eb.ref(place).as('place'), eb.lit(shown ? 1 : 0).as('shown')])
          .where(where)
          .limit(limit)
          .as('part'),
      )
      .selectAll(),
  );
  const rows = await rest.reduce((query, part) => query.unionAll(part), first!).execute();
  return rows
    .map((row): HeardChange => ({ ...toChangeRow(row), place: Number(row.place), shown: Number(row.shown) === 1 }))
    .sort(byPlace)
    .slice(0, limit);
}

/** What a read of the log starts from, in one statement (one snapshot). */
export interface LogState {
  /** The calendar revision: every change numbered up to it has committed. */
  readonly revision: number;
  /** The highest number pruned from the log: tokens before it are expired. */
  readonly floor: number;
  /** Seals sync tokens (changes.tokens.ts derives the cipher key from it). */
  readonly key: string;
  /** Whether a scheduled item's time has come (at `now`, a UTC stamp): see recordDuePublications. */
  readonly due: boolean;
}

export async function readLogState(db: Db, now: string): Promise<LogState> {
  const { rows } = await sql<{ revision: number | string; floor_seq: number | string; token_key: string; due: number | boolean }>`
    select (select value from revisions where name = 'calendar') as revision, floor_seq, token_key,
      case when exists (select 1 from calendar_changes where due_at <= ${now}) then 1 else 0 end as due
    from calendar_change_log where id = 1`.execute(db);
  const row = rows[0]!;
  return { revision: Number(row.revision), floor: Number(row.floor_seq), key: row.token_key, due: Number(row.due) === 1 };
}

/** A change of an event: its number and the event. */
export interface EventChange {
  readonly seq: number;
  readonly id: number;
}

/**
 * The changes of events numbered after `from`, ascending, at most `limit`, and the log's floor read in the same
 * statement (one snapshot): a floor past `from` means removals after it were pruned, so the changes read are not
 * all there were. No upper bound: an event has one entry, at its last change, so one changed after `from` and
 * again since is found only past the revision its first change made.
 */
export async function listEventChangesAbove(db: Db, from: number, limit: number): Promise<{ changes: EventChange[]; floor: number }> {
  const changes = db
    .selectFrom('calendar_changes')
    .select(['seq', 'item_id'])
    .where('seq', '>', from)
    .where('type', '=', 'event')
    .orderBy('seq')
    .limit(limit);
  const rows = await db
    .selectFrom('calendar_change_log as log')
    .leftJoin(changes.as('change'), (join) => join.onTrue())
    .select(['log.floor_seq', 'change.seq', 'change.item_id'])
    .where('log.id', '=', 1)
    .orderBy('change.seq')
    .execute();
  return {
    changes: rows.flatMap((row) => (row.seq === null || row.item_id === null ? [] : [{ seq: Number(row.seq), id: row.item_id }])),
    floor: Number(rows[0]!.floor_seq),
  };
}

/**
 * A number for changes a write records itself: the revision, bumped in the
 * writing transaction (`trx`), which holds it until it commits, as the
 * triggers' numbers are.
 */
async function nextSeq(trx: Db): Promise<number> {
  const { rows } = await sql<{
    value: number | string;
  }>`update revisions set value = value + 1 where name = 'calendar' returning value`.execute(trx);
  return Number(rows[0]!.value);
}

/** Whether a scheduled item's time has come (`now`: a UTC stamp). */
async function hasDuePublications(db: Db, now: string): Promise<boolean> {
  const row = await db.selectFrom('calendar_changes').select('item_id').where('due_at', '<=', now).limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * Scheduled items whose time has come change then, without a write: each is
 * moved to the end of the log as published (anonymous readers now list it),
 * with what its publication changes too (the counts of an event's terms,
 * the events that embed a venue or an organizer). Run in a write
 * transaction before a sync reads the log; `now` is a UTC stamp.
 */
export async function recordDuePublications(trx: Db, now: string): Promise<number> {
  if (!(await hasDuePublications(trx, now))) return 0;
  const seq = await nextSeq(trx);
  const listedEvent = sql<boolean>`exists (select 1 from events e where e.id = calendar_changes.item_id
    and e.hide_from_listings = 0 and (e.recurrence is null or e.parent_id is not null))`;
  const moved = await trx
    .updateTable('calendar_changes')
    .set({
      seq,
      changed_at: now,
      due_at: null,
      ever_public: sql<number>`case when type <> 'event' or ${listedEvent} then 1 else ever_public end`,
    })
    .where('due_at', '<=', now)
    .executeTakeFirst();
  const published = (type: ChangeType) =>
    trx.selectFrom('calendar_changes').select('item_id').where('seq', '=', seq).where('type', '=', type);
  const touched = [
    trx
      .selectFrom('event_terms')
      .innerJoin('terms', 'terms.id', 'event_terms.term_id')
      .select(['terms.taxonomy as type', 'terms.id as id'])
      .where('event_terms.event_id', 'in', published('event')),
    trx
      .selectFrom('events')
      .select([sql.lit('event').as('type'), 'events.id as id'])
      .where('events.venue_id', 'in', published('venue')),
    trx
      .selectFrom('event_organizers')
      .select([sql.lit('event').as('type'), 'event_organizers.event_id as id'])
      .where('event_organizers.organizer_id', 'in', published('organizer')),
  ];
  for (const items of touched) {
    await trx
      .insertInto('calendar_changes')
      .columns(['type', 'item_id', 'seq', 'changed_at'])
      .expression((eb) =>
        eb
          .selectFrom(items.as('picked'))
          .distinct()
          .select(['picked.type', 'picked.id', sql.lit(seq).as('seq'), sql.lit(now).as('changed_at')])
          .where(sql.lit(true)),
      )
      .onConflict((oc) => oc.columns(['type', 'item_id']).doUpdateSet({ seq, changed_at: now }))
      .execute();
  }
  return Number(moved.numUpdatedRows);
}

const TABLE_OF: Readonly<Record<ChangeType, 'events' | 'venues' | 'organizers' | 'terms'>> = {
  event: 'events',
  venue: 'venues',
  organizer: 'organizers',
  category: 'terms',
  tag: 'terms',
};

/**
 * Forgets the removals recorded before `before` (a UTC stamp): the rows of
 * items that no longer exist. Tokens from before the last of them expire
 * (the floor), as their clients could miss a removal; the rows of items
 * that exist are their versions and stay. Returns how many were deleted.
 */
export async function pruneRemovals(trx: Db, before: string): Promise<{ pruned: number; floor: number }> {
  const gone = (Object.entries(TABLE_OF) as [ChangeType, (typeof TABLE_OF)[ChangeType]][]).map(
    ([type, table]) =>
      sql<boolean>`(type = ${type} and not exists (select 1 from ${sql.table(table)} t where t.id = calendar_changes.item_id))`,
  );
  const removed = sql<boolean>`changed_at < ${before} and (${sql.join(gone, sql` or `)})`;
  const last = await trx
    .selectFrom('calendar_changes')
    .where(removed)
    .select((eb) => eb.fn.max('seq').as('seq'))
    .executeTakeFirst();
  const lastSeq = last?.seq === null || last?.seq === undefined ? 0 : Number(last.seq);
  // A new revision, so that no process answers from before the prune: what it cached of a version (a page
  // of changes for a token now expired) holds no longer, and the moved floor invalidates every item. Taken
  // before the rows, in the order every calendar write takes its locks.
  if (lastSeq > 0) await nextSeq(trx);
  const deleted = await trx.deleteFrom('calendar_changes').where(removed).executeTakeFirst();
  await trx
    .updateTable('calendar_change_log')
    .set({ floor_seq: sql`case when floor_seq < ${lastSeq} then ${lastSeq} else floor_seq end` })
    .where('id', '=', 1)
    .execute();
  const { floor } = await readLogState(trx, before);
  return { pruned: Number(deleted.numDeletedRows), floor };
}
