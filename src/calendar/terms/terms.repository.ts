import { sql } from 'kysely';
import { lockingRows } from '../../platform/db/row-locks.ts';
import type { Db } from '../../platform/db/schema.ts';
import type { Taxonomy } from '../calendar.tables.ts';
import '../calendar.tables.ts';
import './terms.tables.ts';

/** Largest id the integer columns hold; larger numbers can name no term or event. */
export const MAX_ID = 2_147_483_647;

export interface TermRow {
  readonly id: number;
  readonly taxonomy: Taxonomy;
  readonly parent_id: number | null;
  /** Absent where only the tree is read (ancestors). */
  readonly color?: string | null;
}

/**
 * Per term, its events stored as `future` whose date has passed: published too (permissions.ts `effectiveStatus`),
 * and never a password-protected one. Counted once for all terms, as a table `due` (`term_id`, `n`) to join: the
 * events found through their (status, date_utc) index, each one's links by primary key. Counted per term instead,
 * PostgreSQL estimated a thousand due events for each (the dates of `future` events are not told apart from the
 * others') and compiled the statement with JIT at 100k events: 34 ms for what runs in 2.
 */
export function dueCounts(db: Db, now: string) {
  return db
    .selectFrom('events as e')
    .innerJoin('event_terms as et', 'et.event_id', 'e.id')
    .select((eb) => ['et.term_id', eb.fn.countAll<number | string>().as('n')])
    .where('e.status', '=', 'future')
    .where('e.date_utc', '<=', now)
    .where('e.password_hash', 'is', null)
    .groupBy('et.term_id')
    .as('due');
}

/**
 * The `count` of a term (what `orderby=count` sorts by), in a query of `terms` joined with `dueCounts`: its events
 * stored as `publish`, maintained by the database in `published_count`, and its due scheduled ones.
 */
export const PUBLISHED_COUNT = sql<number>`(terms.published_count + coalesce(due.n, 0))`;

export async function insertTerm(db: Db, taxonomy: Taxonomy, parentId: number | null, color: string | null = null): Promise<number> {
  const row = await db.insertInto('terms').values({ taxonomy, parent_id: parentId, color }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** One term; `forWrite` holds it until the write's transaction ends (see lockingRows). */
export async function findTerm(db: Db, id: number, forWrite = false): Promise<TermRow | undefined> {
  if (id > MAX_ID) return undefined;
  const query = db.selectFrom('terms').select(['id', 'taxonomy', 'parent_id', 'color']).where('id', '=', id);
  return (forWrite ? lockingRows(db, query) : query).executeTakeFirst();
}

/** The terms of `taxonomy` among `ids` that exist. */
export async function findTermsOf(db: Db, taxonomy: Taxonomy, ids: readonly number[]): Promise<TermRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('terms')
    .select(['id', 'taxonomy', 'parent_id', 'color'])
    .where('taxonomy', '=', taxonomy)
    .where('id', 'in', [...ids])
    .execute();
}

/**
 * Rewrites the terms' rows as they are: the change log (whose triggers fan
 * a term's change out to the events that show it) then records that their
 * links changed, which carry the slugs of their ancestors.
 */
export async function touchTerms(db: Db, ids: readonly number[]): Promise<void> {
  if (ids.length > 0)
    await db
      .updateTable('terms')
      .set({ parent_id: sql.ref('parent_id') })
      .where('id', 'in', [...ids])
      .execute();
}

export async function updateParent(db: Db, id: number, parentId: number | null): Promise<void> {
  await db.updateTable('terms').set({ parent_id: parentId }).where('id', '=', id).execute();
}

/** The terms of `taxonomy` that have a colour, with it. */
export async function findColors(db: Db, taxonomy: Taxonomy): Promise<Array<{ id: number; color: string }>> {
  const rows = await db
    .selectFrom('terms')
    .select(['id', 'color'])
    .where('taxonomy', '=', taxonomy)
    .where('color', 'is not', null)
    .execute();
  return rows.map((row) => ({ id: row.id, color: row.color! }));
}

export async function updateColor(db: Db, id: number, color: string | null): Promise<void> {
  await db.updateTable('terms').set({ color }).where('id', '=', id).execute();
}

/**
 * Deletes a term; its children move up to its parent (as WordPress does).
 * Its event links go with it (cascade).
 */
export async function deleteTerm(db: Db, term: TermRow): Promise<void> {
  await db.updateTable('terms').set({ parent_id: term.parent_id }).where('parent_id', '=', term.id).execute();
  await db.deleteFrom('terms').where('id', '=', term.id).execute();
}

export async function findChildIds(db: Db, id: number): Promise<number[]> {
  const rows = await db.selectFrom('terms').select('id').where('parent_id', '=', id).execute();
  return rows.map((row) => row.id);
}

/** Published-event counts (PUBLISHED_COUNT) of the terms `ids`, or of every term up to `limit`, one query. */
async function countRows(db: Db, now: string, ids?: readonly number[], limit?: number): Promise<{ id: number; count: number | string }[]> {
  let query = db
    .selectFrom('terms')
    .leftJoin(dueCounts(db, now), 'due.term_id', 'terms.id')
    .select(['terms.id', PUBLISHED_COUNT.as('count')]);
  if (ids !== undefined) query = query.where('terms.id', 'in', ids);
  return (limit === undefined ? query : query.limit(BigInt(limit))).execute();
}

/** Published-event counts of many terms (PUBLISHED_COUNT), one query. */
export async function countPublishedEvents(db: Db, termIds: readonly number[], now: string): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  if (termIds.length === 0) return counts;
  for (const row of await countRows(db, now, [...new Set(termIds)])) counts.set(row.id, Number(row.count));
  return counts;
}

/** Published-event counts of every term; `undefined` when there are more than `max` terms. */
export async function countPublishedEventsOfAll(db: Db, now: string, max: number): Promise<Map<number, number> | undefined> {
  const rows = await countRows(db, now, undefined, max + 1);
  return rows.length > max ? undefined : new Map(rows.map((row) => [row.id, Number(row.count)]));
}

// ---------------------------------------------------------------- names

export interface NameKey {
  readonly taxonomy: Taxonomy;
  readonly parentId: number | null;
  readonly language: string;
  /** The lower-cased name. */
  readonly nameKey: string;
}

/** Another term with this name, parent and language, as stored in `translations`. */
export async function findNameOwner(db: Db, key: NameKey, exceptId: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('translations as t')
    .innerJoin('terms', 'terms.id', 't.resource_id')
    .select('t.resource_id')
    .where('t.resource_type', '=', key.taxonomy)
    .where('terms.taxonomy', '=', key.taxonomy)
    .where('t.field', '=', 'name')
    .where('t.language', '=', key.language)
    .where(sql`lower(t.value)`, '=', key.nameKey)
    .where('t.resource_id', '<>', exceptId)
    .where((eb) => (key.parentId === null ? eb('terms.parent_id', 'is', null) : eb('terms.parent_id', '=', key.parentId)))
    .orderBy('t.resource_id')
    .executeTakeFirst();
  return row?.resource_id;
}

/**
 * Reserves a name key for a term; returns the term that owns it (the caller's
 * own id when the claim succeeded). The primary key makes concurrent claims
 * safe where a check of `translations` alone could not be.
 */
export async function claimName(db: Db, key: NameKey, termId: number): Promise<number> {
  const values = { taxonomy: key.taxonomy, parent_key: key.parentId ?? 0, language: key.language, name_key: key.nameKey, term_id: termId };
  const inserted = await db
    .insertInto('term_names')
    .values(values)
    .onConflict((oc) => oc.columns(['taxonomy', 'parent_key', 'language', 'name_key']).doNothing())
    .returning('term_id')
    .executeTakeFirst();
  if (inserted !== undefined) return termId;
  const owner = await db
    .selectFrom('term_names')
    .select('term_id')
    .where('taxonomy', '=', values.taxonomy)
    .where('parent_key', '=', values.parent_key)
    .where('language', '=', values.language)
    .where('name_key', '=', values.name_key)
    .executeTakeFirst();
  // The owner vanished between the two statements: retry the claim.
  return owner?.term_id ?? claimName(db, key, termId);
}

export async function releaseNames(db: Db, termId: number, language?: string): Promise<void> {
  let query = db.deleteFrom('term_names').where('term_id', '=', termId);
  if (language !== undefined) query = query.where('language', '=', language);
  await query.execute();
}

/**
 * Moves the name keys of terms under a new parent. A key that would clash
 * with a sibling's is dropped (WordPress lets such duplicates exist too).
 */
export async function moveNames(db: Db, termIds: readonly number[], parentId: number | null): Promise<void> {
  if (termIds.length === 0) return;
  const rows = await db
    .selectFrom('term_names')
    .selectAll()
    .where('term_id', 'in', [...termIds])
    .execute();
  await db
    .deleteFrom('term_names')
    .where('term_id', 'in', [...termIds])
    .execute();
  if (rows.length === 0) return;
  await db
    .insertInto('term_names')
    .values(rows.map((row) => ({ ...row, parent_key: parentId ?? 0 })))
    .onConflict((oc) => oc.columns(['taxonomy', 'parent_key', 'language', 'name_key']).doNothing())
    .execute();
}

// ---------------------------------------------------------------- lookups

/** Terms of a taxonomy named by id, slug (any language) or lower-cased name (any language). */
export async function findTermIdsByReference(
  db: Db,
  taxonomy: Taxonomy,
  by: { ids?: readonly number[]; slugs?: readonly string[]; nameKeys?: readonly string[] },
): Promise<{ ids: Map<number, number>; slugs: Map<string, number>; names: Map<string, number> }> {
  const ids = new Map<number, number>();
  const slugs = new Map<string, number>();
  const names = new Map<string, number>();
  const wantedIds = (by.ids ?? []).filter((id) => id <= MAX_ID);
  if (wantedIds.length > 0) {
    const rows = await db.selectFrom('terms').select('id').where('taxonomy', '=', taxonomy).where('id', 'in', wantedIds).execute();
    for (const row of rows) ids.set(row.id, row.id);
  }
  if (by.slugs !== undefined && by.slugs.length > 0) {
    const rows = await db
      .selectFrom('slugs')
      .select(['slug', 'resource_id'])
      .where('resource_type', '=', taxonomy)
      .where('slug', 'in', [...by.slugs])
      .execute();
    for (const row of rows) slugs.set(row.slug, row.resource_id);
  }
  if (by.nameKeys !== undefined && by.nameKeys.length > 0) {
    // Lowest id first, so a name used under several parents resolves to the oldest term.
    const rows = await db
      .selectFrom('translations')
      .select(['resource_id', sql<string>`lower(value)`.as('name_key')])
      .where('resource_type', '=', taxonomy)
      .where('field', '=', 'name')
      .where(sql`lower(value)`, 'in', [...by.nameKeys])
      .orderBy('resource_id')
      .execute();
    for (const row of rows) if (!names.has(row.name_key)) names.set(row.name_key, row.resource_id);
  }
  return { ids, slugs, names };
}

/** The given terms and all their descendants (one recursive query). */
export async function withDescendants(db: Db, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .withRecursive('tree(id)', (qb) =>
      qb
        .selectFrom('terms')
        .select('terms.id')
        .where('terms.id', 'in', [...ids])
        .union(qb.selectFrom('terms').innerJoin('tree', 'tree.id', 'terms.parent_id').select('terms.id')),
    )
    .selectFrom('tree')
    .select('tree.id')
    .execute();
  return rows.map((row) => row.id);
}

/** The given terms and all their ancestors, with their parents (one recursive query). */
export async function withAncestors(db: Db, ids: readonly number[]): Promise<TermRow[]> {
  if (ids.length === 0) return [];
  return db
    .withRecursive('tree(id, taxonomy, parent_id)', (qb) =>
      qb
        .selectFrom('terms')
        .select(['terms.id', 'terms.taxonomy', 'terms.parent_id'])
        .where('terms.id', 'in', [...ids])
        .union(
          qb.selectFrom('terms').innerJoin('tree', 'tree.parent_id', 'terms.id').select(['terms.id', 'terms.taxonomy', 'terms.parent_id']),
        ),
    )
    .selectFrom('tree')
    .select(['tree.id', 'tree.taxonomy', 'tree.parent_id'])
    .execute();
}

// ---------------------------------------------------------------- events ↔ terms

export interface EventTermRow extends TermRow {
  readonly event_id: number;
}

export async function findTermsOfEvents(db: Db, eventIds: readonly number[]): Promise<EventTermRow[]> {
  if (eventIds.length === 0) return [];
  return db
    .selectFrom('event_terms as et')
    .innerJoin('terms as t', 't.id', 'et.term_id')
    .select(['et.event_id', 't.id', 't.taxonomy', 't.parent_id', 't.color'])
    .where('et.event_id', 'in', [...new Set(eventIds)])
    .execute();
}

/**
 * Replaces the event's terms of one taxonomy, writing only the links that change: a link's triggers
 * (revision, change log, published counts) fire for a real change alone, and a new event deletes nothing.
 * `linked`: the terms linked now, when the caller knows them (a new event's: none), else read first.
 */
export async function replaceEventTerms(
  db: Db,
  eventId: number,
  taxonomy: Taxonomy,
  termIds: readonly number[],
  linked?: readonly number[],
): Promise<void> {
  const wanted = new Set(termIds);
  const current = new Set(linked ?? (await linkedTermIds(db, eventId, taxonomy)));
  const gone = [...current].filter((termId) => !wanted.has(termId));
  const added = [...wanted].filter((termId) => !current.has(termId));
  if (gone.length > 0) await db.deleteFrom('event_terms').where('event_id', '=', eventId).where('term_id', 'in', gone).execute();
  if (added.length === 0) return;
  await db
    .insertInto('event_terms')
    .values(added.map((termId) => ({ event_id: eventId, term_id: termId })))
    // A concurrent write of the same event may have linked the same term meanwhile.
    .onConflict((oc) => oc.columns(['event_id', 'term_id']).doNothing())
    .execute();
}

/**
 * Links a new event to those of `termIds` that are terms of `taxonomy`, in one statement: what resolving them as a
 * write does (an id naming no such term is left out) and linking what it found.
 */
export async function linkNewEventToTerms(db: Db, eventId: number, taxonomy: Taxonomy, termIds: readonly number[]): Promise<void> {
  const wanted = [...new Set(termIds)].filter((id) => id <= MAX_ID);
  if (wanted.length === 0) return;
  await db
    .insertInto('event_terms')
    .columns(['event_id', 'term_id'])
    .expression(
      db
        .selectFrom('terms')
        .select([sql<number>`cast(${eventId} as integer)`.as('event_id'), 'id'])
        .where('taxonomy', '=', taxonomy)
        .where('id', 'in', wanted),
    )
    .execute();
}

async function linkedTermIds(db: Db, eventId: number, taxonomy: Taxonomy): Promise<number[]> {
  const rows = await db
    .selectFrom('event_terms as et')
    .innerJoin('terms as t', 't.id', 'et.term_id')
    .select('et.term_id')
    .where('et.event_id', '=', eventId)
    .where('t.taxonomy', '=', taxonomy)
    .execute();
  return rows.map((row) => row.term_id);
}

/** What the `post`/`event` filter needs to know of an event: whether it exists, who may read it, whether it is protected. */
export async function findEventAccessFacts(
  db: Db,
  id: number,
): Promise<{ author_id: number | null; status: string; date_utc: string; password_hash: string | null } | undefined> {
  if (id > MAX_ID) return undefined;
  return db.selectFrom('events').select(['author_id', 'status', 'date_utc', 'password_hash']).where('id', '=', id).executeTakeFirst();
}
