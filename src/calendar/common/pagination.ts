import Type, { type TSchema } from 'typebox';
import { InKeyOrder } from '../../platform/openapi/contract.ts';
import { parameterNames } from '../../platform/http/querystring.ts';

/**
 * Archive envelopes of events, venues, organizers and terms (the reference's, key order included,
 * with deviation 9): totals, `rest_url` and followable `next_rest_url` /
 * `previous_rest_url` that keep the request's arguments, and the `X-TEC-Total*` headers.
 */

/** Query arguments in the order a resource echoes them, values as the client sent them. */
export type QueryPairs = ReadonlyArray<readonly [string, string]>;

export function totalPages(total: number, perPage: number): number {
  return total === 0 ? 0 : Math.ceil(total / perPage);
}

/** `limit`/`offset` of a 1-based page. */
export function pageWindow(page: number, perPage: number): { limit: number; offset: number } {
  return { limit: perPage, offset: (page - 1) * perPage };
}

/** A page past the last one (page 1 is never "beyond": an empty first page is a 200 with zeros). */
export function isBeyondLastPage(page: number, total: number, perPage: number): boolean {
  return page > 1 && page > totalPages(total, perPage);
}

/** `base` + the pairs encoded as `URLSearchParams` does; no `?` when there are none. */
export function urlWithQuery(base: string, pairs: QueryPairs): string {
  const query = new URLSearchParams(pairs.map(([key, value]) => [key, value])).toString();
  return query === '' ? base : `${base}?${query}`;
}

export interface ArchiveLinks {
  rest_url: string;
  next_rest_url?: string;
  previous_rest_url?: string;
}

/**
 * The links of one archive page. `pairs` are the other arguments, without
 * `page`: `rest_url` starts with `page`; next/previous put it last; the
 * previous link of page 2 has no `page` (the archive root), as the reference.
 */
export function archiveLinks(base: string, pairs: QueryPairs, page: number, pages: number): ArchiveLinks {
  const links: ArchiveLinks = { rest_url: urlWithQuery(base, [['page', String(page)], ...pairs]) };
  if (page < pages) links.next_rest_url = urlWithQuery(base, [...pairs, ['page', String(page + 1)]]);
  if (page > 1) links.previous_rest_url = urlWithQuery(base, page === 2 ? pairs : [...pairs, ['page', String(page - 1)]]);
  return links;
}

/** An echoed argument value: lists as sent are joined with commas. */
export function echoValue(value: unknown): string {
  return Array.isArray(value) ? value.map(String).join(',') : String(value);
}

/** The pairs of one argument: a list of values joined with commas, an object (`a[b]=…`, `a[0][b]=…`) in brackets. */
function argumentPairs(key: string, value: unknown): [string, string][] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'object' || (Array.isArray(value) && value.every((item) => item === null || typeof item !== 'object'))) {
    return [[key, echoValue(value)]];
  }
  return Object.entries(value).flatMap(([name, item]) => argumentPairs(`${key}[${name}]`, item));
}

/** Pairs for the arguments present in `query`, in `order`. */
export function echoPairs(query: Readonly<Record<string, unknown>>, order: readonly string[]): [string, string][] {
  return order.flatMap((key) => argumentPairs(key, query[key]));
}

/** The names of the arguments a request's query string sends, in order: what its archive links repeat (`linkPairs`). */
export function sentArguments(url: string): string[] {
  const at = url.indexOf('?');
  return at === -1 ? [] : parameterNames(url.slice(at + 1));
}

/** Never repeated in a link: the link's own `page`, and a `password` (a secret does not travel in URLs it did not come in). */
const UNREPEATED = ['page', 'password'];

/**
 * What an archive page's links repeat (issue 37): first the resource's own echo (`echoed`, in its order and with its
 * values: the reference's, deviation 9), then every other argument the request sent (`sent`) but `UNREPEATED`, with
 * its value as validated (`query`: what a cached answer is keyed by), so that a link lists the same items.
 */
export function linkPairs(echoed: QueryPairs, query: Readonly<Record<string, unknown>>, sent: readonly string[]): QueryPairs {
  const named = new Set([...UNREPEATED, ...echoed.map(([key]) => key)]);
  return [
    ...echoed,
    ...echoPairs(
      query,
      sent.filter((key) => !named.has(key)),
    ),
  ];
}

/**
 * An archive page's headers: the reference's `X-TEC-Total*`, and WordPress's
 * `X-WP-Total*` and `Link` rel `next`/`prev` (what `wpapi`'s `_paging` reads).
 */
export function archiveHeaders(total: number, pages: number, links: Readonly<Partial<ArchiveLinks>>): Record<string, string> {
  const headers: Record<string, string> = {
    'X-TEC-Total': String(total),
    'X-TEC-TotalPages': String(pages),
    'X-WP-Total': String(total),
    'X-WP-TotalPages': String(pages),
  };
  const pageLinks = [
    ...(links.previous_rest_url === undefined ? [] : [`<${links.previous_rest_url}>; rel="prev"`]),
    ...(links.next_rest_url === undefined ? [] : [`<${links.next_rest_url}>; rel="next"`]),
  ];
  if (pageLinks.length > 0) headers.Link = pageLinks.join(', ');
  return headers;
}

/**
 * The archive envelope schema: `{<collection>: [...], rest_url, next_rest_url?,
 * previous_rest_url?, total, total_pages}`, serialized in that order.
 */
export function archiveEnvelopeSchema<K extends string, T extends TSchema>(collection: K, item: T, description?: string) {
  return InKeyOrder(
    Type.Object(
      {
        [collection]: Type.Array(item),
        rest_url: Type.String(),
        next_rest_url: Type.Optional(Type.String()),
        previous_rest_url: Type.Optional(Type.String()),
        total: Type.Integer(),
        total_pages: Type.Integer(),
      } as { [P in K]: ReturnType<typeof Type.Array<T>> } & {
        rest_url: ReturnType<typeof Type.String>;
        next_rest_url: ReturnType<typeof Type.Optional<ReturnType<typeof Type.String>>>;
        previous_rest_url: ReturnType<typeof Type.Optional<ReturnType<typeof Type.String>>>;
        total: ReturnType<typeof Type.Integer>;
        total_pages: ReturnType<typeof Type.Integer>;
      },
      description === undefined ? {} : { description },
    ),
  );
}
