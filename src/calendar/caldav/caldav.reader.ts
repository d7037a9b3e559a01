import type { Kysely } from 'kysely';
import { tzlib_get_ical_block, tzlib_get_timezones } from 'timezones-ical-library';
import type { Config } from '../../config/config.ts';
import type { Database } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import { cacheKey } from '../../platform/cache/read-cache.ts';
import { digestOf, etagOf } from '../../platform/http/entity-tags.ts';
import type { ChangesService } from '../changes/changes.service.ts';
import type { RequestContext } from '../common/context.ts';
import { feedName } from '../common/site-title.ts';
import { listFilter } from '../events/events.filters.ts';
import { listOwnerIds } from '../events/events.repository.ts';
import { canEdit, listVisibility } from '../posts/posts.access.ts';
import type { IcalService } from '../ical/ical.service.ts';
import { decodeEntities } from '../ical/ical.text.ts';
import { eventIdOfOwnUid } from '../ical/ical.uid.ts';
import type { TermsService } from '../terms/terms.service.ts';
import { findEventIdsOfNames, findEventVersions, findOwnersOf, findResourceVersions, listCategoryIds } from './caldav.repository.ts';
import { davErrors } from './caldav.errors.ts';
import type { Collection } from './caldav.paths.ts';
import type { TimeRange } from './caldav.requests.ts';

/** What a reader is built with, once, by the CalDAV service. */
export interface CaldavReaderDeps {
  readonly db: Kysely<Database>;
  readonly config: Config;
  readonly ical: IcalService;
  readonly categories: TermsService;
  readonly changes: ChangesService;
}

/** A calendar collection as its properties show it. */
export interface CalendarInfo {
  readonly collection: Collection;
  readonly name: string;
  readonly color: string;
}

/** One resource: an event (a series with its exceptions) as iCalendar, and its ETag. */
export interface Representation {
  readonly id: number;
  readonly ics: string;
  readonly etag: string;
}

// Every event the calendar can hold, whatever its dates.
const ALL_TIME = { start_date: '1000-01-01', end_date: '9999-12-31' } as const;
/** The prefix that makes a sync token (sealed by the change log's service) the URI RFC 6578 asks for. */
const SYNC_TOKEN_PREFIX = 'urn:x-almanac:sync:';
const CHANGES_PER_PAGE = 100;
// The zones timezones-ical-library has a VTIMEZONE for (it logs and returns nothing for others).
const ZONES_WITH_VTIMEZONE = new Set(tzlib_get_timezones());
/** Colours told apart by people and apps, light or dark: the main calendar takes the first, a category one by its id. */
const PALETTE = ['#1F6FEB', '#D1242F', '#1A7F37', '#8250DF', '#BF8700', '#0A7E8C', '#CF222E', '#6E7781'];

/**
 * The calendar over CalDAV for one request, read only: its collections
 * (every event the caller may read, one per category), their members as the
 * events lists show them to the caller (each single event, and each series
 * one of whose occurrences they list), each as `/events/{id}.ics` gives it,
 * and what changed since a sync token, from the change log. Each event is
 * represented once per request (once per calendar version for anonymous
 * readers).
 */
export class CaldavReader {
  private readonly represented = new Map<number, Promise<Representation | undefined>>();
  /** Each member's version as the caller sees it, read once per request however many calendars hold it. */
  private readonly versions = new Map<number, number>();
  private syncToken: Promise<string> | undefined;
  private calendarsRead: Promise<CalendarInfo[]> | undefined;

  constructor(
    private readonly deps: CaldavReaderDeps,
    readonly ctx: RequestContext,
  ) {}

  /** The collections of the home: every event, then each category by id. */
  calendars(): Promise<CalendarInfo[]> {
    this.calendarsRead ??= listCategoryIds(this.deps.db).then(async (ids) => [this.allEvents(), ...(await this.categoryCalendars(ids))]);
    return this.calendarsRead;
  }

  private allEvents(): CalendarInfo {
    return { collection: { kind: 'all' }, name: feedName(this.ctx.settings, this.ctx.language, []), color: PALETTE[0]! };
  }

  private async categoryCalendars(ids: readonly number[]): Promise<CalendarInfo[]> {
    const terms = await this.deps.categories.listByIds(ids, this.ctx);
    return terms.map((term) => ({
      collection: { kind: 'category', id: term.id },
      name: feedName(this.ctx.settings, this.ctx.language, [decodeEntities(term.name)]),
      color: PALETTE[term.id % PALETTE.length]!,
    }));
  }

  /** The collection as a calendar, or a 404 for a category that does not exist. */
  async calendar(collection: Collection): Promise<CalendarInfo> {
    if (collection.kind === 'all') return this.allEvents();
    const [found] = await this.categoryCalendars([collection.id]);
    if (found === undefined) throw davErrors.notFound();
    return found;
  }

  /**
   * The members of a collection, by id: the single events and series the caller's lists show (with `range`, those
   * with an occurrence in it), among `among` when given.
   */
  async members(collection: Collection, range?: TimeRange, among?: readonly number[]): Promise<number[]> {
    await this.calendar(collection);
    if (among !== undefined && among.length === 0) return [];
    const read = async () => {
      const query = collection.kind === 'all' ? ALL_TIME : { ...ALL_TIME, categories: [String(collection.id)] };
      const filter = await listFilter(this.deps.db, query, this.ctx, new Date());
      return listOwnerIds(this.deps.db, filter, { during: range, owners: among });
    };
    // What anonymous readers are shown is the same for all of them: computed once per calendar version.
    if (this.ctx.user !== null || among !== undefined) return read();
    const key = cacheKey('caldav members', collection.kind === 'all' ? 0 : collection.id, range?.from, range?.to);
    return (await this.ctx.version()).once(key, read, (ids) => 64 + ids.length * 8);
  }

  /** The event a resource name names (its id, its UID or the name a client put it at) if it is a member of the collection; else a 404. */
  async resourceId(collection: Collection, name: string): Promise<number> {
    const id = (await this.resourceIds(collection, [name])).get(name);
    if (id === undefined) throw davErrors.notFound();
    return id;
  }

  /** The events resource names name (ids, UIDs, names clients put them at), those that are members of the collection, checked together. */
  async resourceIds(collection: Collection, names: readonly string[]): Promise<Map<string, number>> {
    const named = new Map<string, number>();
    const others: string[] = [];
    for (const name of new Set(names)) {
      const id = /^[1-9]\d{0,14}$/.test(name) ? Number(name) : eventIdOfOwnUid(name, this.deps.config.baseUrl);
      if (id === undefined) others.push(name);
      else named.set(name, id);
    }
    for (const [name, id] of await findEventIdsOfNames(this.deps.db, others)) named.set(name, id);
    // Anonymous readers' members are known for the version already; others' are checked in one statement.
    const ids = [...new Set(named.values())];
    const members = new Set(await (this.ctx.user === null ? this.members(collection) : this.members(collection, undefined, ids)));
    return new Map([...named].filter(([, id]) => members.has(id)));
  }

  /** An event as iCalendar, with its ETag; undefined when the caller may not read it after all (a write in between). */
  representation(id: number): Promise<Representation | undefined> {
    let found = this.represented.get(id);
    if (found === undefined) {
      found = this.ctx.user === null ? this.representedForEveryone(id) : this.represent([id]).then((shown) => shown.get(id));
      this.represented.set(id, found);
    }
    return found;
  }

  /** Anonymous readers' representation, the same for all of them: computed once per calendar version, as their feeds are. */
  private async representedForEveryone(id: number): Promise<Representation | undefined> {
    const key = cacheKey('caldav event', id, this.ctx.language);
    return (await this.ctx.version()).once(
      key,
      () => this.represent([id]).then((shown) => shown.get(id)),
      (shown) => 256 + 2 * (shown?.ics.length ?? 0),
    );
  }

  /**
   * `representation` of each of `ids`. A signed-in caller's are read together (anonymous readers' come from the
   * cache of the version, one by one).
   */
  async representations(ids: readonly number[]): Promise<Map<number, Representation | undefined>> {
    const missing = [...new Set(ids)].filter((id) => !this.represented.has(id));
    if (this.ctx.user !== null && missing.length > 0) {
      const batch = this.represent(missing);
      for (const id of missing)
        this.represented.set(
          id,
          batch.then((shown) => shown.get(id)),
        );
    }
    return new Map(await Promise.all(ids.map(async (id) => [id, await this.representation(id)] as const)));
  }

  private async represent(ids: readonly number[]): Promise<Map<number, Representation>> {
    // Read before the events: a tag may name an older version than its body (a write would then be refused), never a
    // newer one. Not for an anonymous caller, who edits nothing.
    const versions = this.ctx.user === null ? new Map<number, number>() : await findEventVersions(this.deps.db, ids);
    const feeds = await this.deps.ical.eventFeeds(ids, this.ctx);
    const now = new Date();
    // The API's tag (events.single.ts): these bytes, and the version only for a caller who may edit the event, since
    // the version also moves with what others are not shown.
    const tagged = [...feeds].map(([id, { row, ics }]): [number, Representation] => {
      const version = canEdit(this.ctx.user, row, now) ? versions.get(id) : undefined;
      return [id, { id, ics, etag: etagOf(ics, version) }];
    });
    return new Map(tagged);
  }

  /**
   * The collection's ctag: it moves with members coming and going and with any change of a member (of a series or
   * any of its occurrences), as this caller sees them, without representing every member.
   */
  async ctag(collection: Collection): Promise<string> {
    const { user, language } = this.ctx;
    const read = async () => {
      const ids = await this.members(collection);
      const versions = await this.versionsOf(collection, ids);
      return digestOf(ids.map((id) => `${id}:${versions.get(id) ?? 0}`).join(','));
    };
    // Clients poll it, and it reads every member: the members' state is computed once per calendar version for all
    // callers shown the same members (everyone, each author, editors and administrators).
    const key = cacheKey('caldav members state', collection.kind === 'all' ? 0 : collection.id, JSON.stringify(listVisibility(user)));
    const members = await (await this.ctx.version()).once(key, read, (state) => 64 + 2 * state.length);
    return `"${digestOf([language, user?.id ?? 0, user?.role ?? '', members].join(','))}"`;
  }

  /**
   * The versions of `ids`, the members of `collection`: the calendar of every event reads every resource's in one
   * pass; a category calendar's members were then mostly read with it.
   */
  private async versionsOf(collection: Collection, ids: readonly number[]): Promise<ReadonlyMap<number, number>> {
    const missing = ids.filter((id) => !this.versions.has(id));
    if (missing.length === 0) return this.versions;
    const found = await findResourceVersions(this.deps.db, collection.kind === 'all' ? 'every' : missing, listVisibility(this.ctx.user));
    for (const id of missing) this.versions.set(id, found.get(id) ?? 0);
    return this.versions;
  }

  /** A new sync token: the log as it stands for this caller (one per request). */
  currentSyncToken(): Promise<string> {
    this.syncToken ??= this.deps.changes
      .read({ type: 'event', translation_language: this.ctx.language }, this.ctx)
      .then((page) => `${SYNC_TOKEN_PREFIX}${page.next_sync_token as string}`);
    return this.syncToken;
  }

  /**
   * RFC 6578: the members changed since `token` and the ones gone (the events the log names for this caller, each
   * as the resource it belongs to), and the token to sync from next. An empty token: every member.
   */
  async changesSince(collection: Collection, token: string): Promise<{ changed: number[]; gone: number[]; token: string }> {
    await this.calendar(collection);
    if (token === '') {
      const next = await this.currentSyncToken();
      return { changed: await this.members(collection), gone: [], token: next };
    }
    if (!token.startsWith(SYNC_TOKEN_PREFIX)) throw davErrors.invalidSyncToken();
    const named = new Set<number>();
    let query: { sync_token?: string; page_token?: string } = { sync_token: token.slice(SYNC_TOKEN_PREFIX.length) };
    let next: string | undefined;
    while (next === undefined) {
      const page = await this.readChanges(query);
      for (const entry of page.changes) named.add(entry.id);
      if (page.next_page_token !== undefined) query = { page_token: page.next_page_token };
      else next = page.next_sync_token as string;
    }
    const owners = await findOwnersOf(this.deps.db, [...named]);
    const candidates = [...new Set([...named].map((id) => owners.get(id) ?? id))];
    const present = new Set(await this.members(collection, undefined, candidates));
    return {
      changed: candidates.filter((id) => present.has(id)),
      gone: candidates.filter((id) => !present.has(id)),
      token: `${SYNC_TOKEN_PREFIX}${next}`,
    };
  }

  private async readChanges(query: { sync_token?: string; page_token?: string }) {
    try {
      return await this.deps.changes.read({ ...query, type: 'event', per_page: CHANGES_PER_PAGE }, this.ctx);
    } catch (error) {
      // Expired, forged, another caller's or another language's: each a token to drop (RFC 6578 §3.2).
      if (error instanceof AppError && (error.status === 410 || error.status === 400)) throw davErrors.invalidSyncToken();
      throw error;
    }
  }

  /** calendar-timezone: a VCALENDAR with the site zone's VTIMEZONE (RFC 4791 §5.2.2). */
  timezone(): string {
    const zone = this.ctx.site.timezone;
    const block =
      (ZONES_WITH_VTIMEZONE.has(zone) ? tzlib_get_ical_block(zone)[0] : undefined) ??
      'BEGIN:VTIMEZONE\nTZID:UTC\nBEGIN:STANDARD\nDTSTART:19700101T000000\nTZOFFSETFROM:+0000\nTZOFFSETTO:+0000\nEND:STANDARD\nEND:VTIMEZONE';
    const lines = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//Almanac//CalDAV//EN',
      ...block.split(/\r?\n/).filter((line) => line !== ''),
      'END:VCALENDAR',
    ];
    return `${lines.join('\r\n')}\r\n`;
  }
}
