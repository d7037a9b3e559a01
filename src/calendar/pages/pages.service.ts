import { cacheKey } from '../../platform/cache/read-cache.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Answer } from '../../platform/http/cached-answers.ts';
import type { Config } from '../../config/config.ts';
import { AppError } from '../../platform/errors.ts';
import type { CalendarServices } from '../calendar.services.ts';
import type { EventSummary } from '../events/events.mapper.ts';
import type { EventResponse, ListEventsQuery } from '../events/events.schemas.ts';
import { requestContext, settingsOf, type RequestContext } from '../common/context.ts';
import { languageOfLocale } from '../settings/settings.service.ts';
import { nowIn } from '../common/dates.ts';
import { feedName } from '../common/site-title.ts';
import { loadImages } from '../common/images.ts';
import { DICTIONARIES, pageLanguageOf, type Dictionary, type PageLanguage } from './pages.i18n.ts';
import {
  cardDetailsOf,
  cardOf,
  dayPart,
  PageLinks,
  plainText,
  subscribeLinks,
  type EventCard,
  type SubscribeLinks,
} from './pages.present.ts';
import type { ViewQuery } from './pages.schemas.ts';
import type { Term } from '../terms/terms.schemas.ts';
import { addDays, daysBetween } from './pages.dates.ts';
import { pageNotFound } from './pages.errors.ts';
import { filterPairs, listFilters } from './pages.filters.ts';
import { termsOf } from '../terms/terms.mapper.ts';
import { thumbnailOf, thumbnailsOf } from './pages.images.ts';

/** The events a grid's day shows: the first ones (the day's page shows more), and how many more it has. */
export interface DayEvents {
  readonly events: EventCard[];
  readonly more: number;
}

const LIST_PER_PAGE = 10;
/** Most choices of each list of the filter form (the APIs' largest page), besides the current one. */
const FILTER_LIST_MAX = 50;

/** The request a page answers: its reader (anonymous), language, words, links and day. */
export interface PageRequest {
  readonly caller: RequestContext;
  readonly language: PageLanguage;
  readonly t: Dictionary;
  readonly links: PageLinks;
  readonly now: Date;
  /** Today in the site's time zone. */
  readonly today: string;
  readonly query: ViewQuery;
  /** The category colours the page's cards show (`#rrggbb`), for its theme stylesheet. */
  readonly colors: Set<string>;
}

export interface Option {
  readonly value: string;
  readonly label: string;
  readonly selected: boolean;
}

export interface FilterChoices {
  readonly search: string;
  readonly categories: Option[];
  readonly tags: Option[];
  readonly venues: Option[];
  readonly organizers: Option[];
  readonly active: boolean;
}

/** What the filter form offers before the current choices are marked. */
interface FilterLists {
  readonly categories: Term[];
  readonly tags: Term[];
  readonly venues: ReadonlyArray<Record<string, unknown>>;
  readonly organizers: ReadonlyArray<Record<string, unknown>>;
}

/**
 * The public pages' reads: the calendar's own services called as an anonymous reader (the same visibility as
 * the anonymous API: no drafts, private or protected content), in the language the page is shown in.
 */
export class PagesService {
  /** The site's day in the second last asked: every page's cache key names it, and a day starts on a second. */
  private day: { readonly zone: string; readonly second: number; readonly day: string } | undefined;

  constructor(
    readonly services: CalendarServices,
    readonly config: Config,
  ) {}

  private dayOf(zone: string, now: Date): string {
    const second = Math.floor(now.getTime() / 1000);
    if (this.day?.second !== second || this.day.zone !== zone) this.day = { zone, second, day: nowIn(zone, now).local.slice(0, 10) };
    return this.day.day;
  }

  /** The page request of `request`: pages never act for the caller of the request (an Authorization header changes nothing). */
  pageRequest(request: FastifyRequest, query: ViewQuery, keepFilters = true): PageRequest {
    const base = requestContext(request, this.services.deps);
    const language = pageLanguageOf(request, base.defaultLanguage);
    const caller: RequestContext = { ...base, user: null, language: language.language, precondition: undefined };
    const now = new Date();
    const keep = keepFilters ? filterPairs(query) : [];
    return {
      caller,
      language,
      t: DICTIONARIES[language.language],
      links: new PageLinks(this.config.basePath, this.config.baseUrl, language, keep),
      now,
      today: this.dayOf(base.site.timezone, now),
      query,
      colors: new Set(),
    };
  }

  /**
   * Where the site's logo is: the medium size of the image `site_logo` names (the full one when it is smaller), if
   * `id` is that image — no other image is found here, so the address tells nothing of the media library.
   */
  async logoUrl(request: FastifyRequest, id: string): Promise<string | undefined> {
    const logo = settingsOf(request, this.config).site_logo;
    if (logo === 0 || id !== String(logo)) return undefined;
    const image = (await loadImages(this.services.deps.store.db, [logo], this.config.baseUrl)).get(logo);
    return image?.sizes?.medium?.url ?? image?.url;
  }

  /**
   * Sends the page `produce` renders, cached per calendar version (ADR 22) with the API's anonymous answers:
   * a page depends only on its address, its language and the site's day (pages never act for a caller).
   */
  async send(request: FastifyRequest, reply: FastifyReply, produce: () => Promise<Answer>): Promise<FastifyReply> {
    const settings = settingsOf(request, this.config);
    const language = pageLanguageOf(request, languageOfLocale(settings.language)).language;
    const today = this.dayOf(settings.timezone, new Date());
    return this.services.deps.answers.answer(reply, cacheKey(request.url, language, today), produce);
  }

  /**
   * Each day from `first` to `last` with how many events run on it (wall-clock days of each event's zone) and the
   * cards of the first `perDay` of them, with the page's filters: summaries (what a grid shows), not whole events;
   * with `thumbnails`, each card with its image's thumbnail (two queries more, for the images shown).
   */
  async eventsByDay(page: PageRequest, first: string, last: string, perDay: number, thumbnails = false): Promise<Map<string, DayEvents>> {
    const query: ListEventsQuery = {
      ...listFilters(page.query),
      ends_after: `${first} 00:00:00`,
      starts_before: `${addDays(last, 1)} 00:00:00`,
      strict_dates: true,
    };
    const days = daysBetween(first, last);
    const grid = await this.services.events.listDays(query, page.caller, page.now, days, perDay);
    const images = thumbnails ? grid.shown.flat().flatMap((event) => event.image_id ?? []) : [];
    const found = await thumbnailsOf(this.services.deps.store.db, this.services.media, this.config.baseUrl, images);
    // An event on several days is a card on each, which differ only in the time shown there.
    const cards = new Map<string, EventCard>();
    const cardOfEvent = (day: string) => (event: EventSummary) => {
      const key = `${event.id} ${dayPart(event, day)}`;
      const thumbnail = event.image_id === undefined ? undefined : found.get(event.image_id);
      const card = () => ({ ...this.card(page, event, day), ...(thumbnail === undefined ? {} : { thumbnail }) });
      return cards.get(key) ?? cards.set(key, card()).get(key)!;
    };
    return new Map(
      days.map((day, index) => {
        const events = grid.shown[index]!.map(cardOfEvent(day));
        return [day, { events, more: grid.counts[index]! - events.length }];
      }),
    );
  }

  /** A page of upcoming events, soonest first (or past ones, latest first), with the page's filters and `extra` arguments. */
  async eventList(page: PageRequest, extra: ListEventsQuery = {}): Promise<{ cards: EventCard[]; page: number; pages: number }> {
    const number = page.query.page ?? 1;
    const isPast = page.query.past === '1';
    const past = isPast ? { ends_before: `${page.today} 00:00:00`, strict_dates: true } : {};
    const query: ListEventsQuery = { ...listFilters(page.query), ...past, ...extra, page: number, per_page: LIST_PER_PAGE };
    try {
      const [list, colors] = await Promise.all([
        this.services.events.listEvents(query, page.caller, page.now, { order: isPast ? 'desc' : 'asc' }),
        this.services.categories.colors(page.caller),
      ]);
      const alts = await this.services.media.altTexts(list.events.flatMap((event) => (event.image === false ? [] : [event.image.id])));
      // As a grid's summary has it: the colour of its first category (by id) that has one.
      const colorOf = (event: EventResponse) =>
        [...event.categories]
          .sort((a, b) => a.id - b.id)
          .map((category) => colors.get(category.id))
          .find((color) => color !== undefined);
      return {
        cards: list.events.map((event) => ({
          ...this.card(page, { ...event, color: colorOf(event) }),
          details: cardDetailsOf(event, page.language.language),
          thumbnail: thumbnailOf(event.image, event.image === false ? undefined : alts.get(event.image.id)),
        })),
        page: number,
        pages: list.total_pages,
      };
    } catch (error) {
      // Past the last page: as any address that shows nothing.
      if (error instanceof AppError && error.code === 'event-archive-page-not-found') throw pageNotFound();
      throw error;
    }
  }

  /**
   * The subscribe links of a view (its filters) or of an archive (`only`: its venue, organizer or term, named
   * `title`): the feed of the events it lists, named after the site and what it is filtered by.
   */
  subscribe(page: PageRequest, filters: FilterChoices | undefined, only: ListEventsQuery = {}, title?: string): SubscribeLinks {
    const chosen = filters === undefined ? [] : [filters.categories, filters.tags, filters.venues, filters.organizers].flat();
    const names = chosen.filter((option) => option.selected).map((option) => option.label);
    if (title !== undefined) names.push(title);
    const name = feedName(page.caller.settings, page.language.language, names, filters?.search);
    return subscribeLinks(this.services.deps.site.namespaceUrl, { ...listFilters(page.query), ...only }, name);
  }

  /** The card of `event`, with its time as shown on `day` (none: a list's card). */
  card(page: PageRequest, event: EventSummary, day?: string): EventCard {
    if (event.color !== undefined) page.colors.add(event.color);
    return cardOf(event, page.links, page.language.language, page.t, page.caller.settings, day);
  }

  /**
   * The choices of the filter form: the most used categories and tags, the latest venues and organizers (at most
   * `FILTER_LIST_MAX` of each), plus the current ones wherever they rank; each list by name, the current ones selected.
   */
  async filterChoices(page: PageRequest): Promise<FilterChoices> {
    const { caller, query } = page;
    // The same for every page of a language until the calendar changes: read once per version (ADR 22).
    const lists = await (
      await caller.version()
    ).once(
      cacheKey('pages-filter-lists', caller.language),
      () => this.filterLists(caller),
      (read) => JSON.stringify(read).length,
    );
    const collator = collatorOf(caller.language);
    const byLabel = (options: Option[]) => options.sort((a, b) => collator.compare(a.label, b.label));
    const termOptions = async (service: 'categories' | 'tags', terms: Term[], current: string | undefined) => {
      const options = terms.map((term) => ({ value: term.slug, label: plainText(term.name), selected: term.slug === current }));
      // A current term beyond the list is read for its name (an unknown one is the events list's 400).
      if (current !== undefined && !options.some((option) => option.selected)) {
        const { list } = await this.services[service].list(
          { slug: current, hide_empty: false, page: 1, per_page: 1, parent: undefined },
          caller,
        );
        for (const term of termsOf(list, service)) options.push({ value: term.slug, label: plainText(term.name), selected: true });
      }
      return byLabel(options);
    };
    const postOptions = async (kind: 'venue' | 'organizer', items: ReadonlyArray<Record<string, unknown>>, current: number | undefined) => {
      const options = items.map((item) => ({ value: String(item.id), label: plainText(item[kind]), selected: item.id === current }));
      if (current !== undefined && !options.some((option) => option.selected)) {
        const found = await this.services[kind === 'venue' ? 'venues' : 'organizers'].listByIds([current], caller);
        for (const item of found) options.push({ value: String(item.id), label: plainText(item[kind]), selected: true });
      }
      return byLabel(options);
    };
    const [categories, tags, venues, organizers] = await Promise.all([
      termOptions('categories', lists.categories, query.category),
      termOptions('tags', lists.tags, query.tag),
      postOptions('venue', lists.venues, query.venue),
      postOptions('organizer', lists.organizers, query.organizer),
    ]);
    return { search: query.search ?? '', categories, tags, venues, organizers, active: filterPairs(query).length > 0 };
  }

  private async filterLists(caller: RequestContext): Promise<FilterLists> {
    const { categories, tags, venues, organizers } = this.services;
    // Terms the published events use, the most used first; venues and organizers as their archives list them, the latest first.
    const termQuery = { page: 1, per_page: FILTER_LIST_MAX, parent: undefined, orderby: 'count' as const, order: 'desc' };
    const postQuery = { page: 1, per_page: FILTER_LIST_MAX };
    const [categoryList, tagList, venueList, organizerList] = await Promise.all([
      categories.list(termQuery, caller),
      tags.list(termQuery, caller),
      venues.list(postQuery, caller, ''),
      organizers.list(postQuery, caller, ''),
    ]);
    return {
      categories: termsOf(categoryList.list, 'categories'),
      tags: termsOf(tagList.list, 'tags'),
      venues: venueList.items as ReadonlyArray<Record<string, unknown>>,
      organizers: organizerList.items as ReadonlyArray<Record<string, unknown>>,
    };
  }
}

const collators = new Map<string, Intl.Collator>();
/** Names in the order of a language (one collator per language: making one costs more than a sort of 50). */
function collatorOf(language: string): Intl.Collator {
  let collator = collators.get(language);
  if (collator === undefined) collators.set(language, (collator = new Intl.Collator(language)));
  return collator;
}
