import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { isPostgres } from '../../platform/db/dialect-of.ts';
import type { Db } from '../../platform/db/schema.ts';
import type { PostType, TranslatableType } from '../calendar.tables.ts';
import type { Exposure, StatusScope } from './posts.access.ts';

/**
 * Storage shared by every post (events, venues, organizers): ids, users,
 * what a read may see, and the per-language texts and slugs that terms
 * share with posts.
 */

const IDS_PER_INSERT = 500;

// ---------------------------------------------------------------------------
// Ids and authors.

/** A new id from the sequence shared by events, venues, organizers and images. */
export async function reservePostId(db: Db, type: PostType): Promise<number> {
  const row = await db.insertInto('post_ids').values({ type }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/**
 * On PostgreSQL, the id the post inserted last in this session took (its sequence's `currval`): for a statement sent
 * in the same transaction behind that insert, before its answer (a write's connection is its transaction's alone,
 * through a transaction pooler too).
 */
export const NEWEST_POST_ID = sql<number>`currval(pg_get_serial_sequence('post_ids', 'id'))`;

/** `count` new ids, a few hundred per statement. */
export async function reservePostIds(db: Db, type: PostType, count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let offset = 0; offset < count; offset += IDS_PER_INSERT) {
    const size = Math.min(IDS_PER_INSERT, count - offset);
    const rows = await db
      .insertInto('post_ids')
      .values(Array.from({ length: size }, () => ({ type })))
      .returning('id')
      .execute();
    for (const row of rows) ids.push(row.id);
  }
  return ids;
}

/** What kind of post an id belongs to. */
export async function findPostType(db: Db, id: number): Promise<PostType | undefined> {
  const row = await db.selectFrom('post_ids').select('type').where('id', '=', id).executeTakeFirst();
  return row?.type;
}

export async function userExists(db: Db, id: number): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}

// ---------------------------------------------------------------------------
// What a read may see, as SQL over a post table under an alias (events, venues and organizers share these columns).

function published(alias: string, now: string): RawBuilder<SqlBool> {
  const status = sql.ref(`${alias}.status`);
  return sql<SqlBool>`(${status} = 'publish' or (${status} = 'future' and ${sql.ref(`${alias}.date_utc`)} <= ${now}))`;
}

function statusIn(alias: string, statuses: readonly string[], now: string): RawBuilder<SqlBool> {
  const status = sql.ref(`${alias}.status`);
  const parts = statuses.map((wanted) => {
    if (wanted === 'publish') return published(alias, now);
    if (wanted === 'future') return sql<SqlBool>`(${status} = 'future' and ${sql.ref(`${alias}.date_utc`)} > ${now})`;
    return sql<SqlBool>`${status} = ${wanted}`;
  });
  return sql<SqlBool>`(${sql.join(parts, sql` or `)})`;
}

/** The posts (events, venues or organizers under `alias`) a scope may list (deviation 9). */
export function visibleIn(alias: string, scope: StatusScope): RawBuilder<SqlBool> {
  const notTrash = sql<SqlBool>`${sql.ref(`${alias}.status`)} <> 'trash'`;
  const wanted = scope.statuses === undefined ? notTrash : statusIn(alias, scope.statuses, scope.now);
  switch (scope.visibility.kind) {
    case 'published':
      return sql<SqlBool>`(${published(alias, scope.now)} and ${wanted})`;
    case 'published-or-own':
      return sql<SqlBool>`((${published(alias, scope.now)} or ${sql.ref(`${alias}.author_id`)} = ${scope.visibility.userId}) and ${wanted})`;
    case 'all-but-trash':
      return wanted;
  }
}

/** The posts under `alias` whose protected content `exposure` may match on (see `Exposure`). */
export function exposedIn(alias: string, exposure: Exposure): RawBuilder<SqlBool> {
  return exposure === 'all' ? sql<SqlBool>`(1 = 1)` : sql<SqlBool>`${sql.ref(`${alias}.password_hash`)} is null`;
}

// ---------------------------------------------------------------------------
// Per-language texts.

export interface TextRow {
  readonly resource_type: TranslatableType;
  readonly resource_id: number;
  readonly language: string;
  readonly field: string;
  readonly value: string;
}

/** Every stored text (or only `fields`), in every language, of resources of several types: one statement. */
export async function findTexts(
  db: Db,
  wanted: readonly (readonly [TranslatableType, readonly number[]])[],
  fields?: readonly string[],
): Promise<TextRow[]> {
  return db
    .selectFrom('translations')
    .select(['resource_type', 'resource_id', 'language', 'field', 'value'])
    .where((eb) => eb.or(wanted.map(([type, ids]) => eb.and([eb('resource_type', '=', type), eb('resource_id', 'in', [...new Set(ids)])]))))
    .$if(fields !== undefined, (query) => query.where('field', 'in', [...(fields ?? [])]))
    .execute();
}

/** The languages in which a resource has a stored value of `field`, e.g. to find every slug. */
export async function findFieldInAllLanguages(db: Db, type: TranslatableType, id: number, field: string): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('translations')
    .select(['language', 'value'])
    .where('resource_type', '=', type)
    .where('resource_id', '=', id)
    .where('field', '=', field)
    .execute();
  return new Map(rows.map((row) => [row.language, row.value]));
}

/** Writes the given fields in one language; `undefined` fields are left untouched. */
export async function upsertTexts(
  db: Db,
  type: TranslatableType,
  id: number,
  language: string,
  fields: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  const rows = Object.entries(fields)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([field, value]) => ({ resource_type: type, resource_id: id, language, field, value }));
  if (rows.length === 0) return;
  await db
    .insertInto('translations')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['resource_type', 'resource_id', 'language', 'field']).doUpdateSet((eb) => ({ value: eb.ref('excluded.value') })),
    )
    .execute();
}

export async function deleteTexts(db: Db, type: TranslatableType, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .deleteFrom('translations')
    .where('resource_type', '=', type)
    .where('resource_id', 'in', [...ids])
    .execute();
}

/** Escapes LIKE wildcards so user text matches literally (with `ESCAPE '\'`). */
export function likePattern(fragment: string): string {
  return `%${fragment.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * A condition "resource `idColumn` has `fragment` in one of `fields`, in the
 * requested or the default language" — case-insensitive for all of Unicode
 * on both dialects (SQLite's lower() is overridden in its dialect file).
 */
export function translationContains(
  type: TranslatableType,
  idColumn: Expression<number>,
  fields: readonly string[],
  languages: readonly string[],
  fragment: string,
): Expression<SqlBool> {
  return sql<SqlBool>`exists (select 1 from translations t where t.resource_type = ${type} and t.resource_id = ${idColumn} and t.field in (${sql.join(
    fields,
  )}) and t.language in (${sql.join(languages)}) and lower(t.value) like ${likePattern(fragment)} escape '\\')`;
}

// ---------------------------------------------------------------------------
// Slugs: one table, unique per type, so two concurrent claims cannot both win.

/** Inserts the slug unless another resource of the type has it; true when this call took it. */
export async function insertSlugIfFree(db: Db, type: TranslatableType, id: number, slug: string): Promise<boolean> {
  const inserted = await db
    .insertInto('slugs')
    .values({ resource_type: type, slug, resource_id: id })
    .onConflict((oc) => oc.columns(['resource_type', 'slug']).doNothing())
    .returning('resource_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * Inserts the first of `stem`, `stem-2`, `stem-3`… that no other resource of the type holds, in one statement, and
 * returns it. Of the slugs of the stem there are `k`, so one of the first `k + 1` candidates is free. `undefined`
 * when that one is `id`'s already or a concurrent claim took it: the caller looks again.
 */
export async function insertFirstFreeSlug(
  db: Db,
  type: TranslatableType,
  id: number | RawBuilder<number>,
  stem: string,
): Promise<string | undefined> {
  const slug = isPostgres(db) ? sql<string>`slug collate "C"` : sql<string>`slug`;
  const { rows } = await sql<{ slug: string }>`
    with recursive taken(k) as (
      select count(*) from slugs where resource_type = ${type} and (slug = ${stem} or (${slug} >= ${`${stem}-0`} and ${slug} < ${`${stem}-:`}))
    ), candidates(n, candidate) as (
      select 1, cast(${stem} as text)
      union all
      select n + 1, cast(${stem} as text) || '-' || cast(n + 1 as text) from candidates, taken where n <= k
    )
    insert into slugs (resource_type, slug, resource_id)
    select cast(${type} as text), candidate, cast(${id} as integer) from candidates
    where not exists (select 1 from slugs where resource_type = ${type} and slug = candidate and resource_id <> ${id})
    order by n limit 1
    on conflict (resource_type, slug) do nothing
    returning slug`.execute(db);
  return rows[0]?.slug;
}

/**
 * The slugs of a type that are `stem` or begin with `stem-` and a digit, with their owners: what a claim chooses a
 * suffix among, in one read (not the slugs of other titles that merely begin alike). They sort from `stem-0` to
 * before `stem-:` in byte order, which PostgreSQL is asked for (`collate "C"`, indexed as `slugs_byte_order`): a
 * linguistic collation would sort `a-1` apart from `a-0`.
 */
export async function findSlugsOfStem(db: Db, type: TranslatableType, stem: string): Promise<Map<string, number>> {
  const slug = isPostgres(db) ? sql<string>`slug collate "C"` : sql<string>`slug`;
  const rows = await db
    .selectFrom('slugs')
    .select(['slug', 'resource_id'])
    .where('resource_type', '=', type)
    .where((eb) => eb.or([eb('slug', '=', stem), eb.and([eb(slug, '>=', `${stem}-0`), eb(slug, '<', `${stem}-:`)])]))
    .execute();
  return new Map(rows.map((row) => [row.slug, row.resource_id]));
}

/** The resource owning a slug in any language. */
export async function findIdBySlug(db: Db, type: TranslatableType, slug: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('slugs')
    .select('resource_id')
    .where('resource_type', '=', type)
    .where('slug', '=', slug)
    .executeTakeFirst();
  return row?.resource_id;
}

/** Frees the slugs of a resource except those still in use (`keep`). */
export async function deleteSlugs(db: Db, type: TranslatableType, id: number, keep: readonly string[] = []): Promise<void> {
  let query = db.deleteFrom('slugs').where('resource_type', '=', type).where('resource_id', '=', id);
  if (keep.length > 0) query = query.where('slug', 'not in', [...keep]);
  await query.execute();
}
