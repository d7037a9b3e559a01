import type { Kysely } from 'kysely';
import type { Config } from '../../config/config.ts';
import type { Database } from '../../platform/db/schema.ts';
import type { EventWithRow } from '../events/events.present.ts';
import type { EventRow } from '../events/events.repository.ts';
import type { EventsService } from '../events/events.service.ts';
import type { ListEventsQuery, ReadEventQuery } from '../events/events.schemas.ts';
import type { FeedQuery } from './ical.schemas.ts';
import { isOccurrence, isSeries, recurrenceLines } from '../recurrence/recurrence.series.ts';
import type { RequestContext } from '../common/context.ts';
import { toICalendar, type FeedComponent } from './ical.feed.ts';
import { findExceptionStarts, findImportedUids, type OriginalStart } from './ical.repository.ts';
import { ownEventUid } from './ical.uid.ts';
import { decodeEntities } from './ical.text.ts';
import { feedName } from '../common/site-title.ts';
import { parseIdList } from '../common/wire.ts';
import type { TermsService } from '../terms/terms.service.ts';
import type { LinkedPostsService } from '../linked-posts/linked-posts.service.ts';

/** How often calendar apps are asked to poll (REFRESH-INTERVAL, X-PUBLISHED-TTL). */
const REFRESH_SECONDS = 3600;

export interface IcalServiceDeps {
  readonly db: Kysely<Database>;
  readonly config: Config;
  readonly events: EventsService;
  /** What a feed's filters name, for its name. */
  readonly categories: TermsService;
  readonly tags: TermsService;
  readonly venues: LinkedPostsService;
  readonly organizers: LinkedPostsService;
}

/** The website an event was given, as the caller may see it ('' for none: the JSON's falls back to the event's page). */
const websiteOf = ({ event, row }: EventWithRow): string => (event.website === '' ? '' : (row.website ?? ''));

/**
 * iCalendar feeds of the events the JSON API lists and reads: the events
 * come from the events service (its filters, visibility and password rules,
 * by construction), and are grouped here into VEVENTs: a single event as
 * one; the occurrences of a series as the series' master with its
 * RRULE/EXDATE/RDATE, plus one VEVENT with RECURRENCE-ID per occurrence
 * changed on its own.
 */
export class IcalService {
  constructor(private readonly deps: IcalServiceDeps) {}

  /** `/events.ics`: the first ICAL_MAX_EVENTS items of `/events` with the same filters. */
  async listFeed(query: FeedQuery, caller: RequestContext, now: Date = new Date()): Promise<string> {
    const shown = await this.deps.events.listEventsWithRows(query, caller, now, this.deps.config.icalMaxEvents);
    const components = await this.componentsOf(shown, query, caller, now);
    return this.calendar(await this.nameOf(query, caller), caller, components);
  }

  /**
   * The site's title and what the feed is filtered by, in the feed's language ("Calendar · Jazz"), as the pages
   * name it when they offer it. The list has refused unknown filters already.
   */
  private async nameOf(query: FeedQuery, caller: RequestContext): Promise<string> {
    const { categories, tags, venues, organizers } = this.deps;
    const terms = (service: TermsService, items: unknown, param: 'categories' | 'tags') =>
      items === undefined ? [] : service.named(items, caller, param).then((found) => found.map((term) => term.name));
    const posts = (service: LinkedPostsService, ids: unknown, param: 'venue' | 'organizer') =>
      ids === undefined ? [] : service.listByIds(parseIdList(ids, param), caller).then((found) => found.map((post) => post[param]));
    const names = await Promise.all([
      terms(categories, query.categories, 'categories'),
      terms(tags, query.tags, 'tags'),
      posts(venues, query.venue, 'venue'),
      posts(organizers, query.organizer, 'organizer'),
    ]);
    const filters = names.flat().map((name) => decodeEntities(String(name)));
    return feedName(caller.settings, caller.language, filters, query.search);
  }

  /**
   * `/events/{id}.ics`: a single event; a series with every exception it has; an occurrence alone, as the
   * single event it is on that day (its own stable UID: a file for one day, not a second copy of the series).
   */
  async eventFeed(id: number, query: ReadEventQuery, caller: RequestContext, now: Date = new Date()): Promise<string> {
    const one = await this.deps.events.getEventWithRow({ id }, query, caller);
    return (await this.feedsOf([one], query, caller, now)).get(id) as string;
  }

  /**
   * `eventFeed` of each of `ids` the caller may read, read together, with the row each was made from; those a
   * single read would refuse left out.
   */
  async eventFeeds(
    ids: readonly number[],
    caller: RequestContext,
    now: Date = new Date(),
  ): Promise<Map<number, { row: EventRow; ics: string }>> {
    const shown = await this.deps.events.getEventsWithRows(ids, {}, caller);
    const feeds = await this.feedsOf(shown, {}, caller, now);
    return new Map(shown.map((one) => [one.row.id, { row: one.row, ics: feeds.get(one.row.id) as string }]));
  }

  /** Each event's own feed, by id: its UID, and for a series the exceptions the caller's list shows, each read in one batch. */
  private async feedsOf(shown: readonly EventWithRow[], query: ReadEventQuery, caller: RequestContext, now: Date) {
    const uids = await this.uidsOf(shown.map((one) => one.row.id));
    const seriesIds = shown.filter((one) => isSeries(one.row)).map((one) => one.row.id);
    const exceptionIds = [...(await findExceptionStarts(this.deps.db, seriesIds)).values()].flatMap((starts) => [...starts.keys()]);
    const listed = { include: exceptionIds.map(String), ...query };
    const exceptions = exceptionIds.length === 0 ? [] : await this.deps.events.listEventsWithRows(listed, caller, now, exceptionIds.length);
    const feeds = new Map<number, string>();
    for (const [index, one] of shown.entries()) {
      const uid = uids[index] as string;
      const components: FeedComponent[] = [];
      if (isSeries(one.row)) {
        const own = exceptions.filter((item) => item.row.parent_id === one.row.id);
        components.push(this.master(one, uid, own, new Map()));
        for (const exception of own) components.push(this.exception(exception, uid));
      } else {
        components.push({ uid, sequence: one.row.sequence, event: one.event, website: websiteOf(one) });
      }
      feeds.set(one.row.id, this.calendar(components[0]?.event.title ?? '', caller, components, true));
    }
    return feeds;
  }

  private calendar(name: string, caller: RequestContext, components: readonly FeedComponent[], single = false): string {
    return toICalendar({
      name,
      siteTimezone: caller.site.timezone,
      language: caller.language,
      refreshSeconds: REFRESH_SECONDS,
      components,
      single,
    });
  }

  /** UIDs by event id, in the order asked: imported ones, else this calendar's own. */
  private async uidsOf(ids: readonly number[]): Promise<string[]> {
    const imported = await findImportedUids(this.deps.db, ids);
    return ids.map((id) => imported.get(id) ?? ownEventUid(id, this.deps.config.baseUrl));
  }

  private async componentsOf(shown: readonly EventWithRow[], query: ListEventsQuery, caller: RequestContext, now: Date) {
    const seriesIds = [...new Set(shown.filter((item) => isOccurrence(item.row)).map((item) => item.row.parent_id as number))];
    const masters = new Map((await this.deps.events.listSeriesWithRows(seriesIds, query, caller, now)).map((item) => [item.row.id, item]));
    const exceptionStarts = await findExceptionStarts(this.deps.db, seriesIds);
    const singles = shown.filter((item) => !isOccurrence(item.row)).map((item) => item.row.id);
    const uidList = await this.uidsOf([...singles, ...seriesIds]);
    const uids = new Map([...singles, ...seriesIds].map((id, index) => [id, uidList[index] as string]));
    const components: FeedComponent[] = [];
    const written = new Set<number>();
    for (const item of shown) {
      const seriesId = item.row.parent_id;
      const master = seriesId === null ? undefined : masters.get(seriesId);
      if (!isOccurrence(item.row) || master === undefined) {
        components.push({
          uid: uids.get(item.row.id) ?? ownEventUid(item.row.id, this.deps.config.baseUrl),
          sequence: item.row.sequence,
          event: item.event,
          website: websiteOf(item),
        });
        continue;
      }
      const uid = uids.get(master.row.id) as string;
      if (!written.has(master.row.id)) {
        written.add(master.row.id);
        const exceptionsShown = shown.filter((other) => other.row.parent_id === master.row.id && other.row.is_exception === 1);
        components.push(this.master(master, uid, exceptionsShown, exceptionStarts.get(master.row.id) ?? new Map()));
      }
      if (item.row.is_exception === 1) components.push(this.exception(item, uid));
    }
    return components;
  }

  /** A series' master VEVENT; its exceptions not in the feed are excluded from its rule (never shown as the rule made them). */
  private master(
    series: EventWithRow,
    uid: string,
    shownExceptions: readonly EventWithRow[],
    allExceptions: ReadonlyMap<number, OriginalStart>,
  ): FeedComponent {
    const inFeed = new Set(shownExceptions.map((item) => item.row.id));
    const excluded = [...allExceptions].filter(([id]) => !inFeed.has(id)).map(([, start]) => start);
    return {
      uid,
      sequence: series.row.sequence,
      event: series.event,
      website: websiteOf(series),
      series: { lines: recurrenceLines(series.row.recurrence ?? '[]'), excluded },
    };
  }

  private exception(item: EventWithRow, uid: string): FeedComponent {
    return {
      uid,
      sequence: item.row.sequence,
      event: item.event,
      website: websiteOf(item),
      replaces: { local: item.row.original_start_local as string, utc: item.row.original_start_utc as string },
    };
  }
}
