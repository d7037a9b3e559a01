import type { Db } from '../../platform/db/schema.ts';
import type { Taxonomy } from '../calendar.tables.ts';
import { sanitizeSlug } from '../posts/posts.slugs.ts';
import { sanitizeText } from '../common/html.ts';
import { invalidParam, parseList, parsePositiveInt } from '../common/wire.ts';
import * as repository from './terms.repository.ts';
import type { TermRow } from './terms.repository.ts';
import type { TaxonomyInfo } from './terms.taxonomy.ts';
import { missingItem } from '../changes/changes.preconditions.ts';
import type { RequestContext } from '../common/context.ts';

/** How arguments name terms: by id, slug or name, in any language (deviations 13 and 18). */

/** The key a name is unique and looked up by: sanitized like stored names, lower-cased. */
export function nameKey(name: string): string {
  return sanitizeText(name).toLowerCase();
}

export type ReferenceMode =
  /** List filters (deviation 13): id, then slug, then name. */
  | 'id-slug-name'
  /** Event writes (as the reference): numbers by id only, other strings by slug or name. */
  | 'write';

/** An item that names a term by id in event writes (`0`, `12`, `12.0`): never a slug or a name there. */
export function isNumericItem(item: string): boolean {
  return /^\+?\d+(?:\.0*)?$/.test(item);
}

/**
 * Resolves items naming terms of one taxonomy, in three queries at most.
 * Slugs and names match in any language. Returns each item's term id, or
 * `undefined` when nothing matches.
 */
export async function resolveTermReferences(
  db: Db,
  taxonomy: Taxonomy,
  items: readonly string[],
  mode: ReferenceMode,
): Promise<Map<string, number | undefined>> {
  const numeric = new Map(items.map((item) => [item, parsePositiveInt(item)]));
  const byText = mode === 'write' ? items.filter((item) => !isNumericItem(item)) : items;
  const found = await repository.findTermIdsByReference(db, taxonomy, {
    ids: [...numeric.values()].filter((id): id is number => id !== undefined),
    slugs: [...new Set(byText.flatMap((item) => [item, sanitizeSlug(item)]).filter((slug) => slug !== ''))],
    nameKeys: [...new Set(byText.map(nameKey).filter((key) => key !== ''))],
  });
  const resolved = new Map<string, number | undefined>();
  for (const item of items) {
    const id = numeric.get(item);
    const byId = id === undefined ? undefined : found.ids.get(id);
    if (byId !== undefined || (mode === 'write' && isNumericItem(item))) {
      resolved.set(item, byId);
      continue;
    }
    resolved.set(item, found.slugs.get(item) ?? found.slugs.get(sanitizeSlug(item)) ?? found.names.get(nameKey(item)));
  }
  return resolved;
}

/** More items than any real client sends; beyond it a list is refused rather than sent to SQL. */
const MAX_TERM_ITEMS = 500;

/** The items of a term list argument (CSV or array), at most `MAX_TERM_ITEMS`. */
export function termItems(value: unknown, param: string): string[] {
  const items = parseList(value);
  if (items.length > MAX_TERM_ITEMS) throw invalidParam(param, `${param} may name at most ${MAX_TERM_ITEMS} terms.`);
  if (items.some((item) => item.includes('\u0000'))) throw invalidParam(param, `${param} must not contain NUL characters.`);
  return items;
}

/** Every item must name a term of the taxonomy; otherwise 400 naming `param`. */
export async function resolveExistingTerms(db: Db, info: TaxonomyInfo, value: unknown, param: string): Promise<number[]> {
  const items = termItems(value, param);
  if (items.length === 0) throw invalidParam(param, `${param} must name at least one ${info.singular}.`);
  const resolved = await resolveTermReferences(db, info.taxonomy, items, 'id-slug-name');
  const unknown = items.filter((item) => resolved.get(item) === undefined);
  if (unknown.length > 0) throw invalidParam(param, `Unknown ${info.singular}: ${unknown.join(', ')}.`);
  return [...new Set(items.map((item) => resolved.get(item)!))];
}

/**
 * The term `id` of the taxonomy, or 400 `rest_invalid_param` naming `param` (as the reference); a 412 to a write
 * of the term that sent If-Match (`writer`).
 */
export async function assertTermOf(
  db: Db,
  info: TaxonomyInfo,
  id: number,
  param: string,
  forWrite = false,
  writer?: RequestContext,
): Promise<TermRow> {
  const term = await repository.findTerm(db, id, forWrite);
  if (term === undefined || term.taxonomy !== info.taxonomy) {
    throw missingItem(writer, invalidParam(param, `${param} must be the id of an existing ${info.singular}.`));
  }
  return term;
}
