import type { Config } from '../../config/config.ts';
import { can } from '../calendar.capabilities.ts';
import { cacheBudgets, ReadCache } from '../../platform/cache/read-cache.ts';
import type { Db } from '../../platform/db/schema.ts';
import { behind, GroupCommit } from '../../platform/db/group-commit.ts';
import { AppError, PlatformErrors } from '../../platform/errors.ts';
import { canDelete, canEdit, canRead, datedStatus, scaleStatus } from '../posts/posts.access.ts';
import type { PostPasswords } from '../posts/posts.passwords.ts';
import { deleteSlugs, deleteTexts, findFieldInAllLanguages, upsertTexts } from '../posts/posts.repository.ts';
import { claimLanguageSlug, claimNewPostSlug } from '../posts/posts.slugs.ts';
import { checkAuthor, newPostDates, publicationDates, stampsAt } from '../posts/posts.writes.ts';
import { NAMESPACE, type CalendarDeps, type RequestContext } from '../common/context.ts';
import { attachWrittenImage, resolveImageForWrite } from '../common/images.ts';
import type { ImageSideLoader } from '../media/media.sideload.ts';
import { archiveLinks, isBeyondLastPage, linkPairs, pageWindow, totalPages } from '../common/pagination.ts';
import { invalidParam, parseWpBoolean } from '../common/wire.ts';
import { venueForWrite } from '../venues/venues.links.ts';
import { eventLinkWrites } from './events.links.ts';
import { checkPrecondition, missingItem } from '../changes/changes.preconditions.ts';
import type { Versioned } from '../common/versioned.ts';
import {
  isOccurrence,
  isSeries,
  recurrenceMovedTo,
  recurrenceOfWrite,
  SeriesOccurrences,
  seriesLimits,
} from '../recurrence/recurrence.series.ts';
import { listEcho, listFilter } from './events.filters.ts';
import { EventListing } from './events.listing.ts';
import { costChanges, flagChanges, scheduleOf, textsOf, touchesSchedule, websiteOf } from './events.input.ts';
import { dayGrid, type EventDays } from './events.days.ts';
import { eventNotFound, eventOf, type EventRef } from './events.lookup.ts';
import type { EventUrls } from './events.mapper.ts';
import { detachOccurrence, excludeOccurrence, refreshSeries, refuseSeriesFields, splitAt } from './events.occurrences.ts';
import { EventRepresentations } from './events.representations.ts';
import { readErrors, SingleEventReads } from './events.single.ts';
import { EventPresenter, type EventWithRow } from './events.present.ts';
import {
  deleteEvent as deleteEventRow,
  findEventsByIds,
  findEventForWrite,
  findEventWithVersion,
  insertNewEvent,
  listEvents as listEventRows,
  listEventSpans,
  updateEvent as updateEventRow,
  type EventChanges,
  type EventOrder,
  type EventRow,
  type NewEventRow,
} from './events.repository.ts';
import {
  DEFAULT_PER_PAGE,
  MAX_PER_PAGE,
  type CreateEventBody,
  type DeleteEventQuery,
  type EventList,
  type EventResponse,
  type InstancesQuery,
  type ListEventsQuery,
  type ReadEventQuery,
  type UpdateEventBody,
} from './events.schemas.ts';

/** A list besides its arguments: its archive's URL, its order and author (the editor's; no API argument), what its request sent. */
type ListOptions = Readonly<{ archiveUrl?: string; order?: EventOrder; sent?: readonly string[]; author?: number }>;

// The end of the default window of a series' instances: every stored occurrence.
const LAST_DAY = '9999-12-31';

export interface EventsServiceDeps extends Partial<Pick<CalendarDeps, 'background'>> {
  readonly db: Db;
  readonly config: Config;
  readonly passwords: PostPasswords;
  /** Anonymous representations cached per event (EVENT_CACHE_MB); none cached when absent. */
  readonly representations?: EventRepresentations;
  readonly now?: () => Date;
  /** Fetches the image URLs of other sites a write names (none fetched, only recorded, when absent). */
  readonly images?: ImageSideLoader;
}

const errors = {
  ...readErrors,
  inTrash: () => new AppError(410, 'event-is-in-trash', 'The event is already trashed'),
  pageNotFound: () => new AppError(404, 'event-archive-page-not-found', 'The requested event archive page does not exist'),
};

/** The events of calendar/events/v1: list, read, create, update, trash and delete. */
export class EventsService {
  private readonly db: Db;
  private readonly urls: EventUrls;
  private readonly now: () => Date;
  private readonly series: SeriesOccurrences;
  private readonly presenter: EventPresenter;
  /** What lists are assembled from (their answers' bytes). */
  readonly representations: EventRepresentations;
  private readonly single: SingleEventReads;
  private readonly writes: GroupCommit;

  constructor(private readonly deps: EventsServiceDeps) {
    this.db = deps.db;
    this.series = new SeriesOccurrences(seriesLimits(deps.config));
    this.urls = { baseUrl: deps.config.baseUrl, namespaceUrl: `${deps.config.baseUrl}/${NAMESPACE}` };
    this.representations = deps.representations ?? new EventRepresentations(new ReadCache(cacheBudgets(0)));
    this.presenter = new EventPresenter(this.urls, deps.passwords, this.representations);
    this.single = new SingleEventReads(this.db, this.presenter);
    this.writes = new GroupCommit(this.db, deps.background);
    this.now = deps.now ?? (() => new Date());
  }

  // -------------------------------------------------------------------------
  // Reads

  /** A page of the occurrences of a series, as the list shows them (its archive links lead back here). */
  async listInstances(id: number, query: InstancesQuery, caller: RequestContext, sent: readonly string[] = []): Promise<EventList> {
    const now = this.now();
    const series = await eventOf(this.db, { id });
    if (series.status === 'trash') throw errors.noLongerAvailable();
    if (!canRead(caller.user, series, now)) throw errors.notAccessible();
    if (!isSeries(series)) throw invalidParam('id', 'The event is no recurring series.');
    const window = { start_date: query.start_date ?? series.start_local, end_date: query.end_date ?? LAST_DAY };
    return this.listEvents({ ...query, ...window, post_parent: id }, caller, now, {
      archiveUrl: `${this.urls.namespaceUrl}/events/${id}/instances`,
      sent,
    });
  }

  /** A page of events as of `asked` or its version's start if later: anonymous rows from the cache, others in one read. */
  async listEvents(
    query: ListEventsQuery,
    caller: RequestContext,
    asked: Date = this.now(),
    { archiveUrl = `${this.urls.namespaceUrl}/events/`, order = 'asc', sent = [], author }: ListOptions = {},
  ): Promise<EventList> {
    const page = query.page ?? 1;
    const perPage = Math.min(MAX_PER_PAGE, query.per_page ?? DEFAULT_PER_PAGE);
    const version = await caller.version();
    const now = version.instantFrom(asked);
    const filter = { ...(await listFilter(this.db, query, caller, now)), ...(author === undefined ? {} : { authorId: author }) };
    const listing = new EventListing(this.db, version, filter);
    const total = await listing.total();
    const pages = totalPages(total, perPage);
    if (isBeyondLastPage(page, total, perPage)) throw errors.pageNotFound();
    const { limit, offset } = pageWindow(page, perPage);
    const pageRows = async () =>
      caller.user === null
        ? this.presenter.rowsOf(this.db, await listing.pageIds(limit, offset, order), caller)
        : listEventRows(this.db, filter, limit, offset, order);
    const rows = total === 0 ? [] : await pageRows();
    const shown = await this.presenter.listed(this.db, rows, query, caller, now, version);
    const links = archiveLinks(archiveUrl, linkPairs(listEcho(query, perPage, caller.user), query, sent), page, pages);
    return { events: shown.map(({ event }) => event), ...links, total, total_pages: pages };
  }

  /**
   * The first `max` events of a list (its `page` and `per_page` aside), each with its stored row: what an
   * iCalendar feed is made of, by the very filter, visibility, password and instant rules of `listEvents`.
   */
  async listEventsWithRows(query: ListEventsQuery, caller: RequestContext, asked: Date, max: number): Promise<EventWithRow[]> {
    const version = await caller.version();
    const now = version.instantFrom(asked);
    const filter = await listFilter(this.db, query, caller, now);
    return this.presenter.listed(this.db, await listEventRows(this.db, filter, max, 0), query, caller, now, version);
  }

  /**
   * A calendar grid of `days` (consecutive local days): how many events of the list run on each, and the summaries
   * of each day's first `perDay` (by the list's filter, visibility and password rules). Every event of the window is
   * counted from the listing index (once per version for an anonymous grid, as a list's pages); only the shown ones
   * are read, by id, and one the caller may no longer read (a write in between) is left out.
   */
  async listDays(query: ListEventsQuery, caller: RequestContext, asked: Date, days: readonly string[], perDay: number): Promise<EventDays> {
    const version = await caller.version();
    const now = version.instantFrom(asked);
    const filter = await listFilter(this.db, query, caller, now);
    const grid = caller.user === null ? new EventListing(this.db, version, filter).days(days, perDay) : undefined;
    const { counts, firsts } = (await grid) ?? dayGrid(await listEventSpans(this.db, filter), days, perDay);
    const ids = [...new Set(firsts.flat())];
    const rows = (await findEventsByIds(this.db, ids)).filter((row) => row.status !== 'trash' && canRead(caller.user, row, now));
    const summaries = new Map((await this.presenter.summarized(this.db, rows, query, caller, now)).map((summary) => [summary.id, summary]));
    return { counts, shown: firsts.map((day) => day.flatMap((id) => summaries.get(id) ?? [])) };
  }

  /** The events among `ids` that a list shows the caller (whatever their dates), as it shows them: what a sync sends. */
  async listByIds(ids: readonly number[], caller: RequestContext, now: Date): Promise<EventWithRow[]> {
    return ids.length === 0 ? [] : this.listEventsWithRows({ include: ids.map(String) }, caller, now, ids.length);
  }

  /** Series as a list shows them to the caller (those it may not read left out): the masters of a feed's occurrences. */
  async listSeriesWithRows(ids: readonly number[], query: ListEventsQuery, caller: RequestContext, asked: Date): Promise<EventWithRow[]> {
    const version = await caller.version();
    const now = version.instantFrom(asked);
    const rows = (await findEventsByIds(this.db, ids)).filter(
      (row) => isSeries(row) && row.status !== 'trash' && canRead(caller.user, row, now),
    );
    return this.presenter.listed(this.db, rows, query, caller, now, version);
  }

  /** One event, with its version (its ETag names it). */
  async getEvent(ref: EventRef, query: ReadEventQuery, caller: RequestContext): Promise<Versioned<EventResponse>> {
    return this.single.withJsonLd(await this.single.read(ref, query, caller, this.now()), caller);
  }

  /** One event as `getEvent` gives it (same errors), with its stored row and without JSON-LD. */
  async getEventWithRow(ref: EventRef, query: ReadEventQuery, caller: RequestContext): Promise<EventWithRow> {
    const { row, event } = await this.single.read(ref, query, caller, this.now());
    return { row, event };
  }

  /** The events among `ids` that `getEventWithRow` would give, read together; those it would refuse left out. */
  async getEventsWithRows(ids: readonly number[], query: ReadEventQuery, caller: RequestContext): Promise<EventWithRow[]> {
    return ids.length === 0 ? [] : this.single.readMany(ids, query, caller, this.now());
  }

  /**
   * The event as `trx` sees it, with its version: the last thing a write does (and an import's before and after).
   * `linked`: the row as the write left it, whose embeds are read along with the row.
   */
  async written(trx: Db, id: number, caller: RequestContext, linked?: EventRow): Promise<Versioned<EventResponse>> {
    const reading = findEventWithVersion(trx, id);
    const ahead = await behind(reading, async () => (linked === undefined ? undefined : this.presenter.embedsOf(trx, linked, caller)));
    const found = await reading;
    if (found === undefined) throw eventNotFound(id);
    return { item: await this.presenter.writtenWith(trx, found.row, ahead, caller, this.now()), version: found.version };
  }

  // -------------------------------------------------------------------------
  // Writes

  /**
   * A write's read–check–write, in one transaction that holds the event:
   * the event is read again there and checked by `check`, so a concurrent
   * write or delete either happened before (and is seen) or waits. An event
   * deleted meanwhile is a clean 404 with nothing written (412 to a write
   * that sent If-Match, which `work` checks once it has checked permissions).
   * `along`: reads asked for right behind the event's (on PostgreSQL in its round trip), which see it held.
   */
  private async withEvent<T, A>(
    found: EventRow,
    caller: RequestContext,
    along: ((trx: Db) => Promise<A>) | undefined,
    work: (trx: Db, row: EventRow, read: A | undefined) => Promise<T>,
  ): Promise<T> {
    const { id } = found;
    return this.writes.run(async (trx) => {
      // An occurrence is written with its series held first, in the order a write of the series takes them.
      if (isOccurrence(found) && (await findEventForWrite(trx, found.parent_id as number)) === undefined) {
        throw missingItem(caller, eventNotFound(id));
      }
      const holding = findEventForWrite(trx, id);
      const read = await behind(holding, async () => along?.(trx));
      const row = await holding;
      if (row === undefined) throw missingItem(caller, eventNotFound(id));
      return work(trx, row, read);
    });
  }

  async createEvent(sent: CreateEventBody, caller: RequestContext): Promise<Versioned<EventResponse>> {
    const now = this.now();
    const user = caller.user;
    const body = (await this.deps.images?.prepareAll(sent, user)) ?? sent;
    const schedule = scheduleOf(body, undefined, caller.site.timezone, now);
    const website = websiteOf(body.website);
    const author = (await checkAuthor(this.db, body.author, user)) ?? user?.id ?? null;
    const posted = newPostDates(body, caller.site.timezone, now);
    const passwordHash = (await this.deps.passwords.hashOf(body.password)) ?? null;
    const texts = textsOf(body);
    const cost = costChanges(body.cost);
    const recurrence = recurrenceOfWrite(body.recurrence) ?? null;

    return this.writes.run(async (trx) => {
      const imageId = body.image === undefined ? null : await resolveImageForWrite(trx, body.image, user, caller.site.baseUrl);
      const venue = body.venue === undefined ? undefined : await venueForWrite(trx, body.venue, caller, this.deps.passwords);
      const row: Omit<NewEventRow, 'id'> = {
        author_id: author,
        status: datedStatus(scaleStatus(user, body.status), posted.date_utc, now),
        ...posted,
        // A new post was last modified when it is dated (WordPress's wp_insert_post); updates take the time of the request.
        modified: posted.date,
        modified_utc: posted.date_utc,
        password_hash: passwordHash,
        image_id: imageId,
        parent_id: null,
        ...schedule,
        cost: cost.cost ?? null,
        currency_symbol: cost.currency_symbol ?? '',
        currency_position: cost.currency_position ?? '',
        currency_code: '',
        website: website ?? null,
        show_map: 0,
        show_map_link: 0,
        hide_from_listings: 0,
        sticky: 0,
        featured: 0,
        ...flagChanges(body),
        venue_id: venue?.value ?? null,
        recurrence,
        original_start_local: null,
        original_start_utc: null,
      };
      const inserting = behind(venue?.checked ?? Promise.resolve(), () => insertNewEvent(trx, row));
      const slug = await claimNewPostSlug(trx, 'event', inserting, body.slug ?? texts.title ?? '');
      const inserted = await inserting;
      const eventId = inserted.id;
      await attachWrittenImage(trx, imageId, eventId);
      // Nothing below needs the answer of the texts: a plain create asks for its answer with them.
      return behind(upsertTexts(trx, 'event', eventId, caller.language, { ...texts, slug }), async () => {
        // A new event's links are asked for at once: what follows is sent behind them.
        const links = await eventLinkWrites(trx, eventId, body, caller, this.deps.passwords, []);
        return behind(links.written, async () => {
          if (recurrence !== null) await refreshSeries(trx, this.series, eventId, now);
          return this.written(trx, eventId, caller, inserted);
        });
      });
    });
  }

  /** Deviation 1: only what is sent changes. */
  async updateEvent(ref: EventRef, sent: UpdateEventBody, caller: RequestContext): Promise<Versioned<EventResponse>> {
    const now = this.now();
    const user = caller.user;
    const found = await eventOf(this.db, ref, caller);
    // Checked here for the order of errors (403 before 400s), and again on the row the write holds.
    if (!canEdit(user, found, now)) throw PlatformErrors.forbidden(user !== null);
    const body = (await this.deps.images?.prepareAll(sent, user)) ?? sent;
    const following = body.scope === 'following';
    if (following && !isOccurrence(found)) throw invalidParam('scope', 'scope=following applies to an occurrence of a series.');
    // Through an occurrence, "this and following" writes the series cut from it; else the occurrence alone.
    const occurrence = isOccurrence(found) && !following;
    if (occurrence) refuseSeriesFields(body);
    const recurrence = recurrenceOfWrite(body.recurrence);
    // What needs no stored row, and the slow password hash, before the write lock.
    const reschedules = touchesSchedule(body);
    if (reschedules) scheduleOf(body, found, caller.site.timezone, now);
    const website = websiteOf(body.website);
    const author = await checkAuthor(this.db, body.author, user);
    const posted = publicationDates(body, caller.site.timezone, now);
    const passwordHash = await this.deps.passwords.hashOf(body.password);
    const texts = textsOf(body);
    const modified = stampsAt(caller.site.timezone, now);

    // The event's slugs in every language, read with it when the write may claim one for it.
    const slugs = occurrence || following ? undefined : (trx: Db) => findFieldInAllLanguages(trx, 'event', found.id, 'slug');
    return this.withEvent(found, caller, slugs, async (trx, held, current) => {
      if (!canEdit(user, held, now)) throw PlatformErrors.forbidden(user !== null);
      await checkPrecondition(trx, caller, 'event', held.id);
      const row = following ? await splitAt(trx, this.series, held, now) : held;
      const schedule = reschedules ? scheduleOf(body, row, caller.site.timezone, now) : undefined;
      // A series that moves takes its exclusions along, unless the write says what they are.
      const moved =
        schedule !== undefined && recurrence === undefined && isSeries(row) ? recurrenceMovedTo(row, schedule.start_local) : undefined;
      const changes: EventChanges = {
        ...schedule,
        ...(moved === undefined ? {} : { recurrence: moved }),
        ...costChanges(body.cost),
        ...flagChanges(body),
        modified: modified.local,
        modified_utc: modified.utc,
        sequence: row.sequence + 1,
        ...(website === undefined ? {} : { website }),
        ...(author === undefined ? {} : { author_id: author }),
        ...(posted ?? {}),
        ...(passwordHash === undefined ? {} : { password_hash: passwordHash }),
        ...(recurrence === undefined ? {} : { recurrence }),
        // An occurrence changed on its own keeps its changes when its series is edited.
        ...(occurrence ? { is_exception: 1 } : {}),
      };
      if (body.status !== undefined) changes.status = datedStatus(scaleStatus(user, body.status), posted?.date_utc ?? row.date_utc, now);
      else if (posted !== undefined) changes.status = datedStatus(row.status, posted.date_utc, now);
      if (body.image !== undefined) changes.image_id = await resolveImageForWrite(trx, body.image, user, caller.site.baseUrl);
      if (occurrence) await detachOccurrence(trx, row);
      const venue = body.venue === undefined ? undefined : await venueForWrite(trx, body.venue, caller, this.deps.passwords);
      if (venue !== undefined) changes.venue_id = venue.value;
      // What follows needs the answer of neither the row's update nor its texts': a plain update asks for its answer with them.
      const updating = behind(venue?.checked ?? Promise.resolve(), () => updateEventRow(trx, row.id, changes));
      return behind(updating, async () => {
        await attachWrittenImage(trx, changes.image_id, row.id);
        // An occurrence is reached through its series' slug: it claims none of its own.
        const slug = occurrence
          ? undefined
          : await claimLanguageSlug(trx, 'event', row.id, caller.language, { explicit: body.slug, title: texts.title }, current);
        return behind(upsertTexts(trx, 'event', row.id, caller.language, slug === undefined ? texts : { ...texts, slug }), async () => {
          const links = await eventLinkWrites(trx, row.id, body, caller, this.deps.passwords);
          await links.written;
          if (!occurrence && (row.recurrence !== null || recurrence !== undefined)) await refreshSeries(trx, this.series, row.id, now);
          // "This and following" answers with the series cut from the occurrence: another item, whose version is not the occurrence's.
          if (row.id !== held.id) return { item: await this.presenter.written(trx, row.id, caller, this.now()), version: undefined };
          return this.written(trx, row.id, caller, { ...row, ...changes } as EventRow);
        });
      });
    });
  }

  /** Trashes the event, or deletes it (`force`); a deleted event has no version left. */
  async deleteEvent(ref: EventRef, query: DeleteEventQuery, caller: RequestContext): Promise<Versioned<EventResponse>> {
    const found = await eventOf(this.db, ref, caller);
    const { id } = found;
    const user = caller.user;
    const force = parseWpBoolean(query.force) === true;
    // What a delete answers with is read with the event it holds.
    const last = force ? (trx: Db) => this.presenter.embedsOf(trx, found, caller) : undefined;
    return this.withEvent(found, caller, last, async (trx, row, ahead) => {
      const now = this.now();
      if (!canDelete(user, row, now)) throw PlatformErrors.forbidden(user !== null);
      // Every permission before the precondition: a forced delete takes delete_others, but an occurrence is excluded from its
      // series whatever `force` says.
      if (force && !isOccurrence(row) && !can(user?.role ?? null, 'delete_others')) throw PlatformErrors.forbidden(user !== null);
      await checkPrecondition(trx, caller, 'event', id);
      if (isOccurrence(row)) {
        const item = await this.presenter.writtenWith(trx, row, ahead, caller, this.now());
        await excludeOccurrence(trx, this.series, row, caller.site.timezone, now);
        return { item, version: undefined };
      }
      if (force) {
        const item = await this.presenter.writtenWith(trx, row, ahead, caller, this.now());
        if (isSeries(row)) await this.series.forget(trx, id);
        // In this order, answered together.
        await behind(deleteTexts(trx, 'event', [id]), () => behind(deleteSlugs(trx, 'event', id), () => deleteEventRow(trx, id)));
        return { item, version: undefined };
      }
      if (row.status === 'trash') throw errors.inTrash();
      const modified = stampsAt(caller.site.timezone, now);
      return behind(updateEventRow(trx, id, { status: 'trash', modified: modified.local, modified_utc: modified.utc }), async () => {
        if (isSeries(row)) await refreshSeries(trx, this.series, id, now);
        return this.written(trx, id, caller, row);
      });
    });
  }
}
