import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { lockingRows } from '../../platform/db/row-locks.ts';
import type { Db } from '../../platform/db/schema.ts';
import { exposedIn, likePattern, translationContains, visibleIn } from '../posts/posts.repository.ts';
import type { Exposure, StatusScope } from '../posts/posts.access.ts';
import type { ModifiedBounds } from '../posts/posts.modified.ts';
import type { LinkedPostKind, LinkedPostRow } from './linked-posts.kind.ts';

// Generic queries alias the kind's table as `p` and are typed through the venues table, a superset of
// the post columns they use; kind-specific columns are referenced with `sql.ref`.

export interface ListFilter extends StatusScope, ModifiedBounds {
  /** Whose protected content search, `event` and `has_events` may match on. */
  readonly exposure: Exposure;
  /** Search fragments; a post matches when one field contains all of them. */
  readonly fragments: readonly string[];
  /** Languages whose text `search` reads: the requested one and its fallback. */
  readonly languages: readonly string[];
  readonly eventId: number | undefined;
  /** false: the event is protected and the caller may not edit it, so its links are stripped (absent). */
  readonly eventLinksShown: boolean;
  readonly hasEvents: boolean | undefined;
  /** Restrict to posts linked to an upcoming event that this scope may list. */
  readonly upcomingEvents: StatusScope | undefined;
  /** Restrict to these posts. */
  readonly ids?: readonly number[];
}

/** A post matches when one field contains every fragment; a protected post's stripped fields are absent. */
function searchCondition(kind: LinkedPostKind, filter: ListFilter): Expression<SqlBool> {
  const id = sql.ref<number>('p.id');
  const allOf = (fragmentIn: (fragment: string) => RawBuilder<SqlBool> | Expression<SqlBool>) =>
    sql`(${sql.join(filter.fragments.map(fragmentIn), sql` and `)})`;
  const name = allOf((fragment) => translationContains(kind.type, id, [kind.nameField], filter.languages, fragment));
  const stripped = [
    ...['description', 'excerpt'].map((field) =>
      allOf((fragment) => translationContains(kind.type, id, [field], filter.languages, fragment)),
    ),
    ...kind.searchColumns.map((column) =>
      allOf((fragment) => sql<SqlBool>`lower(${sql.ref(`p.${column}`)}) like ${likePattern(fragment)} escape '\\'`),
    ),
  ];
  return sql<SqlBool>`(${name} or (${exposedIn('p', filter.exposure)} and (${sql.join(stripped, sql` or `)})))`;
}

function filtered(db: Db, kind: LinkedPostKind, filter: ListFilter) {
  let query = db.selectFrom(`${kind.table} as p` as 'venues as p').where(visibleIn('p', filter));
  if (filter.fragments.length > 0) query = query.where(searchCondition(kind, filter));
  // A protected event's links are stripped with it: absent unless exposed.
  const linkShown = exposedIn('e', filter.exposure);
  if (filter.eventId !== undefined) {
    query = filter.eventLinksShown
      ? query.where('p.id', 'in', kind.linkedIds(sql<SqlBool>`e.id = ${filter.eventId}`))
      : query.where(sql<SqlBool>`1 = 0`);
  }
  if (filter.hasEvents !== undefined) {
    // Drafts and pending events do not count as "having events" (as the reference), nor events the caller may not read.
    const readable = visibleIn('e', { visibility: filter.visibility, statuses: undefined, now: filter.now });
    const counted = kind.linkedIds(sql<SqlBool>`e.status not in ('draft', 'pending', 'trash') and ${readable} and ${linkShown}`);
    query = query.where('p.id', filter.hasEvents ? 'in' : 'not in', counted);
  }
  if (filter.upcomingEvents !== undefined) {
    // Every upcoming event counts, not only a first page of them (deviation 18).
    const upcoming = sql<SqlBool>`e.start_utc >= ${filter.now} and e.hide_from_listings = 0 and ${visibleIn('e', filter.upcomingEvents)} and ${linkShown}`;
    query = query.where('p.id', 'in', kind.linkedIds(upcoming));
  }
  if (filter.ids !== undefined) query = query.where('p.id', 'in', filter.ids.length > 0 ? [...filter.ids] : [0]);
  if (filter.modifiedAfter !== undefined) query = query.where('p.modified_utc', '>', filter.modifiedAfter);
  if (filter.modifiedBefore !== undefined) query = query.where('p.modified_utc', '<', filter.modifiedBefore);
  return query;
}

/** One page of a list, newest first (post date descending, as the reference), and the honest total. */
export async function listPosts(
  db: Db,
  kind: LinkedPostKind,
  filter: ListFilter,
  limit: number,
  offset: number,
): Promise<{ rows: LinkedPostRow[]; total: number }> {
  const rows = await filtered(db, kind, filter)
    .selectAll('p')
    .orderBy('p.date', 'desc')
    .orderBy('p.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  const counted = await filtered(db, kind, filter)
    .select((eb) => eb.fn.countAll<number | string>().as('total'))
    .executeTakeFirstOrThrow();
  return { rows: rows as unknown as LinkedPostRow[], total: Number(counted.total) };
}

export async function findPosts(db: Db, kind: LinkedPostKind, ids: readonly number[]): Promise<LinkedPostRow[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom(kind.table)
    .selectAll()
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return rows as unknown as LinkedPostRow[];
}

/** One post; `forWrite` holds it until the write's transaction ends (see lockingRows). */
export async function findPost(db: Db, kind: LinkedPostKind, id: number, forWrite = false): Promise<LinkedPostRow | undefined> {
  const query = db.selectFrom(kind.table).selectAll().where('id', '=', id);
  const row = await (forWrite ? lockingRows(db, query) : query).executeTakeFirst();
  return row as LinkedPostRow | undefined;
}

/** A new id from the sequence shared by events, venues, organizers and images. */
export async function reservePostId(db: Db, type: LinkedPostKind['type']): Promise<number> {
  const row = await db.insertInto('post_ids').values({ type }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function insertPost(db: Db, kind: LinkedPostKind, row: LinkedPostRow): Promise<void> {
  await db
    .insertInto(kind.table)
    .values(row as never)
    .execute();
}

export async function updatePost(db: Db, kind: LinkedPostKind, id: number, changes: Partial<LinkedPostRow>): Promise<void> {
  await db
    .updateTable(kind.table)
    .set(changes as never)
    .where('id', '=', id)
    .execute();
}

/** Removes the post for good; its translations and slugs go with it. */
export async function deletePost(db: Db, kind: LinkedPostKind, id: number): Promise<void> {
  await db.deleteFrom('translations').where('resource_type', '=', kind.type).where('resource_id', '=', id).execute();
  await db.deleteFrom('slugs').where('resource_type', '=', kind.type).where('resource_id', '=', id).execute();
  await db.deleteFrom(kind.table).where('id', '=', id).execute();
  await db.deleteFrom('post_ids').where('id', '=', id).execute();
}

/**
 * The oldest non-trashed post whose name (in any language) and match column
 * equal the given ones, case-insensitively (deviation 10).
 */
export async function findMatchingPost(db: Db, kind: LinkedPostKind, name: string, matchValue: string): Promise<number | undefined> {
  const row = await db
    .selectFrom(`${kind.table} as p` as 'venues as p')
    .select('p.id')
    .where('p.status', '<>', 'trash')
    .where(sql<SqlBool>`lower(${sql.ref(`p.${kind.matchColumn}`)}) = lower(${matchValue})`)
    .where(
      sql<SqlBool>`exists (select 1 from translations t where t.resource_type = ${kind.type} and t.resource_id = p.id and t.field = ${kind.nameField} and lower(t.value) = lower(${name}))`,
    )
    .orderBy('p.id')
    .executeTakeFirst();
  return row?.id;
}

/** What the `event` filter needs to know of an event: who may read it, whether it is protected. */
export async function findEventAccessFacts(db: Db, id: number) {
  return db.selectFrom('events').select(['author_id', 'status', 'date_utc', 'password_hash']).where('id', '=', id).executeTakeFirst();
}

export async function userExists(db: Db, id: number): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}
