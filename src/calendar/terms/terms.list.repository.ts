import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { bucketed } from '../../platform/db/bounded-lists.ts';
import type { Db } from '../../platform/db/schema.ts';
import type { Taxonomy } from '../calendar.tables.ts';
import type { ModifiedBounds } from '../posts/posts.modified.ts';
import { translationContains } from '../posts/posts.repository.ts';
import { dueCounts, PUBLISHED_COUNT, type TermRow } from './terms.repository.ts';

/** The term archives' query: which terms a list's filters keep, how many, and in which order. */

export interface TermListFilter extends ModifiedBounds {
  readonly taxonomy: Taxonomy;
  readonly now: string;
  readonly hideEmpty: boolean;
  readonly search?: { readonly text: string; readonly languages: readonly string[] };
  readonly include?: readonly number[];
  readonly exclude?: readonly number[];
  readonly parentId?: number;
  readonly eventId?: number;
  readonly slug?: string;
}

export type TermOrderBy = 'id' | 'name' | 'slug' | 'count' | 'include' | 'description' | 'term_group';

export interface TermListOrder {
  readonly by: TermOrderBy;
  readonly direction: 'asc' | 'desc';
  /** Translated fields sort by their value in this language, falling back like reads do. */
  readonly language: string;
  readonly defaultLanguage: string;
}

/** `counted`: the query reads each term's count (PUBLISHED_COUNT), to filter or sort by; only then are due events counted. */
function filtered(db: Db, filter: TermListFilter, counted: boolean) {
  let query = db
    .selectFrom('terms')
    .$if(counted, (terms) => terms.leftJoin(dueCounts(db, filter.now), 'due.term_id', 'terms.id'))
    .where('terms.taxonomy', '=', filter.taxonomy);
  if (filter.include !== undefined) query = query.where('terms.id', 'in', [...filter.include]);
  if (filter.exclude !== undefined && filter.exclude.length > 0) query = query.where('terms.id', 'not in', [...filter.exclude]);
  if (filter.parentId !== undefined) query = query.where('terms.parent_id', '=', filter.parentId);
  if (filter.eventId !== undefined) {
    const eventId = filter.eventId;
    query = query.where('terms.id', 'in', (eb) => eb.selectFrom('event_terms').select('term_id').where('event_id', '=', eventId));
  }
  if (filter.slug !== undefined) {
    const slug = filter.slug;
    query = query.where('terms.id', 'in', (eb) =>
      eb.selectFrom('slugs').select('resource_id').where('resource_type', '=', filter.taxonomy).where('slug', '=', slug),
    );
  }
  if (filter.search !== undefined) {
    query = query.where(
      translationContains(filter.taxonomy, sql.ref<number>('terms.id'), ['name', 'slug'], filter.search.languages, filter.search.text),
    );
  }
  if (filter.hideEmpty) query = query.where(sql<SqlBool>`${PUBLISHED_COUNT} > 0`);
  const { modifiedAfter, modifiedBefore } = filter;
  if (modifiedAfter !== undefined || modifiedBefore !== undefined) {
    query = query.where('terms.id', 'in', (eb) => {
      let changed = eb.selectFrom('calendar_changes').select('item_id').where('type', '=', filter.taxonomy);
      if (modifiedAfter !== undefined) changed = changed.where('changed_at', '>', modifiedAfter);
      if (modifiedBefore !== undefined) changed = changed.where('changed_at', '<', modifiedBefore);
      return changed;
    });
  }
  return query;
}

export async function countTerms(db: Db, filter: TermListFilter): Promise<number> {
  if (filter.include !== undefined && filter.include.length === 0) return 0;
  const row = await filtered(db, filter, filter.hideEmpty)
    .select((eb) => eb.fn.countAll().as('total'))
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

/** A translated field in the order's language, else the default language, else any. */
function translatedValue(taxonomy: Taxonomy, field: string, order: TermListOrder): RawBuilder<string> {
  const pick = (condition: RawBuilder<unknown>) =>
    sql`(select min(t.value) from translations t where t.resource_type = ${taxonomy} and t.resource_id = terms.id and t.field = ${field} and ${condition})`;
  return sql<string>`lower(coalesce(${pick(sql`t.language = ${order.language}`)}, ${pick(sql`t.language = ${order.defaultLanguage}`)}, ${pick(sql`1 = 1`)}, ''))`;
}

function orderExpression(filter: TermListFilter, order: TermListOrder): Expression<unknown> | undefined {
  switch (order.by) {
    case 'id':
    case 'term_group':
      return undefined;
    case 'name':
    case 'slug':
    case 'description':
      return translatedValue(filter.taxonomy, order.by, order);
    case 'count':
      return PUBLISHED_COUNT;
    case 'include': {
      const include = filter.include ?? [];
      if (include.length === 0) return translatedValue(filter.taxonomy, 'name', order);
      // Parameters, not literals, in a bucketed number of arms (the last repeated): a bounded number of statement texts.
      const arms = bucketed(include.map((id, position) => [id, position] as const));
      return sql`case ${sql.join(
        arms.map(([id, position]) => sql`when terms.id = ${id} then cast(${position} as integer)`),
        sql` `,
      )} end`;
    }
  }
}

export async function listTerms(
  db: Db,
  filter: TermListFilter,
  order: TermListOrder,
  page: { readonly limit: number; readonly offset: number },
): Promise<TermRow[]> {
  if (filter.include !== undefined && filter.include.length === 0) return [];
  let query = filtered(db, filter, filter.hideEmpty || order.by === 'count').select([
    'terms.id',
    'terms.taxonomy',
    'terms.parent_id',
    'terms.color',
  ]);
  const expression = orderExpression(filter, order);
  if (expression !== undefined) query = query.orderBy(expression, order.direction);
  return query.orderBy('terms.id', order.direction).limit(page.limit).offset(page.offset).execute();
}
