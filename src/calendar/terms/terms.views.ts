import type { Db } from '../../platform/db/schema.ts';
import type { Taxonomy } from '../calendar.tables.ts';
import { loadTextsOfTypes, type TextsByType, type Translated } from '../posts/posts.texts.ts';
import type { RequestContext } from '../common/context.ts';
import type { TermView } from './terms.mapper.ts';
import * as repository from './terms.repository.ts';
import type { TermRow } from './terms.repository.ts';
import { taxonomyInfo } from './terms.taxonomy.ts';

/**
 * Term rows → views in the requested language: one query for the ancestors
 * (categories' public URLs, when asked) and one translation query, whatever
 * the number of terms.
 */
export async function loadTermViews(
  db: Db,
  rows: readonly TermRow[],
  counts: ReadonlyMap<number, number>,
  ctx: RequestContext,
  options: { readonly withAncestors: boolean },
): Promise<Map<number, TermView>> {
  const ancestors = options.withAncestors
    ? await repository.withAncestors(
        db,
        rows.filter((row) => row.parent_id !== null).map((row) => row.id),
      )
    : [];
  const idsByTaxonomy = new Map<Taxonomy, number[]>();
  for (const row of [...rows, ...ancestors]) idsByTaxonomy.set(row.taxonomy, [...(idsByTaxonomy.get(row.taxonomy) ?? []), row.id]);
  const texts = await loadTextsOfTypes(db, idsByTaxonomy, ctx.language, ctx.defaultLanguage);
  return termViewsOf(rows, counts, texts, options.withAncestors ? ancestors : undefined);
}

/**
 * Term views from loaded texts; with `ancestors` (each term's parent chain,
 * texts loaded too) they carry their ancestors' slugs.
 */
export function termViewsOf(
  rows: readonly TermRow[],
  counts: ReadonlyMap<number, number>,
  texts: TextsByType,
  ancestors?: readonly TermRow[],
): Map<number, TermView> {
  const all = new Map<number, TermRow>([...rows, ...(ancestors ?? [])].map((row) => [row.id, row]));
  const textOf = (id: number): Translated => {
    const row = all.get(id);
    return (row === undefined ? undefined : texts.get(row.taxonomy)?.get(id)) ?? {};
  };

  const ancestorSlugs = (row: TermRow): string[] => {
    const slugs: string[] = [];
    const seen = new Set<number>([row.id]);
    for (
      let parent = all.get(row.id)?.parent_id ?? null;
      parent !== null && !seen.has(parent);
      parent = all.get(parent)?.parent_id ?? null
    ) {
      seen.add(parent);
      slugs.unshift(textOf(parent).slug ?? String(parent));
    }
    return slugs;
  };

  const views = new Map<number, TermView>();
  for (const row of rows) {
    const fields = textOf(row.id);
    views.set(row.id, {
      id: row.id,
      info: taxonomyInfo(row.taxonomy),
      parentId: row.parent_id,
      count: counts.get(row.id) ?? 0,
      name: fields.name ?? '',
      description: fields.description ?? '',
      slug: fields.slug ?? String(row.id),
      ancestorSlugs: ancestors === undefined ? [] : ancestorSlugs(row),
      color: row.color ?? null,
    });
  }
  return views;
}
