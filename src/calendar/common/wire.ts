import Type, { type TSchema } from 'typebox';
import { AppError } from '../../platform/errors.ts';

/**
 * Wire primitives of the WordPress-compatible calendar API: booleans, lists,
 * ids, `global_id`, permalinks and the `rest_invalid_param` error.
 */

/** 400 `rest_invalid_param` naming one parameter, as WordPress's validation does. */
export function invalidParam(name: string, reason = 'Invalid parameter.'): AppError {
  return new AppError(400, 'rest_invalid_param', `Invalid parameter(s): ${name}`, { params: { [name]: reason }, details: {} });
}

const BOOLEAN_TEXT = '^(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|1|0)$';

/**
 * A boolean argument (deviation 12): JSON `true`/`false`, `1`/`0` and the
 * strings `"true"`/`"false"`/`"1"`/`"0"` (any case); anything else is a 400.
 * Read it with `parseWpBoolean`.
 */
export function WpBooleanSchema(description: string, options: { default?: boolean | string } = {}) {
  return Type.Union([Type.Boolean(), Type.String({ pattern: BOOLEAN_TEXT })], { description, ...options });
}

/** The value of a `WpBooleanSchema` argument; `undefined` when absent or invalid. */
export function parseWpBoolean(value: unknown): boolean | undefined {
  if (value === true || value === 1) return true;
  if (value === false || value === 0) return false;
  if (typeof value !== 'string') return undefined;
  const text = value.toLowerCase();
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  return undefined;
}

/** Text without NUL characters, which PostgreSQL can neither store nor compare. */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';

/** A string argument that may be stored: any text but NUL characters. */
export function TextSchema(description: string, options: { minLength?: number; maxLength?: number } = {}) {
  return Type.String({ ...options, pattern: NO_NUL_PATTERN, description });
}

/** Longest `search` argument: what a person types, with room to spare (issue 19: a bounded cost per request). */
export const MAX_SEARCH_LENGTH = 200;

/**
 * WordPress searches the whole string when it splits into more than 9 words
 * (`WP_Query::parse_search`): a search is at most 9 conditions, so its cost
 * and the number of statement shapes it makes are bounded.
 */
const MAX_SEARCH_WORDS = 9;

/** The words a search matches: `words`, or `whole` when there are too many of them. */
export function boundedSearchWords(words: readonly string[], whole: string): string[] {
  return words.length > MAX_SEARCH_WORDS ? [whole] : [...words];
}

/** A `search` argument. */
export function SearchSchema(description: string) {
  return TextSchema(`${description} (at most ${MAX_SEARCH_LENGTH} characters)`, { minLength: 1, maxLength: MAX_SEARCH_LENGTH });
}

/** A string, or an array of strings (`x[]=a&x[]=b`, `x[0]=a`, repeated keys, a JSON array). */
export function StringOrListSchema<T extends TSchema>(item: T, description: string) {
  return Type.Union([item, Type.Array(item)], { description });
}

/** A list argument: a CSV string or an array (of CSV strings); split it with `parseList`. */
export function ListSchema(description: string) {
  return StringOrListSchema(Type.String({ pattern: NO_NUL_PATTERN }), description);
}

/** Items of a list argument: CSV parts trimmed, empty ones dropped. */
export function parseList(value: unknown): string[] {
  const items = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return items
    .flatMap((item) => (typeof item === 'string' ? item.split(',') : typeof item === 'number' ? [String(item)] : []))
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** The largest id storage holds (PostgreSQL `integer`): larger numbers cannot name anything. */
export const MAX_ID = 2_147_483_647;

/** reference `is_positive_int` for ids: an integral number from 1 to `MAX_ID`. */
export function parsePositiveInt(value: unknown): number | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!/^\+?\d+(?:\.0*)?$/.test(text)) return undefined;
  const number = Number(text);
  return Number.isSafeInteger(number) && number > 0 && number <= MAX_ID ? number : undefined;
}

/** A list of positive ids; throws `rest_invalid_param` naming `name` when any item is not one. */
export function parseIdList(value: unknown, name: string): number[] {
  const ids = parseList(value).map(parsePositiveInt);
  if (ids.some((id) => id === undefined)) throw invalidParam(name);
  return [...new Set(ids as number[])];
}

/** `global_id`: host and path of the base URL without scheme or port, + `?id=`, as the reference makes it. */
export function globalId(baseUrl: string, id: number): string {
  const url = new URL(baseUrl);
  return `${url.hostname}${url.pathname.replace(/\/+$/, '')}?id=${id}`;
}

/** Public permalinks as the reference builds them (each is a page of the calendar: docs/calendar-pages.md). */
export const permalinks = {
  event: (baseUrl: string, slug: string) => `${baseUrl}/event/${slug}/`,
  venue: (baseUrl: string, slug: string) => `${baseUrl}/venue/${slug}/`,
  organizer: (baseUrl: string, slug: string) => `${baseUrl}/organizer/${slug}/`,
  /** `parentSlugs` from the root down to the category's parent. */
  category: (baseUrl: string, parentSlugs: readonly string[], slug: string) =>
    `${baseUrl}/events/category/${[...parentSlugs, slug].join('/')}/`,
  tag: (baseUrl: string, slug: string) => `${baseUrl}/tag/${slug}/`,
} as const;

/** reference `FILTER_VALIDATE_URL`-like check: an absolute http(s) URL with a host. */
export function isHttpUrl(value: string): boolean {
  if (value.length > 2048 || /\s/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** A field of a body or query that no route schema has typed yet (a hook shared by routes): its own property, or undefined. */
export function fieldOf(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, name) ? (value as Record<string, unknown>)[name] : undefined;
}
