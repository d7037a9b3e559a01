import type { Language } from '../../config/config.ts';
import type { EventSummary } from '../events/events.mapper.ts';
import type { EventResponse } from '../events/events.schemas.ts';
import { isoWithOffset, utcStampMillis } from '../common/dates.ts';
import { lastDayOf } from '../events/events.days.ts';
import { sanitizeContent } from '../common/html.ts';
import { formatDay, formatTime } from './pages.dates.ts';
import type { PageLanguage } from './pages.i18n.ts';
import type { Settings } from '../settings/settings.schemas.ts';
import { colorClass } from './pages.theme.ts';

/** What templates show of the calendar's items: plain text (escaped by the templates), links and formatted dates. */

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/**
 * Text of a stored plain-text field. Titles and names are stored as sanitized text, entities still escaped
 * (`&lt;b&gt;`): they are decoded here once so that the templates' escaping shows them as typed, never twice.
 */
export function plainText(value: unknown): string {
  if (typeof value !== 'string') return '';
  return value.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]+);/gi, (entity, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : entity;
    }
    return ENTITIES[name.toLowerCase()] ?? entity;
  });
}

/** Stored content is sanitized when written; sanitized again on the way out, so no page ever holds HTML that was not. */
export function safeHtml(value: unknown): string {
  return typeof value === 'string' ? sanitizeContent(value) : '';
}

/** Links of the pages: relative to the site, keeping `lang` when the visitor chose it and the filters in force. */
export class PageLinks {
  constructor(
    readonly basePath: string,
    readonly baseUrl: string,
    readonly language: PageLanguage,
    private readonly keep: ReadonlyArray<readonly [string, string]> = [],
  ) {}

  /** A page of the site (`path` from the site root), with the parameters it keeps (`keep`) and `extra`. */
  to(path: string, extra: ReadonlyArray<readonly [string, string]> = [], keepFilters = true): string {
    const pairs = [...(keepFilters ? this.keep : []), ...extra];
    if (this.language.explicit) pairs.push(['lang', this.language.language]);
    const query = new URLSearchParams(pairs.map(([key, value]) => [key, value])).toString();
    return `${this.basePath}${path}${query === '' ? '' : `?${query}`}`;
  }

  /** A permalink the API gave (`{base_url}/…`), as a link of the page. */
  of(permalink: string): string {
    const path = permalink.startsWith(this.baseUrl) ? permalink.slice(this.baseUrl.length) : permalink;
    return this.to(path, [], false);
  }

  /** The same page in another language. */
  inLanguage(path: string, language: Language): string {
    const pairs = [...this.keep, ['lang', language] as const];
    return `${this.basePath}${path}${path.includes('?') ? '&' : '?'}${new URLSearchParams(pairs.map(([key, value]) => [key, value])).toString()}`;
  }
}

export interface EventCard {
  readonly title: string;
  readonly href: string;
  /** `9:00–11:00`, `from 19:00`, `until 21:00`, or the whole-day word (see `timeOnDay`). */
  readonly time: string;
  readonly datetime: string;
  readonly when: string;
  /** The class of its category colour (pages.theme.ts), or `''`: the accent's. */
  readonly color: string;
  /** Runs over several days (all day or not): a grid draws it as a bar. */
  readonly spans: boolean;
  /** The first and the last day it runs on (as the grids place it): where a grid's bar of it is clipped. */
  readonly firstDay: string;
  readonly lastDay: string;
  /** What a list's card shows more (cards made from a whole event). */
  readonly details?: CardDetails;
  /** Its image's id, if any, and its thumbnail in the views that show them (list, week, day). */
  readonly imageId?: number;
  readonly thumbnail?: Thumbnail;
}

/** A card's picture: the square thumbnail of an uploaded image, with its alternative text (empty: decoration). */
export interface Thumbnail {
  readonly src: string;
  readonly width: number;
  readonly height: number;
  readonly alt: string;
}

/** A list card's date badge, place, excerpt and cost. */
export interface CardDetails {
  readonly badge: { readonly month: string; readonly day: number };
  readonly venue: string;
  readonly excerpt: string;
  readonly cost: string;
}

/** Longest excerpt a card shows, in characters: about two lines of a phone. */
const EXCERPT_MAX = 160;

/** Text of rendered HTML (an excerpt) on one line, cut at a word past `max` characters. */
function excerptText(html: string, max: number): string {
  const text = plainText(html.replace(/<[^>]*>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), max / 2)).trimEnd()}…`;
}

/** The details of a list's card of `event`. */
export function cardDetailsOf(event: EventResponse, language: Language): CardDetails {
  const [year, month, day] = event.start_date.slice(0, 10).split('-').map(Number) as [number, number, number];
  const monthName = new Intl.DateTimeFormat(language, { month: 'short', timeZone: 'UTC' }).format(Date.UTC(year, month - 1, day));
  const place: Record<string, unknown> = Array.isArray(event.venue) ? {} : event.venue;
  const venue = [plainText(place.venue), plainText(place.city)].filter(Boolean).join(', ');
  return {
    badge: { month: monthName.replace('.', ''), day },
    venue,
    excerpt: excerptText(event.excerpt, EXCERPT_MAX),
    cost: plainText(event.cost),
  };
}

/** The words a card's time is made of. */
export interface TimeWords {
  readonly allDay: string;
  readonly fromTime: string;
  readonly untilTime: string;
}

type Timed = Pick<EventSummary, 'start_date' | 'end_date' | 'all_day'>;

/** The first and last day an event runs on, as the grids place it: one that ends at midnight ends the day before. */
function daysOf(event: Timed): [string, string] {
  return [event.start_date.slice(0, 10), lastDayOf({ start_local: event.start_date, end_local: event.end_date })];
}

/**
 * What of an event a card shows on `day` (a day of the event, in its zone; none: a list's card): all of it
 * (`whole`: all-day or within one day), the first, a middle or the last day of a timed event spanning days,
 * or that whole span (`span`, a list's card).
 */
export function dayPart(event: Timed, day: string | undefined): 'whole' | 'first' | 'between' | 'last' | 'span' {
  const [startDay, endDay] = daysOf(event);
  if (event.all_day === true || startDay === endDay) return 'whole';
  if (day === undefined) return 'span';
  return day === startDay ? 'first' : day === endDay ? 'last' : 'between';
}

/**
 * An event's time on a card (`dayPart`): "19:00–21:00" within a day; a timed event spanning days starts on
 * its first day ("from 19:00"), ends on its last ("until 21:00") and fills the days between ("All day"); a
 * list shows "from 19:00 until 21:00" beside its dates.
 */
export function timeOnDay(event: Timed, day: string | undefined, language: Language, words: TimeWords, timeFormat = ''): string {
  if (event.all_day === true) return words.allDay;
  const start = formatTime(event.start_date, language, timeFormat);
  const end = formatTime(event.end_date, language, timeFormat);
  switch (dayPart(event, day)) {
    case 'whole':
      return `${start}–${end}`;
    case 'first':
      return `${words.fromTime} ${start}`;
    case 'last':
      return `${words.untilTime} ${end}`;
    case 'between':
      return words.allDay;
    case 'span':
      return `${words.fromTime} ${start} ${words.untilTime} ${end}`;
  }
}

/** The site's formats of times and dates (its settings). */
export type Formats = Pick<Settings, 'time_format' | 'date_format'>;

/** A card of `event`, its time as shown on `day` (`timeOnDay`). */
export function cardOf(
  event: EventSummary,
  links: PageLinks,
  language: Language,
  words: TimeWords,
  formats: Formats,
  day?: string,
): EventCard {
  const [startDay, endDay] = daysOf(event);
  const time = timeOnDay(event, day, language, words, formats.time_format);
  const dayText = (shown: string) => formatDay(shown, language, formats.date_format);
  return {
    title: plainText(event.title),
    href: links.of(event.url),
    time,
    datetime: isoWithOffset(utcStampMillis(event.utc_start_date), event.timezone),
    when: `${dayText(startDay)}${endDay === startDay ? '' : ` – ${dayText(endDay)}`}`,
    color: event.color === undefined ? '' : colorClass(event.color),
    spans: endDay !== startDay,
    firstDay: startDay,
    lastDay: endDay,
    ...(event.image_id === undefined ? {} : { imageId: event.image_id }),
  };
}

function utcCompact(stamp: string): string {
  return stamp.replace(/[-:]/g, '').replace(' ', 'T') + 'Z';
}

/** A Google Calendar template link for the event. */
export function googleCalendarLink(event: EventResponse, details: string, location: string): string {
  const dates =
    event.all_day === true
      ? `${event.start_date.slice(0, 10).replace(/-/g, '')}/${nextDay(event.end_date.slice(0, 10)).replace(/-/g, '')}`
      : `${utcCompact(event.utc_start_date)}/${utcCompact(event.utc_end_date)}`;
  const query = new URLSearchParams({ action: 'TEMPLATE', text: plainText(event.title), dates, details, location, ctz: event.timezone });
  return `https://calendar.google.com/calendar/render?${query.toString()}`;
}

/** An Outlook (outlook.live.com) link that opens a new event filled in with this one. */
export function outlookCalendarLink(event: EventResponse, details: string, location: string): string {
  const allDay = event.all_day === true;
  const [start, end] = allDay
    ? [event.start_date.slice(0, 10), nextDay(event.end_date.slice(0, 10))]
    : [event.utc_start_date, event.utc_end_date].map((stamp) => `${stamp.replace(' ', 'T')}Z`);
  const query = new URLSearchParams({
    path: '/calendar/action/compose',
    rru: 'addevent',
    subject: plainText(event.title),
    startdt: start!,
    enddt: end!,
    allday: String(allDay),
    body: details,
    location,
  });
  return `https://outlook.live.com/calendar/0/deeplink/compose?${query.toString()}`;
}

function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

/** A venue's address on one line. */
export function addressOf(venue: Record<string, unknown>): string {
  return ['address', 'city', 'stateprovince', 'zip', 'country']
    .map((field) => plainText(venue[field]).trim())
    .filter((part) => part !== '')
    .join(', ');
}

/** OpenStreetMap: the venue's coordinates when it has them, else a search for its address. */
export function mapLink(venue: Record<string, unknown>): string | undefined {
  const lat = venue.geo_lat;
  const lng = venue.geo_lng;
  if (typeof lat === 'number' && typeof lng === 'number') {
    return `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lng}#map=16/${lat}/${lng}`;
  }
  const address = addressOf(venue);
  return address === '' ? undefined : `https://www.openstreetmap.org/search?query=${encodeURIComponent(address)}`;
}

/** JSON for a `<script type="application/ld+json">`: `<` escaped so that no text in it can close the element. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

/** ISO 4217 codes of the currency symbols people write in a cost (`€15`), for the offers of a page's JSON-LD. */
const CURRENCY_OF_SYMBOL: Readonly<Record<string, string>> = { '€': 'EUR', $: 'USD', '£': 'GBP', '¥': 'JPY', CHF: 'CHF', kr: 'SEK' };

/**
 * An event's JSON-LD as search engines validate it (schema.org, Google's Event). The API's `json_ld` is the
 * reference's, quirks included: `performer` given as the bare text "Organization", an offer's
 * `availability` as `inStock`, its currency USD unless a code was stored. A page describes the event with the
 * same facts, said properly: the currency is the one the cost was written in, when its symbol says.
 */
export function eventJsonLdForSearch(
  ld: object,
  costDetails: { readonly currency_code: string; readonly currency_symbol: string },
): Record<string, unknown> {
  const { '@context': _context, performer: _performer, offers, ...rest } = ld as Record<string, unknown>;
  const currency = costDetails.currency_code || CURRENCY_OF_SYMBOL[costDetails.currency_symbol.trim()];
  const offer =
    typeof offers === 'object' && offers !== null
      ? { ...offers, availability: 'https://schema.org/InStock', ...(currency === undefined ? {} : { priceCurrency: currency }) }
      : undefined;
  return { '@context': 'https://schema.org', ...rest, ...(offer === undefined ? {} : { offers: offer }) };
}

/** Where to subscribe to a feed: calendar apps (`webcal:`), Google Calendar, Outlook, and the file itself. */
export interface SubscribeLinks {
  readonly webcal: string;
  readonly google: string;
  readonly outlook: string;
  readonly ics: string;
}

/** A feed's address with the scheme calendar apps open their subscribe dialog for. */
export function webcalOf(feed: string): string {
  return feed.replace(/^https?:/, 'webcal:');
}

/** The subscribe links of the events feed (`/events.ics`) that takes `filters`, as the events list does; `name` names it in Outlook. */
export function subscribeLinks(namespaceUrl: string, filters: object, name: string): SubscribeLinks {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(filters) as Array<[string, unknown]>) {
    for (const each of [value].flat()) if (each !== undefined) query.append(key, String(each));
  }
  const ics = `${namespaceUrl}/events.ics${query.size > 0 ? `?${query.toString()}` : ''}`;
  const webcal = webcalOf(ics);
  return {
    webcal,
    google: `https://calendar.google.com/calendar/r?${new URLSearchParams({ cid: webcal }).toString()}`,
    outlook: `https://outlook.live.com/calendar/0/addfromweb?${new URLSearchParams({ url: ics, name }).toString()}`,
    ics,
  };
}
