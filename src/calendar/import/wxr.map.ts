import { costWithSymbol } from './csv.rows.ts';
import type { WxrItem } from './wxr.read.ts';

/**
 * What The Events Calendar's posts in a WordPress export say, as the API's writes take it (docs/moving-in.md):
 * the post's own fields, then the `_Event*`, `_Venue*` and `_Organizer*` meta. Links to other items of the export
 * (venue, organizers, image, terms, author) are resolved by the importer and passed in.
 */

/** The post types read, by the kind of item they are. */
export const TEC_TYPES = { tribe_venue: 'venues', tribe_organizer: 'organizers', tribe_events: 'events' } as const;
export type WxrKind = (typeof TEC_TYPES)[keyof typeof TEC_TYPES];

/** Statuses imported as they are; an item in WordPress's trash, an auto-draft or a revision is left out. */
const STATUSES = new Set(['publish', 'future', 'draft', 'pending', 'private']);

/** WordPress's empty date, written for a draft that was never published. */
const NO_DATE = '0000-00-00 00:00:00';

export type Body = Record<string, unknown>;

/** What an item links to, found here (ids of this site). */
export interface Links {
  readonly author: number;
  /** A stored image id, or the image's address when it was not stored. */
  readonly image?: number | string;
  readonly venue?: number | null;
  readonly organizers?: readonly number[];
  readonly categories?: readonly number[];
  readonly tags?: readonly number[];
}

export const field = (item: WxrItem, name: string): string => item.fields.get(name)?.trim() ?? '';
export const metaOf = (item: WxrItem, key: string): string | undefined => item.meta.get(key)?.[0];
export const kindOf = (item: WxrItem): WxrKind | undefined => TEC_TYPES[field(item, 'wp:post_type') as keyof typeof TEC_TYPES];

/** Whether the item is imported at all (its status is one a post has here). */
export const isImported = (item: WxrItem): boolean => STATUSES.has(field(item, 'wp:status'));

/** WordPress's yes-or-no meta: `1`, `yes`, `true`; absent stays absent. */
function flag(item: WxrItem, key: string): boolean | undefined {
  const value = metaOf(item, key);
  return value === undefined ? undefined : ['1', 'yes', 'true', 'on'].includes(value.trim().toLowerCase());
}

/** A slug as WordPress stores it: percent-encoded UTF-8. */
function slugOf(item: WxrItem): string | undefined {
  const slug = field(item, 'wp:post_name');
  if (slug === '') return undefined;
  try {
    return decodeURIComponent(slug);
  } catch {
    return slug;
  }
}

/** The fields every post has: texts, slug, status, password, publication date, author and image. */
function postFields(item: WxrItem, links: Links): Body {
  const gmt = field(item, 'wp:post_date_gmt');
  const local = field(item, 'wp:post_date');
  return withoutUndefined({
    description: item.fields.get('content:encoded') ?? '',
    excerpt: item.fields.get('excerpt:encoded') ?? '',
    status: field(item, 'wp:status'),
    password: item.fields.get('wp:post_password') ?? '',
    author: links.author,
    slug: slugOf(item),
    image: links.image === undefined ? '' : String(links.image),
    ...(gmt !== '' && gmt !== NO_DATE ? { date_utc: gmt } : local !== '' && local !== NO_DATE ? { date: local } : {}),
  });
}

function withoutUndefined(body: Body): Body {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
}

/** Meta values by the field they write; absent meta leaves its field out. */
function metaFields(item: WxrItem, fields: Readonly<Record<string, string>>): Body {
  return withoutUndefined(Object.fromEntries(Object.entries(fields).map(([name, key]) => [name, metaOf(item, key)])));
}

export function venueBody(item: WxrItem, links: Links): Body {
  const body: Body = {
    venue: field(item, 'title'),
    ...postFields(item, links),
    ...metaFields(item, {
      address: '_VenueAddress',
      city: '_VenueCity',
      state: '_VenueState',
      province: '_VenueProvince',
      stateprovince: '_VenueStateProvince',
      zip: '_VenueZip',
      country: '_VenueCountry',
      phone: '_VenuePhone',
      website: '_VenueURL',
    }),
    show_map: flag(item, '_VenueShowMap'),
    show_map_link: flag(item, '_VenueShowMapLink'),
  };
  const lat = Number(metaOf(item, '_VenueLat') ?? NaN);
  const lng = Number(metaOf(item, '_VenueLng') ?? NaN);
  if (Number.isFinite(lat) && Number.isFinite(lng) && metaOf(item, '_VenueLat')?.trim() && metaOf(item, '_VenueLng')?.trim()) {
    body.geo_lat = lat;
    body.geo_lng = lng;
  }
  return withoutUndefined(body);
}

export function organizerBody(item: WxrItem, links: Links): Body {
  return {
    organizer: field(item, 'title'),
    ...postFields(item, links),
    ...metaFields(item, { phone: '_OrganizerPhone', email: '_OrganizerEmail', website: '_OrganizerWebsite' }),
  };
}

/**
 * An event's schedule: its local dates in its time zone; without a zone, its UTC dates in UTC (an export of a site
 * that kept none); without either, the local dates in the site's zone.
 */
function schedule(item: WxrItem): Body {
  const zone = metaOf(item, '_EventTimezone')?.trim() ?? '';
  const utcStart = metaOf(item, '_EventStartDateUTC');
  if (zone === '' && utcStart !== undefined)
    return { start_date: utcStart, end_date: metaOf(item, '_EventEndDateUTC') ?? utcStart, timezone: 'UTC' };
  const start = metaOf(item, '_EventStartDate');
  return withoutUndefined({ start_date: start, end_date: metaOf(item, '_EventEndDate') ?? start, timezone: zone });
}

export function eventBody(item: WxrItem, links: Links): Body {
  const cost = costWithSymbol(metaOf(item, '_EventCost'), metaOf(item, '_EventCurrencySymbol'), metaOf(item, '_EventCurrencyPosition'));
  return withoutUndefined({
    title: field(item, 'title'),
    ...postFields(item, links),
    ...schedule(item),
    all_day: flag(item, '_EventAllDay') ?? false,
    cost: cost ?? '',
    website: metaOf(item, '_EventURL') ?? '',
    show_map: flag(item, '_EventShowMap'),
    show_map_link: flag(item, '_EventShowMapLink'),
    hide_from_listings: flag(item, '_EventHideFromUpcoming') ?? false,
    featured: flag(item, '_tribe_featured') ?? false,
    venue: links.venue ?? null,
    organizer: [...(links.organizers ?? [])],
    // Ids as text: an event write reads a number in a term list as an id, and takes a list of texts.
    categories: (links.categories ?? []).map(String),
    tags: (links.tags ?? []).map(String),
  });
}
