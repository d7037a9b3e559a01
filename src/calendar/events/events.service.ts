import type { Kysely } from 'kysely';
import type { Config } from '../../config/config.ts';
import type { AuthUser } from '../../platform/auth/authenticate.ts';
import { can } from '../calendar.capabilities.ts';
import { hashPassword } from '../../platform/auth/passwords.ts';
import type { Database } from '../../platform/db/schema.ts';
import { AppError, PlatformErrors } from '../../platform/errors.ts';
import { resolveOrganizersForWrite, setEventOrganizers } from '../organizers/organizers.links.ts';
import type { RequestContext } from '../shared/context.ts';
import type { PasswordAttempt, PostPasswords } from '../shared/post-passwords.ts';
import { endOfDay, fromInstant, fromWallTime, isValidZoneName, nowIn, parseDate, startOfDay, type Stamp, type ZonedMoment } from '../shared/dates.ts';
import { sanitizeContent, sanitizeText } from '../shared/html.ts';
import { resolveImageForWrite } from '../shared/images.ts';
import { archiveLinks, isBeyondLastPage, pageWindow, totalPages } from '../shared/pagination.ts';
import { currentCalendarVersion } from '../shared/calendar-version.ts';
import { canDelete, canEdit, canRead, scaleStatus, utcStamp } from '../shared/permissions.ts';
import { claimLanguageSlug, claimSlug, findIdBySlug, releaseSlugs, sanitizeSlug } from '../shared/slugs.ts';
import { deleteTranslations, writeTranslations } from '../shared/translations.ts';
import { invalidParam, isHttpUrl, MAX_ID, parseWpBoolean } from '../shared/wire.ts';
import { resolveTermsForWrite, setEventTerms } from '../terms/terms.links.ts';
import { resolveVenueForWrite } from '../venues/venues.links.ts';
import { parseCurrency } from './events.cost.ts';
import { loadEventEmbeds } from './events.embeds.ts';
import { listEcho, listFilter } from './events.filters.ts';
import { EventTotals } from './events.totals.ts';
import { NO_EMBEDS, stripProtectedEvent, toEventJsonLd, toEventResponse, type EventUrls } from './events.mapper.ts';
import {
  countEvents,
  deleteEvent as deleteEventRow,
  findEventById,
  findEventForWrite,
  findPostType,
  insertEvent,
  listEvents as listEventRows,
  reserveEventId,
  updateEvent as updateEventRow,
  userExists,
  type EventChanges,
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
  type ListEventsQuery,
  type ReadEventQuery,
  type UpdateEventBody,
} from './events.schemas.ts';

type Db = Kysely<Database>;

/** An event addressed by its id or by one of its slugs. */
export type EventRef = { readonly id: number } | { readonly slug: string };

/** Who asks, from where (the address throttles password guesses). */
export interface Caller extends RequestContext {
  readonly address: string;
}

export interface EventsServiceDeps {
  readonly db: Db;
  readonly config: Config;
  readonly namespaceUrl: string;
  readonly passwords: PostPasswords;
  readonly now?: () => Date;
}

const errors = {
  notFound: (id: number) => new AppError(404, 'rest-event-not-found', `Event with ID ${id} does not exist.`),
  notAnEvent: () => new AppError(400, 'rest-invalid-event-id', 'The specified ID is not a valid event.'),
  noLongerAvailable: () => new AppError(403, 'event-no-longer-available', 'This event is no longer available'),
  notAccessible: () => new AppError(403, 'event-not-accessible', 'The requested event is not accessible'),
  passwordProtected: () => new AppError(403, 'event-password-protected', 'The requested event is not accessible without a password'),
  inTrash: () => new AppError(410, 'event-is-in-trash', 'The event is already trashed'),
  pageNotFound: () => new AppError(404, 'event-archive-page-not-found', 'The requested event archive page does not exist'),
};

/** The events of calendar/events/v1: list, read, create, update, trash and delete. */
export class EventsService {
  private readonly db: Db;
  private readonly urls: EventUrls;
  private readonly now: () => Date;
  private readonly totals = new EventTotals();

  constructor(private readonly deps: EventsServiceDeps) {
    this.db = deps.db;
    this.urls = { baseUrl: deps.config.baseUrl, namespaceUrl: deps.namespaceUrl };
    this.now = deps.now ?? (() => new Date());
  }

  // -------------------------------------------------------------------------
  // List

  /** A page of events as of `now` (a remembered list is keyed by the second it was made in). */
  async listEvents(query: ListEventsQuery, caller: Caller, now: Date = this.now()): Promise<EventList> {
    const page = query.page ?? 1;
    const perPage = Math.min(MAX_PER_PAGE, query.per_page ?? DEFAULT_PER_PAGE);
    const filter = await listFilter(this.db, this.deps.config, query, caller, now);
    const total = await this.totals.get(filter, await currentCalendarVersion(this.db, now), () => countEvents(this.db, filter));
    const pages = totalPages(total, perPage);
    if (isBeyondLastPage(page, total, perPage)) throw errors.pageNotFound();
    const { limit, offset } = pageWindow(page, perPage);
    const rows = total === 0 ? [] : await listEventRows(this.db, filter, limit, offset);
    const events = await this.represent(this.db, rows, caller, now);
    const unlocked = await this.deps.passwords.unlocked(rows, this.attempt(query, caller, now), 'list');
    const links = archiveLinks(`${this.urls.namespaceUrl}/events/`, listEcho(query, perPage, caller.user), page, pages);
    return {
      events: events.map((event) => (unlocked.has(event.id) ? event : stripProtectedEvent(event))),
      ...links,
      total,
      total_pages: pages,
    };
  }

  // -------------------------------------------------------------------------
  // Representation

  /** Representations of a page of events: a fixed number of batch queries whatever the page size. */
  private async represent(db: Db, rows: readonly EventRow[], caller: RequestContext, now: Date): Promise<EventResponse[]> {
    if (rows.length === 0) return [];
    const embeds = await loadEventEmbeds(db, rows, caller);
    return rows.map((row) => toEventResponse(row, embeds.get(row.id) ?? NO_EMBEDS, this.urls, now));
  }

  /** The event as written, read on the write's own handle (inside its transaction: what it committed). */
  private async representOne(db: Db, id: number, caller: RequestContext): Promise<EventResponse> {
    const row = await findEventById(db, id);
    if (row === undefined) throw errors.notFound(id);
    const [event] = await this.represent(db, [row], caller, this.now());
    return event as EventResponse;
  }

  /**
   * A write's read–check–write, in one transaction that holds the event:
   * the event is read again there and checked by `check`, so a concurrent
   * write or delete either happened before (and is seen) or waits. An event
   * deleted meanwhile is a clean 404 with nothing written.
   */
  private async withEvent<T>(id: number, work: (trx: Db, row: EventRow) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      const row = await findEventForWrite(trx, id);
      if (row === undefined) throw errors.notFound(id);
      return work(trx, row);
    });
  }

  /** What a read claims protected events with (reference §7). */
  private attempt(query: { password?: string; context?: string }, caller: Caller, now: Date): PasswordAttempt<EventRow> {
    return { password: query.password, context: query.context, address: caller.address, editable: (row) => canEdit(caller.user, row, now) };
  }

  // -------------------------------------------------------------------------
  // Single event

  private async find(ref: EventRef): Promise<EventRow> {
    if ('id' in ref) {
      if (ref.id > MAX_ID) throw errors.notFound(ref.id);
      const row = await findEventById(this.db, ref.id);
      if (row !== undefined) return row;
      const type = await findPostType(this.db, ref.id);
      throw type !== undefined && type !== 'event' ? errors.notAnEvent() : errors.notFound(ref.id);
    }
    const id = await findIdBySlug(this.db, 'event', sanitizeSlug(ref.slug));
    const row = id === undefined ? undefined : await findEventById(this.db, id);
    // Recurrence children are not addressable by slug (reference §4.6).
    if (row === undefined || row.parent_id !== null) throw invalidParam('slug', 'No event has this slug.');
    return row;
  }

  async getEvent(ref: EventRef, query: ReadEventQuery, caller: Caller): Promise<EventResponse> {
    const now = this.now();
    const row = await this.find(ref);
    if (row.status === 'trash') throw errors.noLongerAvailable();
    if (!canRead(caller.user, row, now)) throw errors.notAccessible();
    const unlocked = await this.deps.passwords.unlocked([row], this.attempt(query, caller, now), 'single');
    if (!unlocked.has(row.id)) throw errors.passwordProtected();
    const [event] = await this.represent(this.db, [row], caller, now);
    const response = event as EventResponse;
    // The JSON-LD builder refuses password-protected posts (reference §7).
    return row.password_hash === null ? { ...response, json_ld: toEventJsonLd(row, response, caller.language) } : response;
  }

  async deleteEvent(ref: EventRef, query: DeleteEventQuery, caller: Caller): Promise<EventResponse> {
    const { id } = await this.find(ref);
    const user = caller.user;
    const force = parseWpBoolean(query.force) === true;
    return this.withEvent(id, async (trx, row) => {
      const now = this.now();
      if (!canDelete(user, row, now)) throw PlatformErrors.forbidden(user !== null);
      if (force) {
        if (!can(user?.role ?? null, 'delete_others')) throw PlatformErrors.forbidden(user !== null);
        const last = await this.representOne(trx, id, caller);
        await deleteTranslations(trx, 'event', [id]);
        await releaseSlugs(trx, 'event', id);
        await deleteEventRow(trx, id);
        return last;
      }
      if (row.status === 'trash') throw errors.inTrash();
      await updateEventRow(trx, id, { status: 'trash', ...this.modifiedNow(now) });
      return this.representOne(trx, id, caller);
    });
  }

  // -------------------------------------------------------------------------
  // Writes

  private modifiedNow(now: Date): { modified: Stamp; modified_utc: Stamp } {
    const moment = nowIn(this.deps.config.siteTimezone, now);
    return { modified: moment.local, modified_utc: moment.utc };
  }

  private zoneOf(timezone: string | undefined, fallback: string): string {
    if (timezone === undefined) return fallback;
    if (timezone.trim() === '') return this.deps.config.siteTimezone;
    if (!isValidZoneName(timezone.trim())) throw invalidParam('timezone', 'Unknown time zone.');
    return timezone.trim();
  }

  private parseWriteDate(name: string, value: string, zone: string, now: Date): ZonedMoment {
    const moment = parseDate(value, zone, now);
    if (moment === undefined) throw invalidParam(name, `Invalid date: ${name}.`);
    return moment;
  }

  /** Publication date: `date_utc` (UTC) wins over `date` (site time zone); default now. */
  private postDate(body: Pick<CreateEventBody, 'date' | 'date_utc'>, now: Date): { date: Stamp; date_utc: Stamp } | undefined {
    const site = this.deps.config.siteTimezone;
    if (body.date_utc !== undefined) {
      const moment = this.parseWriteDate('date_utc', body.date_utc, 'UTC', now);
      if (body.date !== undefined) this.parseWriteDate('date', body.date, site, now);
      return { date: fromInstant(moment.epochMs, site)?.local ?? moment.utc, date_utc: moment.utc };
    }
    if (body.date !== undefined) {
      const moment = this.parseWriteDate('date', body.date, site, now);
      return { date: moment.local, date_utc: moment.utc };
    }
    return undefined;
  }

  /** `publish` with a publication date in the future is stored `future` (WordPress). */
  private statusFor(user: AuthUser | null, requested: string | undefined, dateUtc: Stamp, now: Date): string {
    const status = scaleStatus(user, requested);
    return status === 'publish' && dateUtc > utcStamp(now) ? 'future' : status;
  }

  private async checkAuthor(author: number | undefined, user: AuthUser | null): Promise<number | undefined> {
    if (author === undefined) return undefined;
    if (!(await userExists(this.db, author))) throw invalidParam('author', 'No user has this id.');
    if (author !== user?.id && !can(user?.role ?? null, 'edit_others')) throw PlatformErrors.forbidden(user !== null);
    return author;
  }

  private checkWebsite(website: string | undefined): string | undefined {
    if (website === undefined) return undefined;
    const value = website.trim();
    if (value !== '' && !isHttpUrl(value)) throw invalidParam('website', 'Invalid URL.');
    return value;
  }

  private flags(body: UpdateEventBody): EventChanges {
    const changes: EventChanges = {};
    for (const flag of ['show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured'] as const) {
      const value = parseWpBoolean(body[flag]);
      if (value !== undefined) changes[flag] = value ? 1 : 0;
    }
    return changes;
  }

  /** One cost as a string, several as an array (never split: `1,000$` is one). */
  private costChanges(cost: string | readonly string[] | undefined): EventChanges {
    if (cost === undefined) return {};
    const costs = [cost].flat().map((item) => item.trim()).filter((item) => item !== '');
    if (costs.length === 0) return { cost: null, currency_symbol: '', currency_position: '' };
    const currency = parseCurrency(costs);
    return { cost: JSON.stringify(costs), currency_symbol: currency.symbol, currency_position: currency.position };
  }

  /**
   * Start and end in their zone, computed together (design.md "Storage").
   * Unsent dates keep their stored wall time, re-read in a new zone.
   */
  private schedule(
    body: UpdateEventBody,
    current: Pick<EventRow, 'start_local' | 'end_local' | 'timezone' | 'all_day'> | undefined,
    now: Date,
  ): Pick<NewEventRow, 'timezone' | 'all_day' | 'start_local' | 'end_local' | 'start_utc' | 'end_utc'> {
    const zone = this.zoneOf(body.timezone, current?.timezone ?? this.deps.config.siteTimezone);
    const allDayAsked = parseWpBoolean(body.all_day);
    const allDay = allDayAsked ?? current?.all_day === 1;
    const read = (name: 'start_date' | 'end_date', stored: Stamp | undefined): ZonedMoment => {
      const sent = body[name];
      if (sent !== undefined) return this.parseWriteDate(name, sent, zone, now);
      const moment = stored === undefined ? undefined : fromWallTime(stored, zone);
      if (moment === undefined) throw invalidParam(name);
      return moment;
    };
    let start = read('start_date', current?.start_local);
    let end = read('end_date', current?.end_local);
    if (allDay) {
      start = fromWallTime(startOfDay(start.local), zone) ?? start;
      end = fromWallTime(endOfDay(end.local), zone) ?? end;
    }
    if (end.epochMs < start.epochMs) throw invalidParam('end_date', 'The end date must not be before the start date.');
    return {
      timezone: zone,
      all_day: allDay ? 1 : 0,
      start_local: start.local,
      end_local: end.local,
      start_utc: start.utc,
      end_utc: end.utc,
    };
  }

  private texts(body: UpdateEventBody): Record<string, string | undefined> {
    return {
      title: body.title === undefined ? undefined : sanitizeText(body.title),
      description: body.description === undefined ? undefined : sanitizeContent(body.description),
      excerpt: body.excerpt === undefined ? undefined : sanitizeContent(body.excerpt),
    };
  }

  async createEvent(body: CreateEventBody, caller: Caller): Promise<EventResponse> {
    const now = this.now();
    const user = caller.user;
    const schedule = this.schedule(body, undefined, now);
    const website = this.checkWebsite(body.website);
    const author = (await this.checkAuthor(body.author, user)) ?? user?.id ?? null;
    const posted = this.postDate(body, now) ?? { date: nowIn(this.deps.config.siteTimezone, now).local, date_utc: utcStamp(now) };
    const status = this.statusFor(user, body.status, posted.date_utc, now);
    const passwordHash = body.password === undefined || body.password === '' ? null : await hashPassword(body.password);
    const texts = this.texts(body);

    return this.db.transaction().execute(async (trx) => {
      const eventId = await reserveEventId(trx);
      const imageId = body.image === undefined ? null : await resolveImageForWrite(trx, body.image, user);
      const venueId = body.venue === undefined ? null : await resolveVenueForWrite(trx, body.venue, caller);
      const cost = this.costChanges(body.cost);
      await insertEvent(trx, {
        id: eventId,
        author_id: author,
        status,
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
        ...this.flags(body),
        venue_id: venueId,
      });
      const slug = await claimSlug(trx, 'event', eventId, body.slug ?? texts.title ?? '');
      await writeTranslations(trx, 'event', eventId, caller.language, { ...texts, slug });
      await this.writeLinks(trx, eventId, body, caller);
      return this.representOne(trx, eventId, caller);
    });
  }

  private async writeLinks(trx: Db, eventId: number, body: UpdateEventBody, caller: Caller): Promise<void> {
    if (body.organizer !== undefined) {
      await setEventOrganizers(trx, eventId, await resolveOrganizersForWrite(trx, body.organizer, caller));
    }
    if (body.categories !== undefined) {
      await setEventTerms(trx, eventId, 'category', await resolveTermsForWrite(trx, 'category', body.categories, caller));
    }
    if (body.tags !== undefined) {
      await setEventTerms(trx, eventId, 'tag', await resolveTermsForWrite(trx, 'tag', body.tags, caller));
    }
  }

  /** Deviation 1: only what is sent changes. */
  async updateEvent(ref: EventRef, body: UpdateEventBody, caller: Caller): Promise<EventResponse> {
    const now = this.now();
    const user = caller.user;
    const found = await this.find(ref);
    // Checked here for the order of errors (403 before 400s), and again on the row the write holds.
    if (!canEdit(user, found, now)) throw PlatformErrors.forbidden(user !== null);
    // What needs no stored row, and the slow password hash, before the write lock.
    const touchesSchedule = [body.start_date, body.end_date, body.timezone, body.all_day].some((value) => value !== undefined);
    if (touchesSchedule) this.schedule(body, found, now);
    const website = this.checkWebsite(body.website);
    const author = await this.checkAuthor(body.author, user);
    const posted = this.postDate(body, now);
    const passwordHash = body.password === undefined ? undefined : body.password === '' ? null : await hashPassword(body.password);
    const texts = this.texts(body);

    return this.withEvent(found.id, async (trx, row) => {
      if (!canEdit(user, row, now)) throw PlatformErrors.forbidden(user !== null);
      const changes: EventChanges = {
        ...(touchesSchedule ? this.schedule(body, row, now) : {}),
        ...this.costChanges(body.cost),
        ...this.flags(body),
        ...this.modifiedNow(now),
        ...(website === undefined ? {} : { website }),
        ...(author === undefined ? {} : { author_id: author }),
        ...(posted ?? {}),
        ...(passwordHash === undefined ? {} : { password_hash: passwordHash }),
      };
      if (body.status !== undefined) changes.status = this.statusFor(user, body.status, posted?.date_utc ?? row.date_utc, now);
      else if (posted !== undefined && row.status === 'publish' && posted.date_utc > utcStamp(now)) changes.status = 'future';
      if (body.image !== undefined) changes.image_id = await resolveImageForWrite(trx, body.image, user);
      if (body.venue !== undefined) changes.venue_id = await resolveVenueForWrite(trx, body.venue, caller);
      await updateEventRow(trx, row.id, changes);
      const slug = await claimLanguageSlug(trx, 'event', row.id, caller.language, { explicit: body.slug, title: texts.title });
      await writeTranslations(trx, 'event', row.id, caller.language, { ...texts, slug });
      await this.writeLinks(trx, row.id, body, caller);
      return this.representOne(trx, row.id, caller);
    });
  }
}
