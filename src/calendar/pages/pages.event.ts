import type { EventResponse } from '../events/events.schemas.ts';
import { isoWithOffset, utcStampMillis } from '../common/dates.ts';
import { permalinks } from '../common/wire.ts';
import { addDays, formatDay, formatTime } from './pages.dates.ts';
import {
  addressOf,
  eventJsonLdForSearch,
  googleCalendarLink,
  jsonForScript,
  mapLink,
  outlookCalendarLink,
  plainText,
  safeHtml,
  webcalOf,
  type SubscribeLinks,
} from './pages.present.ts';
import { pageNotFound } from './pages.errors.ts';
import { pageImageOf, previewImageOf } from './pages.images.ts';
import { recurrenceInWords } from './pages.recurrence.ts';
import type { PageRequest, PagesService } from './pages.service.ts';
import type { PageHead } from './pages.views.ts';

/** The event page: what it shows, and what it says of itself (canonical URL, Open Graph, JSON-LD). */

/** The id of the occurrence of the series `slug` that the rule put on `day` (its permalink's day). */
export async function findOccurrence(
  pages: PagesService,
  page: PageRequest,
  slug: string,
  day: string,
  password?: string,
): Promise<number> {
  const { events } = pages.services;
  const { row } = await events.getEventWithRow({ slug }, password === undefined ? {} : { password }, page.caller);
  const query = { post_parent: row.id, start_date: addDays(day, -366), end_date: addDays(day, 366) };
  const occurrences = await events.listEventsWithRows(query, page.caller, page.now, 1000);
  const found = occurrences.find(({ event }) => event.url.endsWith(`/${day}/`));
  if (found === undefined) throw pageNotFound();
  return found.row.id;
}

/** A day, and a stamp's time, as the page's language and the site's formats write them. */
const dayOn = (page: PageRequest, day: string) => formatDay(day, page.language.language, page.caller.settings.date_format);
const timeOn = (page: PageRequest, stamp: string) => formatTime(stamp, page.language.language, page.caller.settings.time_format);

function whenOf(event: EventResponse, page: PageRequest): { text: string; start: string; end: string } {
  const startDay = event.start_date.slice(0, 10);
  const endDay = event.end_date.slice(0, 10);
  const start = isoWithOffset(utcStampMillis(event.utc_start_date), event.timezone);
  const end = isoWithOffset(utcStampMillis(event.utc_end_date), event.timezone);
  if (event.all_day === true) {
    const days = startDay === endDay ? dayOn(page, startDay) : `${dayOn(page, startDay)} – ${dayOn(page, endDay)}`;
    return { text: `${days} (${page.t.allDay})`, start, end };
  }
  const from = `${dayOn(page, startDay)}, ${timeOn(page, event.start_date)}`;
  const to = startDay === endDay ? timeOn(page, event.end_date) : `${dayOn(page, endDay)}, ${timeOn(page, event.end_date)}`;
  return { text: `${from} – ${to} ${event.timezone_abbr}`.trim(), start, end };
}

/** Upcoming occurrences an event page lists. */
const NEXT_DATES = 5;

/**
 * How the series of `event` (itself, or the series of an occurrence) repeats, its next occurrences from today, and
 * on an occurrence the series' page; nothing for a single event. The occurrences are the series' instances as an
 * anonymous reader lists them, so a draft, private or trashed one never shows.
 */
async function seriesModel(pages: PagesService, page: PageRequest, event: EventResponse) {
  if (event.recurrence === undefined || event.recurrence.length === 0) return undefined;
  const language = page.language.language;
  const { events } = pages.services;
  const seriesId = event.recurring_event_id ?? event.id;
  // The rule repeats the series' own start (its weekday, its day of the month), which an RDATE occurrence does not share.
  const [series, next] = await Promise.all([
    event.recurring_event_id === undefined
      ? { event }
      : events.listSeriesWithRows([seriesId], {}, page.caller, page.now).then(([found]) => found),
    events.listInstances(seriesId, { start_date: page.today, per_page: NEXT_DATES }, page.caller),
  ]);
  const master = series?.event ?? event;
  return {
    words: recurrenceInWords(event.recurrence, { local: master.start_date, zone: master.timezone }, language),
    next: next.events.map((occurrence) => ({
      href: page.links.of(occurrence.url),
      current: occurrence.id === event.id,
      datetime: isoWithOffset(utcStampMillis(occurrence.utc_start_date), occurrence.timezone),
      text:
        occurrence.all_day === true
          ? dayOn(page, occurrence.start_date.slice(0, 10))
          : `${dayOn(page, occurrence.start_date.slice(0, 10))}, ${timeOn(page, occurrence.start_date)}`,
    })),
    // An occurrence's permalink is its series' followed by its day.
    href: event.recurring_event_id === undefined ? undefined : page.links.of(event.url.replace(/\d{4}-\d{2}-\d{2}\/$/, '')),
  };
}

type Embedded = Record<string, unknown>;

export async function eventModel(
  pages: PagesService,
  page: PageRequest,
  event: EventResponse,
  path: string,
): Promise<{ model: object; head: PageHead }> {
  const { links } = page;
  const { categories, tags } = pages.services;
  const termIds = (terms: readonly object[]) => terms.map((term) => Number((term as Embedded).id)).filter(Number.isInteger);
  const [categoryTerms, tagTerms, series, image] = await Promise.all([
    categories.listByIds(termIds(event.categories), page.caller),
    tags.listByIds(termIds(event.tags), page.caller),
    seriesModel(pages, page, event),
    pageImageOf(pages.services.media, event.image),
  ]);
  const venue = Array.isArray(event.venue) ? undefined : (event.venue as Embedded);
  const venueModel =
    venue === undefined
      ? undefined
      : { name: plainText(venue.venue), href: links.of(String(venue.url)), address: addressOf(venue), map: mapLink(venue) };
  const description = safeHtml(event.description);
  const summary = plainText(safeHtml(event.excerpt || event.description).replace(/<[^>]*>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
  const namespaceUrl = pages.services.deps.site.namespaceUrl;
  const location = venueModel === undefined ? '' : [venueModel.name, venueModel.address].join(', ');
  const model = {
    heading: plainText(event.title),
    when: whenOf(event, page),
    series,
    venue: venueModel,
    organizers: event.organizer.map((organizer) => ({
      name: plainText((organizer as Embedded).organizer),
      href: links.of(String((organizer as Embedded).url)),
    })),
    categories: categoryTerms.map((term) => ({ name: plainText(term.name), href: links.of(term.url) })),
    tags: tagTerms.map((term) => ({ name: plainText(term.name), href: links.of(permalinks.tag(links.baseUrl, term.slug)) })),
    description,
    cost: plainText(event.cost),
    image,
    website: event.website !== '' && event.website !== event.url ? plainText(event.website) : undefined,
    // The file is this event (an occurrence alone: one day to add); a subscription follows its whole series.
    subscribe: {
      webcal: webcalOf(`${namespaceUrl}/events/${event.recurring_event_id ?? event.id}.ics`),
      google: googleCalendarLink(event, summary.slice(0, 500), location),
      outlook: outlookCalendarLink(event, summary.slice(0, 500), location),
      ics: `${namespaceUrl}/events/${event.id}.ics`,
    } satisfies SubscribeLinks,
  };
  const head: PageHead = {
    title: model.heading,
    path,
    description: summary.slice(0, 300),
    image: previewImageOf(event.image, image?.alt),
    ogType: 'website',
    jsonLd: event.json_ld === undefined ? undefined : jsonForScript(eventJsonLdForSearch(event.json_ld, event.cost_details)),
  };
  return { model, head };
}
