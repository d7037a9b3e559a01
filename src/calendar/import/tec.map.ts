import { createHash } from 'node:crypto';
import type { CreateEventBody } from '../events/events.schemas.ts';
import type { PostWriteInput } from '../linked-posts/linked-posts.writes.ts';

/**
 * The reference's JSON (docs/moving-in.md, "From The Events Calendar") as the bodies our services take: the same
 * fields under the same names, the remote ids of venues, organizers and terms replaced by ours.
 */

export type Json = Record<string, unknown>;

/** Remote id → our id, per kind. */
export interface IdMaps {
  readonly venues: ReadonlyMap<number, number>;
  readonly organizers: ReadonlyMap<number, number>;
  readonly categories: ReadonlyMap<number, number>;
  readonly tags: ReadonlyMap<number, number>;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const flag = (value: unknown): boolean | undefined => (typeof value === 'boolean' ? value : undefined);

/** What the reference escapes in its `website` (HTML), read back. */
function unescapeUrl(url: string): string {
  return url.replace(/&#0?38;|&amp;/g, '&');
}

export const digestOf = (body: unknown): string => createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 32);

/**
 * Whether a venue or organizer came stripped, as a password-protected one is to whom did not unlock it: the
 * reference drops every empty field of these, then blanks the protected ones (the name too, as `[]`).
 */
export function isStrippedLinked(item: Json, nameField: string): boolean {
  if (typeof item[nameField] !== 'string') return true;
  return Object.entries(item).some(
    ([key, value]) => key !== 'global_id_lineage' && (value === '' || value === null || (Array.isArray(value) && value.length === 0)),
  );
}

/** Whether an event came stripped (a password-protected one): `all_day` is then null, never a boolean. */
export const isStrippedEvent = (item: Json): boolean => item.all_day === null;

/** The image's URL, or '' for none: kept as a URL, as an image URL written through the API is. */
function imageOf(item: Json): string {
  const image = item.image;
  return typeof image === 'object' && image !== null && typeof (image as Json).url === 'string' ? ((image as Json).url as string) : '';
}

/** The fields every post has. */
function postFields(item: Json): Json {
  return {
    description: text(item.description),
    excerpt: text(item.excerpt),
    ...(text(item.slug) === '' ? {} : { slug: item.slug }),
    ...(text(item.status) === '' ? {} : { status: item.status }),
    image: imageOf(item),
  };
}

const VENUE_TEXTS = ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'website', 'stateprovince'] as const;
const ORGANIZER_TEXTS = ['phone', 'website', 'email'] as const;

export function venueBody(item: Json): PostWriteInput {
  const located = typeof item.geo_lat === 'number' && typeof item.geo_lng === 'number' && (item.geo_lat !== 0 || item.geo_lng !== 0);
  return {
    venue: text(item.venue),
    ...postFields(item),
    ...Object.fromEntries(VENUE_TEXTS.map((field) => [field, text(item[field])])),
    geo_lat: located ? (item.geo_lat as number) : null,
    geo_lng: located ? (item.geo_lng as number) : null,
    ...definedFlags(item, ['show_map', 'show_map_link']),
  };
}

export function organizerBody(item: Json): PostWriteInput {
  return {
    organizer: text(item.organizer),
    ...postFields(item),
    ...Object.fromEntries(ORGANIZER_TEXTS.map((field) => [field, text(item[field])])),
  };
}

function definedFlags(item: Json, fields: readonly string[]): Json {
  return Object.fromEntries(fields.flatMap((field) => (flag(item[field]) === undefined ? [] : [[field, item[field]]])));
}

/** The cost as the API takes it: each value with the currency symbol on its side. */
function costOf(item: Json): string | string[] {
  const details = (item.cost_details ?? {}) as Json;
  const values = Array.isArray(details.values) ? details.values.filter((value): value is string => typeof value === 'string') : [];
  if (values.length === 0) return text(item.cost);
  const symbol = text(details.currency_symbol);
  const after = ['postfix', 'suffix'].includes(text(details.currency_position));
  const costs = values.map((value) => (after ? `${value}${symbol}` : `${symbol}${value}`));
  return costs.length === 1 ? (costs[0] as string) : costs;
}

const idsOf = (value: unknown): number[] =>
  (Array.isArray(value) ? value : [value]).flatMap((entry) =>
    typeof entry === 'object' && entry !== null && Number.isInteger((entry as Json).id) ? [(entry as Json).id as number] : [],
  );

/** Our ids of the remote ids in `ids` (those not imported are left out). */
const ours = (ids: readonly number[], map: ReadonlyMap<number, number>): number[] => ids.flatMap((id) => map.get(id) ?? []);

/**
 * An event's body. A series (`first` an occurrence of it) starts where its first occurrence was meant to, and
 * carries its rule: the occurrences are made here again from it.
 */
export function eventBody(item: Json, maps: IdMaps): CreateEventBody {
  const website = text(item.website);
  const [venue] = ours(idsOf(item.venue), maps.venues);
  const recurrence = Array.isArray(item.recurrence) ? item.recurrence.filter((line): line is string => typeof line === 'string') : [];
  const body: Json = {
    title: text(item.title),
    ...postFields(item),
    start_date: text(item.start_date),
    end_date: text(item.end_date),
    timezone: text(item.timezone),
    ...definedFlags(item, ['all_day', 'show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured']),
    cost: costOf(item),
    // Without a website of its own, the reference shows the event's page: that is no website to copy (nor is a
    // stripped event's blank).
    ...(website === text(item.url) || isStrippedEvent(item) ? {} : { website: unescapeUrl(website) }),
    categories: ours(idsOf(item.categories), maps.categories),
    tags: ours(idsOf(item.tags), maps.tags),
    venue: venue ?? null,
    organizer: ours(idsOf(item.organizer), maps.organizers),
    ...(recurrence.length > 0 ? { recurrence } : {}),
  };
  return body as unknown as CreateEventBody;
}

/**
 * The events to write: single events as they are, and each series once — from its first occurrence, moved back
 * to the start its rule gives — under the series' id. Occurrences of a series are made here from its rule.
 */
export function eventsToWrite(items: readonly Json[]): { key: number; item: Json }[] {
  const singles: { key: number; item: Json }[] = [];
  const series = new Map<number, Json>();
  for (const item of items) {
    const seriesId = item.recurring_event_id;
    if (!Number.isInteger(seriesId)) {
      singles.push({ key: item.id as number, item });
      continue;
    }
    const known = series.get(seriesId as number);
    if (known === undefined || text(item.original_start_date) < text(known.original_start_date)) series.set(seriesId as number, item);
  }
  for (const [key, first] of series) singles.push({ key, item: { ...first, ...startedAsMeant(first) } });
  return singles;
}

/** An occurrence's start and end where its rule put it (a moved occurrence keeps its length). */
function startedAsMeant(item: Json): Json {
  const meant = text(item.original_start_date);
  if (meant === '' || meant === text(item.start_date)) return {};
  const length = Date.parse(`${text(item.end_date).replace(' ', 'T')}Z`) - Date.parse(`${text(item.start_date).replace(' ', 'T')}Z`);
  const end = new Date(Date.parse(`${meant.replace(' ', 'T')}Z`) + length).toISOString().slice(0, 19).replace('T', ' ');
  return { start_date: meant, end_date: end };
}
