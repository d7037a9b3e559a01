import { cacheKey } from '../../platform/cache/read-cache.ts';
import { can } from '../calendar.capabilities.ts';
import { PlatformErrors } from '../../platform/errors.ts';
import type { Db } from '../../platform/db/schema.ts';
import type { Taxonomy } from '../calendar.tables.ts';
import type { RequestContext } from '../common/context.ts';
import type { TextsByType } from '../posts/posts.texts.ts';
import { toEmbeddedTerm } from './terms.mapper.ts';
import * as repository from './terms.repository.ts';
import type { EventTermRow } from './terms.repository.ts';
import type { EmbeddedTerm } from './terms.schemas.ts';
import { isNumericItem, nameKey, resolveExistingTerms, resolveTermReferences, termItems } from './terms.references.ts';
import { termViewsOf } from './terms.views.ts';
import { cleanName, insertTermRecord } from './terms.writes.ts';
import { parsePositiveInt } from '../common/wire.ts';
import { taxonomyInfo } from './terms.taxonomy.ts';

/**
 * What the events module uses of categories and tags: embedded terms,
 * terms named in event writes, and the event list filters.
 */

export interface EventTerms {
  categories: EmbeddedTerm[];
  tags: EmbeddedTerm[];
}

function byName(a: EmbeddedTerm, b: EmbeddedTerm): number {
  const left = a.name.toLowerCase();
  const right = b.name.toLowerCase();
  return left < right ? -1 : left > right ? 1 : a.id - b.id;
}

/** The terms of many events (first step of embedding them). */
export async function findEventTermLinks(db: Db, eventIds: readonly number[]): Promise<EventTermRow[]> {
  return repository.findTermsOfEvents(db, eventIds);
}

/** The colour of each of `eventIds` whose categories have one: its first category's (by id) that has one. */
export async function findCategoryColors(db: Db, eventIds: readonly number[]): Promise<Map<number, string>> {
  const colors = new Map<number, string>();
  const links = (await repository.findTermsOfEvents(db, eventIds)).filter((link) => link.taxonomy === 'category' && link.color);
  for (const link of links.sort((a, b) => a.id - b.id)) if (!colors.has(link.event_id)) colors.set(link.event_id, link.color!);
  return colors;
}

/**
 * The embedded `categories` and `tags` of many events, from
 * their links, texts and counts (terms.counts.ts), sorted by name; every
 * asked id gets an entry.
 */
export function presentEventTerms(
  eventIds: readonly number[],
  links: readonly EventTermRow[],
  ctx: RequestContext,
  texts: TextsByType,
  counts: ReadonlyMap<number, number>,
): Map<number, EventTerms> {
  const result = new Map<number, EventTerms>(eventIds.map((id) => [id, { categories: [], tags: [] }]));
  const views = termViewsOf([...new Map(links.map((link) => [link.id, link])).values()], counts, texts);
  const namespaceUrl = ctx.site.namespaceUrl;
  for (const link of links) {
    const entry = result.get(link.event_id);
    const view = views.get(link.id);
    if (entry === undefined || view === undefined) continue;
    (link.taxonomy === 'category' ? entry.categories : entry.tags).push(toEmbeddedTerm(view, namespaceUrl));
  }
  for (const entry of result.values()) {
    entry.categories.sort(byName);
    entry.tags.sort(byName);
  }
  return result;
}

/**
 * `categories` / `tags` of an event write (as the reference, with deviation 8):
 * a CSV string or an array; numbers name ids (unknown ones are skipped),
 * other strings a slug or a name in any language. An unknown string creates
 * a term named by it — only for users who may create terms of the taxonomy,
 * otherwise 403 `rest_forbidden`. `''` and `[]` give `[]` (clear the terms).
 */
export async function resolveTermsForWrite(trx: Db, taxonomy: Taxonomy, items: unknown, ctx: RequestContext): Promise<number[]> {
  const info = taxonomyInfo(taxonomy);
  const list = termItems(items, info.collection);
  if (list.length === 0) return [];
  const resolved = await resolveTermReferences(trx, taxonomy, list, 'write');
  const missing = list.filter((item) => resolved.get(item) === undefined && !isNumericItem(item));
  if (missing.length > 0 && !can(ctx.user?.role ?? null, info.manageCapability)) throw PlatformErrors.forbidden(ctx.user !== null);
  const created = new Map<string, number>();
  for (const item of missing) {
    const key = nameKey(item);
    if (created.has(key)) continue;
    const name = cleanName(item, info.collection);
    const inserted = await insertTermRecord(trx, info, { name, parentId: null }, ctx.language);
    created.set(key, 'id' in inserted ? inserted.id : inserted.existing);
  }
  const ids = list.map((item) => resolved.get(item) ?? created.get(nameKey(item)));
  return [...new Set(ids.filter((id): id is number => id !== undefined))];
}

/**
 * What sets the event's terms of `taxonomy` to those `items` name, as resolveTermsForWrite resolves them: resolves
 * them, then hands back the write. `linked`: the terms linked now, when known without reading them; the write then
 * asks for its statements before it first waits. A new event (none linked) named by ids alone needs no resolving:
 * its links are one statement.
 */
export async function eventTermsWrite(
  trx: Db,
  eventId: number,
  taxonomy: Taxonomy,
  items: unknown,
  ctx: RequestContext,
  linked?: readonly number[],
): Promise<() => Promise<void>> {
  if (linked?.length === 0) {
    const list = termItems(items, taxonomyInfo(taxonomy).collection);
    if (list.every(isNumericItem)) {
      const ids = list.map(parsePositiveInt).filter((id): id is number => id !== undefined);
      return () => repository.linkNewEventToTerms(trx, eventId, taxonomy, ids);
    }
  }
  const termIds = await resolveTermsForWrite(trx, taxonomy, items, ctx);
  return () => repository.replaceEventTerms(trx, eventId, taxonomy, termIds, linked);
}

/**
 * The `categories` / `tags` filter of the event list (deviation 13): each item
 * by id, then slug, then name, in any language; categories include their
 * descendants. An item naming no term is a 400 `rest_invalid_param` on `param`.
 */
export async function resolveTermFilter(
  db: Db,
  taxonomy: Taxonomy,
  items: unknown,
  ctx: RequestContext,
  param: 'categories' | 'tags',
): Promise<number[]> {
  // The same terms name the same ids (children included) while the calendar version holds: a term's write ends it.
  // A refused filter (an unknown term) is not cached: it costs no more than asking again.
  const info = taxonomyInfo(taxonomy);
  return (await ctx.version()).once(
    cacheKey('term-filter', taxonomy, param, JSON.stringify(items)),
    async () => {
      const found = await resolveExistingTerms(db, info, items, param);
      return info.hierarchical ? repository.withDescendants(db, found) : found;
    },
    (ids) => 8 * ids.length,
  );
}
