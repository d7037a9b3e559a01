import { permalinks } from '../common/wire.ts';
import type { TaxonomyInfo } from './terms.taxonomy.ts';
import { archiveLinks, type ArchiveLinks, type QueryPairs } from '../common/pagination.ts';
import type { EmbeddedTerm, Term, TermList } from './terms.schemas.ts';

/** A term with everything its representations need, in the requested language. */
export interface TermView {
  readonly id: number;
  readonly info: TaxonomyInfo;
  readonly parentId: number | null;
  readonly count: number;
  readonly name: string;
  readonly description: string;
  readonly slug: string;
  /** Slugs of the ancestors, root first (categories' public URL). */
  readonly ancestorSlugs: readonly string[];
  /** Categories' `#rrggbb`; null: none. */
  readonly color: string | null;
}

export interface TermUrlBase {
  /** `{base_url}/calendar/events/v1` */
  readonly namespaceUrl: string;
  readonly baseUrl: string;
}

/** `urls` of both shapes (item and collection URLs have no trailing slash, as the reference's). */
function urlsOf(view: TermView, namespaceUrl: string): Term['urls'] {
  const collection = `${namespaceUrl}/${view.info.collection}`;
  const urls: Term['urls'] = { self: `${collection}/${view.id}`, collection };
  if (view.parentId !== null) urls.up = `${collection}/${view.parentId}`;
  return urls;
}

/** The public archive link: the term's page (docs/calendar-pages.md). */
export function publicUrlOf(view: TermView, baseUrl: string): string {
  return view.info.hierarchical ? permalinks.category(baseUrl, view.ancestorSlugs, view.slug) : permalinks.tag(baseUrl, view.slug);
}

/** The item route of a term, also the `Location` of a created one (deviation 15). */
export function termItemUrl(info: TaxonomyInfo, id: number, namespaceUrl: string): string {
  return `${namespaceUrl}/${info.collection}/${id}`;
}

/** The term-endpoint shape; tags have no `parent` and no `color`. */
export function toTermResponse(view: TermView, base: TermUrlBase): Term {
  const parent = view.info.hierarchical ? { parent: view.parentId ?? 0 } : {};
  const color = view.info.hierarchical ? { color: view.color ?? '' } : {};
  return {
    id: view.id,
    count: view.count,
    description: view.description,
    name: view.name,
    slug: view.slug,
    taxonomy: view.info.wpTaxonomy,
    ...parent,
    meta: [],
    url: publicUrlOf(view, base.baseUrl),
    urls: urlsOf(view, base.namespaceUrl),
    ...color,
  };
}

/** The shape embedded in events: a WordPress term object plus `urls`. */
export function toEmbeddedTerm(view: TermView, namespaceUrl: string): EmbeddedTerm {
  return {
    name: view.name,
    slug: view.slug,
    term_group: 0,
    term_taxonomy_id: view.id,
    taxonomy: view.info.wpTaxonomy,
    description: view.description,
    parent: view.parentId ?? 0,
    count: view.count,
    filter: 'raw',
    id: view.id,
    urls: urlsOf(view, namespaceUrl),
  };
}

/**
 * The term archive envelope: `rest_url` is the bare base, as the reference's; the page links keep the
 * request's arguments (`pairs`), where the reference keeps only `page` and so links to other terms.
 */
export function toTermList(
  info: TaxonomyInfo,
  namespaceUrl: string,
  terms: readonly Term[],
  paging: { readonly page: number; readonly total: number; readonly totalPages: number; readonly pairs: QueryPairs },
): { list: TermList; links: ArchiveLinks } {
  const base = `${namespaceUrl}/${info.collection}/`;
  const links: ArchiveLinks = { ...archiveLinks(base, paging.pairs, paging.page, paging.totalPages), rest_url: base };
  return { list: { ...links, total: paging.total, total_pages: paging.totalPages, [info.collection]: [...terms] }, links };
}

/** The terms of a term archive (`categories` or `tags`). */
export function termsOf(list: object, key: 'categories' | 'tags'): Term[] {
  return ((list as Record<string, unknown>)[key] as Term[] | undefined) ?? [];
}
