import { recurrenceLines } from '../recurrence/recurrence.series.ts';
import { dateDetails, isoWithOffset, timezoneAbbr, utcStampMillis } from '../common/dates.ts';
import { renderParagraphs } from '../common/html.ts';
import type { ImageResponse } from '../common/images.ts';
import { effectiveStatus } from '../posts/posts.access.ts';
import type { Translated } from '../posts/posts.texts.ts';
import { globalId, permalinks } from '../common/wire.ts';
import { costValues, formatCost, type CurrencyFacts, type SiteCurrency } from './events.cost.ts';
import type { EventRow } from './events.repository.ts';
import type { EmbeddedTerm } from '../terms/terms.schemas.ts';
import type { EventResponse } from './events.schemas.ts';

/** Where links point. */
export interface EventUrls {
  readonly baseUrl: string;
  readonly namespaceUrl: string;
}

/** What a page of events loads in batches, per event. */
export interface EventEmbeds {
  readonly texts: Translated | undefined;
  /** An occurrence's series' rule (events.inherited.ts). */
  readonly seriesRecurrence?: string | undefined;
  readonly image: ImageResponse | undefined;
  readonly venue: object | undefined;
  readonly organizers: readonly object[];
  readonly categories: readonly EmbeddedTerm[];
  readonly tags: readonly EmbeddedTerm[];
}

/** An event that embeds nothing. */
export const NO_EMBEDS: EventEmbeds = { texts: undefined, image: undefined, venue: undefined, organizers: [], categories: [], tags: [] };

function eventRestUrl(urls: EventUrls, id: number): string {
  return `${urls.namespaceUrl}/events/${id}`;
}

export function storedCosts(row: Pick<EventRow, 'cost'>): string[] {
  if (row.cost === null) return [];
  const parsed: unknown = JSON.parse(row.cost);
  return Array.isArray(parsed) ? parsed.map(String) : [];
}

// Abbreviations depend only on the zone and its offset: computed once per pair.
const abbreviations = new Map<string, string>();
function cachedAbbr(zone: string, epochMs: number, offsetKey: string): string {
  const key = `${zone}\u0000${offsetKey}`;
  let abbr = abbreviations.get(key);
  if (abbr === undefined) {
    abbr = timezoneAbbr(zone, epochMs);
    if (abbreviations.size < 10_000) abbreviations.set(key, abbr);
  }
  return abbr;
}

function offsetKeyOf(row: Pick<EventRow, 'start_local' | 'start_utc'>): string {
  return String((utcStampMillis(row.start_local) - utcStampMillis(row.start_utc)) / 60_000);
}

/** What a calendar grid (month, week, day) shows of an event: fields of its representation, made the same way. */
export type EventSummary = Pick<
  EventResponse,
  'id' | 'title' | 'slug' | 'url' | 'all_day' | 'start_date' | 'end_date' | 'utc_start_date' | 'utc_end_date' | 'timezone'
> & {
  /** The colour of its first category that has one (`#rrggbb`): what a grid paints it with. */
  readonly color?: string;
  /** The id of its image, when it has one: what the week and day views show a thumbnail of. */
  readonly image_id?: number;
};

/** The summary of an event (see toEventResponse), from its row and its title and slug. */
export function toEventSummary(row: EventRow, texts: Translated | undefined, urls: EventUrls): EventSummary {
  const slug = texts?.slug ?? String(row.id);
  return {
    id: row.id,
    title: texts?.title ?? '',
    slug,
    // An occurrence's permalink is its series' with the day the rule gave it.
    url: `${permalinks.event(urls.baseUrl, slug)}${row.original_start_local === null ? '' : `${row.original_start_local.slice(0, 10)}/`}`,
    all_day: row.all_day === 1,
    start_date: row.start_local,
    end_date: row.end_local,
    utc_start_date: row.start_utc,
    utc_end_date: row.end_utc,
    timezone: row.timezone,
    ...(row.image_id === null ? {} : { image_id: row.image_id }),
  };
}

/** The event representation, in the reference's order, without `json_ld`. */
export function toEventResponse(row: EventRow, embeds: EventEmbeds, urls: EventUrls, now: Date, site: SiteCurrency): EventResponse {
  // Made as a summary is: a calendar grid and the API cannot differ on them.
  const { title, slug, url } = toEventSummary(row, embeds.texts, urls);
  const id = globalId(urls.baseUrl, row.id);
  const costs = storedCosts(row);
  const currency: CurrencyFacts = {
    symbol: row.currency_symbol,
    position: row.currency_position === 'prefix' || row.currency_position === 'postfix' ? row.currency_position : '',
  };
  return {
    id: row.id,
    global_id: id,
    global_id_lineage: [id],
    author: String(row.author_id ?? 0),
    status: effectiveStatus(row, now),
    date: row.date,
    date_utc: row.date_utc,
    modified: row.modified,
    modified_utc: row.modified_utc,
    url,
    rest_url: eventRestUrl(urls, row.id),
    title,
    description: renderParagraphs(embeds.texts?.description ?? ''),
    excerpt: renderParagraphs(embeds.texts?.excerpt ?? ''),
    slug,
    image: embeds.image ?? false,
    all_day: row.all_day === 1,
    start_date: row.start_local,
    start_date_details: dateDetails(row.start_local),
    end_date: row.end_local,
    end_date_details: dateDetails(row.end_local),
    utc_start_date: row.start_utc,
    utc_start_date_details: dateDetails(row.start_utc),
    utc_end_date: row.end_utc,
    utc_end_date_details: dateDetails(row.end_utc),
    timezone: row.timezone,
    timezone_abbr: cachedAbbr(row.timezone, utcStampMillis(row.start_utc), offsetKeyOf(row)),
    cost: formatCost(costs, currency, site),
    cost_details: {
      currency_symbol: row.currency_symbol,
      currency_code: row.currency_code,
      currency_position: row.currency_position,
      values: costValues(costs),
    },
    website: row.website ?? url,
    show_map: row.show_map === 1,
    show_map_link: row.show_map_link === 1,
    hide_from_listings: row.hide_from_listings === 1,
    sticky: row.sticky === 1,
    featured: row.featured === 1,
    categories: [...embeds.categories],
    tags: [...embeds.tags],
    venue: embeds.venue ?? [],
    organizer: [...embeds.organizers],
    custom_fields: [],
    ...recurrenceFields(row, embeds.seriesRecurrence),
  };
}

/** What a series and its occurrences (with their series' rule) say of their recurrence; nothing on single events. */
function recurrenceFields(row: EventRow, seriesRecurrence: string | undefined): Partial<EventResponse> {
  if (row.parent_id === null) return row.recurrence === null ? {} : { recurrence: recurrenceLines(row.recurrence) };
  if (seriesRecurrence === undefined || row.original_start_local === null || row.original_start_utc === null) return {};
  return {
    recurrence: recurrenceLines(seriesRecurrence),
    recurring_event_id: row.parent_id,
    original_start_date: row.original_start_local,
    original_start_date_utc: row.original_start_utc,
  };
}

/**
 * A password-protected event as lists show it to who has not unlocked it
 * (docs/calendar-compatibility.md): content fields replaced, everything else left as it was.
 */
export function stripProtectedEvent(event: EventResponse): EventResponse {
  return {
    ...event,
    description: '',
    excerpt: '',
    image: false,
    all_day: null,
    cost: '',
    cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: [] },
    website: '',
    show_map: null,
    show_map_link: null,
    hide_from_listings: null,
    sticky: null,
    featured: null,
    categories: [],
    tags: [],
    venue: [],
    organizer: [],
    custom_fields: [],
  };
}

/** A summary as lists show it to who has not unlocked its event: what stripProtectedEvent strips of its fields. */
export function stripProtectedSummary(summary: EventSummary): EventSummary {
  const { color: _color, image_id: _image, ...shown } = summary;
  return { ...shown, all_day: null };
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#039': "'", nbsp: ' ' };

/** Text of rendered HTML, for JSON-LD (a JSON string, not HTML). */
function plainText(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(amp|lt|gt|quot|#0?39|nbsp);/g, (_, name: string) => ENTITIES[name] ?? '')
    .replace(/\s+/g, ' ')
    .trim();
}

function field(source: object, key: string): string {
  const value = (source as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : '';
}

function compact(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== '' && value !== undefined));
}

function placeOf(venue: object): Record<string, unknown> {
  const latitude = (venue as Record<string, unknown>).geo_lat;
  const longitude = (venue as Record<string, unknown>).geo_lng;
  return compact({
    '@type': 'Place',
    name: field(venue, 'venue'),
    description: plainText(field(venue, 'excerpt') || field(venue, 'description')),
    url: field(venue, 'url'),
    address: compact({
      '@type': 'PostalAddress',
      streetAddress: field(venue, 'address'),
      addressLocality: field(venue, 'city'),
      addressRegion: field(venue, 'stateprovince') || field(venue, 'state') || field(venue, 'province'),
      postalCode: field(venue, 'zip'),
      addressCountry: field(venue, 'country'),
    }),
    geo: typeof latitude === 'number' && typeof longitude === 'number' ? { '@type': 'GeoCoordinates', latitude, longitude } : undefined,
    telephone: field(venue, 'phone'),
    sameAs: field(venue, 'website'),
  });
}

function personOf(organizer: object): Record<string, unknown> {
  return compact({
    '@type': 'Person',
    name: field(organizer, 'organizer'),
    description: plainText(field(organizer, 'excerpt') || field(organizer, 'description')),
    url: field(organizer, 'website'),
    telephone: field(organizer, 'phone'),
    email: field(organizer, 'email'),
    sameAs: field(organizer, 'website'),
  });
}

/** schema.org JSON-LD of an event, the reference's shape with real ISO 8601 offsets. */
export function toEventJsonLd(row: EventRow, event: EventResponse, language: string): Record<string, unknown> {
  const costs = storedCosts(row);
  const values = event.cost_details.values;
  const startMs = utcStampMillis(row.start_utc);
  const endMs = utcStampMillis(row.end_utc);
  const venue = Array.isArray(event.venue) ? undefined : event.venue;
  const organizer = event.organizer[0];
  return compact({
    '@context': 'http://schema.org',
    '@type': 'Event',
    inLanguage: language,
    name: plainText(event.title),
    description: plainText(event.excerpt || event.description),
    image: event.image === false ? undefined : event.image.url,
    url: event.url,
    eventAttendanceMode: 'https://schema.org/OfflineEventAttendanceMode',
    eventStatus: 'https://schema.org/EventScheduled',
    startDate: isoWithOffset(startMs, row.timezone),
    endDate: isoWithOffset(endMs, row.timezone),
    location: venue === undefined ? undefined : placeOf(venue),
    organizer: organizer === undefined ? undefined : personOf(organizer),
    offers:
      costs.length === 0
        ? undefined
        : {
            '@type': 'Offer',
            price: values[0] ?? '0',
            priceCurrency: row.currency_code || 'USD',
            url: event.url,
            category: 'primary',
            availability: 'inStock',
            validFrom: isoWithOffset(utcStampMillis(row.date_utc), 'UTC'),
          },
    performer: 'Organization',
  });
}
