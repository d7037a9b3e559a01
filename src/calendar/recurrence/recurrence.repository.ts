import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../platform/db/schema.ts';
import { reservePostIds } from '../posts/posts.repository.ts';
import '../calendar.tables.ts';

/**
 * Storage of recurring series: the id of every occurrence a series has had,
 * and its occurrences as event rows that copy the series' columns, texts
 * and links (set-based: a fixed number of statements per series write).
 */

// SQLite binds at most 32,766 parameters: an events row has about 35.
const ROWS_PER_INSERT = 400;

/** The ids given so far to the occurrences of `seriesId`, by original start (UTC stamp). */
export async function findOccurrenceIds(db: Db, seriesId: number): Promise<Map<string, number>> {
  const rows = await db.selectFrom('event_occurrences').select(['original_start_utc', 'id']).where('series_id', '=', seriesId).execute();
  return new Map(rows.map((row) => [row.original_start_utc, row.id]));
}

/** New ids for occurrences first generated now, reserved for the life of the series. */
export async function reserveOccurrenceIds(db: Db, seriesId: number, starts: readonly string[]): Promise<Map<string, number>> {
  const reserved = await reservePostIds(db, 'event', starts.length);
  const ids = new Map(starts.map((start, at) => [start, reserved[at] as number]));
  for (let at = 0; at < starts.length; at += ROWS_PER_INSERT) {
    const chunk = starts.slice(at, at + ROWS_PER_INSERT);
    await db
      .insertInto('event_occurrences')
      .values(chunk.map((start) => ({ series_id: seriesId, original_start_utc: start, id: ids.get(start) as number })))
      .execute();
  }
  return ids;
}

/** The occurrences changed on their own (exceptions), by original start. */
export async function findExceptions(db: Db, seriesId: number): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('events')
    .select(['id', 'original_start_utc'])
    .where('parent_id', '=', seriesId)
    .where('is_exception', '=', 1)
    .execute();
  return new Map(rows.flatMap((row) => (row.original_start_utc === null ? [] : [[row.original_start_utc, row.id] as const])));
}

/** Removes occurrence rows (their links cascade) and their texts; their ids stay reserved for the series. */
export async function deleteOccurrenceRows(db: Db, seriesId: number, scope: 'generated' | 'all' | readonly number[]): Promise<void> {
  const rows = () => {
    let query = db.selectFrom('events').select('id').where('parent_id', '=', seriesId);
    if (scope === 'generated') query = query.where('is_exception', '=', 0);
    else if (scope !== 'all') query = query.where('id', 'in', scope.length > 0 ? [...scope] : [-1]);
    return query;
  };
  await db.deleteFrom('translations').where('resource_type', '=', 'event').where('resource_id', 'in', rows()).execute();
  await db.deleteFrom('events').where('id', 'in', rows()).execute();
}

/** What sets one occurrence apart from its series' columns. */
export interface OccurrenceTimes {
  readonly id: number;
  readonly start_local: string;
  readonly start_utc: string;
  readonly end_local: string;
  readonly end_utc: string;
}

// Five values an occurrence: well under either database's limit on bound values.
const OCCURRENCES_PER_INSERT = 2000;

/**
 * Inserts occurrences of a series as copies of its row (`columns`, the
 * events table's stored columns) with their own ids and times, each its
 * original start: set-based, five values bound per occurrence, the rest read
 * from the series row. The rule itself is not copied: an occurrence shows
 * its series' (events.inherited.ts), so a long rule is stored once.
 */
export async function insertOccurrences(
  db: Db,
  seriesId: number,
  columns: readonly string[],
  occurrences: readonly OccurrenceTimes[],
): Promise<void> {
  const own: Readonly<Record<string, RawBuilder<unknown>>> = {
    id: sql`cast(v.column1 as integer)`,
    parent_id: sql`s.id`,
    start_local: sql`v.column2`,
    start_utc: sql`v.column3`,
    end_local: sql`v.column4`,
    end_utc: sql`v.column5`,
    original_start_local: sql`v.column2`,
    original_start_utc: sql`v.column3`,
    is_exception: sql`0`,
    recurrence_horizon: sql`null`,
    recurrence: sql`null`,
  };
  const selected = sql.join(columns.map((column) => own[column] ?? sql.ref(`s.${column}`)));
  for (let at = 0; at < occurrences.length; at += OCCURRENCES_PER_INSERT) {
    const rows = occurrences
      .slice(at, at + OCCURRENCES_PER_INSERT)
      .map((o) => sql`(${String(o.id)}, ${o.start_local}, ${o.start_utc}, ${o.end_local}, ${o.end_utc})`);
    await sql`insert into events (${sql.join(columns.map((column) => sql.ref(column)))})
      select ${selected} from events as s cross join (values ${sql.join(rows)}) as v
      where s.id = ${seriesId}`.execute(db);
  }
}

/**
 * Gives the series' generated occurrences its categories, tags and
 * organizers. Texts are not copied: a generated occurrence shows its
 * series' (events.inherited.ts), so a series' write does not rewrite a text
 * row per occurrence.
 */
export async function copySeriesContent(db: Db, seriesId: number): Promise<void> {
  await db
    .insertInto('event_terms')
    .columns(['event_id', 'term_id'])
    .expression((eb) =>
      eb
        .selectFrom('events as o')
        .innerJoin('event_terms as t', 't.event_id', 'o.parent_id')
        .select(['o.id', 't.term_id'])
        .where('o.parent_id', '=', seriesId)
        .where('o.is_exception', '=', 0),
    )
    .execute();
  await db
    .insertInto('event_organizers')
    .columns(['event_id', 'organizer_id', 'position'])
    .expression((eb) =>
      eb
        .selectFrom('events as o')
        .innerJoin('event_organizers as l', 'l.event_id', 'o.parent_id')
        .select(['o.id', 'l.organizer_id', 'l.position'])
        .where('o.parent_id', '=', seriesId)
        .where('o.is_exception', '=', 0),
    )
    .execute();
}

/** What a series decides for every occurrence, exceptions included: who sees them, and its rules. */
export async function shareSeriesState(
  db: Db,
  seriesId: number,
  state: {
    status: string;
    author_id: number | null;
    password_hash: string | null;
    date: string;
    date_utc: string;
  },
): Promise<void> {
  // Generated occurrences are inserted as copies of the series: only exceptions keep an older state.
  await db.updateTable('events').set(state).where('parent_id', '=', seriesId).where('is_exception', '=', 1).execute();
}

/**
 * Gives series `to`, cut from `from` at `cutUtc`, the occurrence ids of
 * `from` from the cut on, and its exceptions after the cut: the rest of a
 * cut series keeps the ids and the changes its occurrences had.
 */
export async function moveOccurrencesAfterCut(db: Db, from: number, to: number, cutUtc: string): Promise<void> {
  await db
    .updateTable('event_occurrences')
    .set({ series_id: to })
    .where('series_id', '=', from)
    .where('original_start_utc', '>=', cutUtc)
    .execute();
  await db
    .updateTable('events')
    .set({ parent_id: to })
    .where('parent_id', '=', from)
    .where('is_exception', '=', 1)
    .where('original_start_utc', '>', cutUtc)
    .execute();
}

/** Forgets a series' occurrence ids (when it is deleted for good, or becomes a single event). */
export async function deleteOccurrenceIds(db: Db, seriesId: number): Promise<void> {
  const ids = db.selectFrom('event_occurrences').select('id').where('series_id', '=', seriesId);
  await db.deleteFrom('post_ids').where('id', 'in', ids).execute();
  await db.deleteFrom('event_occurrences').where('series_id', '=', seriesId).execute();
}

/** Gives event `to` the texts of event `from`, every language, slug aside. */
export async function copyEventTexts(db: Db, from: number, to: number): Promise<void> {
  await db
    .insertInto('translations')
    .columns(['resource_type', 'resource_id', 'language', 'field', 'value'])
    .expression((eb) =>
      eb
        .selectFrom('translations as t')
        .select((s) => [s.val('event').as('resource_type'), s.val(to).as('resource_id'), 't.language', 't.field', 't.value'])
        .where('t.resource_type', '=', 'event')
        .where('t.resource_id', '=', from)
        .where('t.field', '<>', 'slug'),
    )
    .execute();
}

/** Gives event `to` the texts (every language, slug aside), categories, tags and organizers of event `from`. */
export async function copyEventContent(db: Db, from: number, to: number): Promise<void> {
  await copyEventTexts(db, from, to);
  await db
    .insertInto('event_terms')
    .columns(['event_id', 'term_id'])
    .expression((eb) =>
      eb
        .selectFrom('event_terms')
        .select((s) => [s.val(to).as('event_id'), 'term_id'])
        .where('event_id', '=', from),
    )
    .execute();
  await db
    .insertInto('event_organizers')
    .columns(['event_id', 'organizer_id', 'position'])
    .expression((eb) =>
      eb
        .selectFrom('event_organizers')
        .select((s) => [s.val(to).as('event_id'), 'organizer_id', 'position'])
        .where('event_id', '=', from),
    )
    .execute();
}

/** The rules of the series `ids`, by id. */
export async function findSeriesRecurrences(db: Db, ids: readonly number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('events')
    .select(['id', 'recurrence'])
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.flatMap((row) => (row.recurrence === null ? [] : [[row.id, row.recurrence] as const])));
}

/** Series whose stored occurrences end before `due` (a wall time), oldest horizon first. */
export async function findSeriesDue(db: Db, due: string, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('events')
    .select('id')
    .where('recurrence_horizon', '<', due)
    .orderBy('recurrence_horizon')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}
