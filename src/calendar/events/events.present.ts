import type { Db } from '../../platform/db/schema.ts';
import type { PasswordAttempt, PostPasswords } from '../posts/posts.passwords.ts';
import type { CalendarVersion } from '../common/calendar-version.ts';
import type { RequestContext } from '../common/context.ts';
import { loadEventEmbeds } from './events.embeds.ts';
import type { EventEntry, EventRepresentations } from './events.representations.ts';
import { publishedEventCounts } from '../terms/terms.counts.ts';
import { findCategoryColors } from '../terms/terms.links.ts';
import { canEdit, utcStamp } from '../posts/posts.access.ts';
import { eventNotFound } from './events.lookup.ts';
import { textIdsOf, textsOfEvent } from './events.inherited.ts';
import { loadTranslations } from '../posts/posts.texts.ts';
import {
  NO_EMBEDS,
  stripProtectedEvent,
  stripProtectedSummary,
  toEventResponse,
  toEventSummary,
  type EventEmbeds,
  type EventSummary,
  type EventUrls,
} from './events.mapper.ts';
import { findEventById, findEventsByIds, type EventRow } from './events.repository.ts';
import type { EventResponse, ListEventsQuery } from './events.schemas.ts';

/** What decides which rows an event's representation embeds (events.embeds.ts). */
const LINKS = ['id', 'venue_id', 'image_id', 'parent_id', 'is_exception'] as const;

/** The texts a summary is made of. */
const SUMMARY_FIELDS = ['title', 'slug'];

/** A cached event as a single read shows it: the entry, and its representation with the version's term counts. */
export interface KnownRead {
  readonly entry: EventEntry;
  readonly event: EventResponse;
}

/** An event as the JSON API shows it to a caller, with the stored row it was made from (what an iCalendar feed needs more). */
export interface EventWithRow {
  readonly event: EventResponse;
  readonly row: EventRow;
}

/** What an event's representation embeds, read for the links of `linked` (`EventPresenter.embedsOf`). */
export interface EmbedsAhead {
  readonly linked: EventRow;
  readonly embeds: EventEmbeds;
}

/** Events as a caller is shown them: represented in batches, and password-protected ones stripped unless unlocked. */
export class EventPresenter {
  constructor(
    private readonly urls: EventUrls,
    private readonly passwords: PostPasswords,
    readonly representations: EventRepresentations,
  ) {}

  /**
   * Representations of a page of events: a fixed number of batch queries whatever the page size, for the
   * events not cached (anonymous reads at a version, events.representations.ts).
   */
  async represent(
    db: Db,
    rows: readonly EventRow[],
    caller: RequestContext,
    now: Date,
    version: CalendarVersion | undefined,
  ): Promise<EventResponse[]> {
    if (rows.length === 0) return [];
    if (version === undefined || caller.user !== null) return this.computed(db, rows, caller, now, version);
    const { representations } = this;
    const known = rows.map((row) => representations.get(row.id, caller.language));
    const missing = rows.filter((_, index) => known[index] === undefined);
    const computed = new Map((await this.computed(db, missing, caller, now, version)).map((event) => [event.id, event]));
    const stamp = utcStamp(now);
    for (const row of missing)
      if (row.status === 'publish' && row.date_utc <= stamp) representations.set(row, caller.language, version, computed.get(row.id)!);
    const counts = await publishedEventCounts(
      db,
      known.flatMap((entry) => (entry === undefined ? [] : termIdsOf(entry.event))),
      version,
    );
    return rows.map((row, index) => {
      const entry = known[index];
      return entry === undefined ? computed.get(row.id)! : representations.recounted(entry, caller.language, counts, version);
    });
  }

  /**
   * The rows of `ids`, in that order: a cached event's from memory (for anonymous callers), the others in one read.
   * One deleted meanwhile is left out.
   */
  async rowsOf(db: Db, ids: readonly number[], caller: RequestContext): Promise<EventRow[]> {
    const rows = new Map<number, EventRow>();
    for (const id of ids) {
      const row = caller.user === null ? this.representations.get(id, caller.language)?.row : undefined;
      if (row !== undefined) rows.set(id, row);
    }
    const missing = ids.filter((id) => !rows.has(id));
    for (const row of await findEventsByIds(db, missing)) rows.set(row.id, row);
    return ids.flatMap((id) => rows.get(id) ?? []);
  }

  /**
   * The event `id` as an anonymous single read shows it when it is cached: no statement but the term counts of
   * the version (none when they are counted already).
   */
  async knownRead(db: Db, id: number, caller: RequestContext, version: CalendarVersion): Promise<KnownRead | undefined> {
    const entry = caller.user === null ? this.representations.get(id, caller.language) : undefined;
    if (entry === undefined) return undefined;
    const counts = await publishedEventCounts(db, termIdsOf(entry.event), version);
    return { entry, event: this.representations.recounted(entry, caller.language, counts, version) };
  }

  /** The entry cached from `row` (a single read's own), which caches the JSON-LD the read computes from it. */
  entryOf(row: EventRow, caller: RequestContext): EventEntry | undefined {
    const entry = caller.user === null ? this.representations.get(row.id, caller.language) : undefined;
    return entry?.row === row ? entry : undefined;
  }

  /** Representations computed from the database, not the cache: their embeds in a fixed number of batch queries. */
  private async computed(
    db: Db,
    rows: readonly EventRow[],
    caller: RequestContext,
    now: Date,
    version: CalendarVersion | undefined,
  ): Promise<EventResponse[]> {
    if (rows.length === 0) return [];
    const embeds = await loadEventEmbeds(db, rows, caller, version);
    return rows.map((row) => toEventResponse(row, embeds.get(row.id) ?? NO_EMBEDS, this.urls, now, caller.settings));
  }

  /** The event as written, read on the write's own handle (inside its transaction: what it committed). */
  async written(trx: Db, id: number, caller: RequestContext, now: Date): Promise<EventResponse> {
    const row = await findEventById(trx, id);
    if (row === undefined) throw eventNotFound(id);
    return this.writtenRow(trx, row, caller, now);
  }

  /** `written`, of the row the write read back itself. */
  async writtenRow(trx: Db, row: EventRow, caller: RequestContext, now: Date): Promise<EventResponse> {
    const [event] = await this.represent(trx, [row], caller, now, undefined);
    return event as EventResponse;
  }

  /**
   * What a write's answer embeds, read ahead of its row for the links `linked` has (the row as the write left it
   * or found it): asked for with the row's own read, it shares its round trip on PostgreSQL (see `writtenWith`).
   */
  async embedsOf(trx: Db, linked: EventRow, caller: RequestContext): Promise<EmbedsAhead> {
    return { linked, embeds: (await loadEventEmbeds(trx, [linked], caller, undefined, true)).get(linked.id) ?? NO_EMBEDS };
  }

  /** `writtenRow` of `row`, with the embeds read `ahead` of it: read again should the row link otherwise. */
  async writtenWith(trx: Db, row: EventRow, ahead: EmbedsAhead | undefined, caller: RequestContext, now: Date): Promise<EventResponse> {
    if (ahead === undefined || LINKS.some((column) => row[column] !== ahead.linked[column])) return this.writtenRow(trx, row, caller, now);
    return toEventResponse(row, ahead.embeds, this.urls, now, caller.settings);
  }

  /** Rows as a list shows them: represented, and stripped unless the caller unlocked them. */
  async listed(
    db: Db,
    rows: readonly EventRow[],
    query: ListEventsQuery,
    caller: RequestContext,
    now: Date,
    version: CalendarVersion,
  ): Promise<EventWithRow[]> {
    const events = await this.represent(db, rows, caller, now, version);
    const unlocked = await this.passwords.unlocked(rows, this.attempt(query, caller, now), 'list');
    return rows.map((row, index) => {
      const event = events[index] as EventResponse;
      return { row, event: unlocked.has(row.id) ? event : stripProtectedEvent(event) };
    });
  }

  /**
   * Rows as a calendar grid shows them: the summaries of what `listed` gives, by the same password rules, from
   * their titles and slugs alone (one query for the texts, no embeds).
   */
  async summarized(db: Db, rows: readonly EventRow[], query: ListEventsQuery, caller: RequestContext, now: Date): Promise<EventSummary[]> {
    if (rows.length === 0) return [];
    const [texts, unlocked, colors] = await Promise.all([
      loadTranslations(db, 'event', textIdsOf(rows), caller.language, caller.defaultLanguage, SUMMARY_FIELDS),
      this.passwords.unlocked(rows, this.attempt(query, caller, now), 'list'),
      findCategoryColors(
        db,
        rows.map((row) => row.id),
      ),
    ]);
    return rows.map((row) => {
      const color = colors.get(row.id);
      const summary = { ...toEventSummary(row, textsOfEvent(row, texts), this.urls), ...(color === undefined ? {} : { color }) };
      return unlocked.has(row.id) ? summary : stripProtectedSummary(summary);
    });
  }

  /** The rows a single read shows whole (not protected, or unlocked by the read), by id. */
  async unlocked(
    rows: readonly EventRow[],
    query: { password?: string; context?: string },
    caller: RequestContext,
    now: Date,
  ): Promise<ReadonlySet<number>> {
    return this.passwords.unlocked(rows, this.attempt(query, caller, now), 'single');
  }

  /** What a read claims protected events with: `password`, or `context=edit`. */
  private attempt(query: { password?: string; context?: string }, caller: RequestContext, now: Date): PasswordAttempt<EventRow> {
    return { password: query.password, context: query.context, address: caller.address, editable: (row) => canEdit(caller.user, row, now) };
  }
}

const termIdsOf = (event: EventResponse): number[] => [...event.categories, ...event.tags].map((term) => term.id);
