import { cacheKey, isOlder } from '../../platform/cache/read-cache.ts';
import type { Db } from '../../platform/db/schema.ts';
import { changedEventsAbove, type CalendarVersion } from '../common/calendar-version.ts';
import { filterKey } from './events.filters.ts';
import { dayGrid, type DayGrid } from './events.days.ts';
import { countEvents, listEventIds, listEventPageIds, listEventSpans, type EventListFilter, type EventOrder } from './events.repository.ts';

/** A public total of at most this many events is maintained incrementally (its ids cached); a larger one is counted. */
const MAX_MEMBERS = 100_000;

/** The events a public list's total counts, as of a version: what the next version updates from the change log. */
interface Members {
  at: CalendarVersion;
  /** null: more than MAX_MEMBERS, counted in each version. */
  readonly ids: Set<number> | null;
  /** The update under way: updates of one list run one after another. */
  busy: Promise<unknown>;
}

/**
 * A list of events within a calendar version: neither a write nor the clock can change its total or its pages
 * there, so each is read once in it (whatever instant of the version a request reads at), from the listing
 * index (migration 2026-11-30T0100).
 *
 * A public list's total is also maintained incrementally across versions, as a materialized view is: its ids are
 * cached per item (until a scheduled publication or a prune invalidates everything) and brought to the
 * next version by re-checking, by id, the events the change log names since. After a write, a category's total
 * over 100k events costs that one look-up instead of a count of its thousands of events (the bench's mixed line:
 * 225 requests/s counted, 494 maintained). A page is read again in each version: one walk of the listing index.
 */
export class EventListing {
  private readonly key: string;

  constructor(
    private readonly db: Db,
    private readonly version: CalendarVersion,
    private readonly filter: EventListFilter,
  ) {
    this.key = filterKey(filter);
  }

  total(): Promise<number> {
    return this.version.once(
      cacheKey('events-total', this.key),
      () => this.count(),
      () => 8,
    );
  }

  pageIds(limit: number, offset: number, order: EventOrder): Promise<number[]> {
    return this.version.once(
      cacheKey('events-page', this.key, order, offset, limit),
      () => listEventPageIds(this.db, this.filter, limit, offset, order),
      (ids) => 8 * ids.length,
    );
  }

  /**
   * A calendar grid of `days` (consecutive): each day's count of events and the ids of its first `perDay`. Its spans
   * (thousands of rows of the listing index for a month over 100k events) are walked once in the version.
   */
  days(days: readonly string[], perDay: number): Promise<DayGrid> {
    return this.version.once(
      cacheKey('events-days', this.key, days[0], days.length, perDay),
      async () => dayGrid(await listEventSpans(this.db, this.filter), days, perDay),
      (grid) => 8 * (grid.counts.length + grid.firsts.flat().length),
    );
  }

  private async count(): Promise<number> {
    const { db, filter, version } = this;
    if (filter.visibility.kind !== 'published' || filter.includeIds !== undefined) return countEvents(db, filter);
    const key = cacheKey('events-total-members', this.key);
    const members = version.cache.item<Members>(key);
    if (members === undefined) return this.countAfresh(key);
    if (members.ids === null) return countEvents(db, filter);
    const update = members.busy.then(() => this.advance(members, members.ids as Set<number>));
    members.busy = update.catch(() => undefined);
    return (await update) ?? this.countAfresh(key);
  }

  /**
   * Brings `members` up to this version, in place: the events the change log names since its revision are
   * dropped, and those of them the filter matches now added. Undefined when the log cannot name them all, or when
   * a scheduled publication has passed since (the clock changed the list, and the log does not say how). A request
   * of an older version counts for itself.
   */
  private async advance(members: Members, ids: Set<number>): Promise<number | undefined> {
    const { at } = members;
    if (isOlder(this.version, at)) return countEvents(this.db, this.filter);
    if (at.until !== null && this.version.from >= at.until) return undefined;
    if (at.revision < this.version.revision) {
      // Every list brought up from the last version asks for the same changes: the log is read once for them all.
      const changed = await this.version.once(
        cacheKey('events-changed-above', at.revision),
        () => changedEventsAbove(this.db, at.revision),
        (ids) => 8 * (ids?.length ?? 0),
      );
      if (changed === undefined) return undefined;
      const matching = changed.length === 0 ? [] : await listEventIds(this.db, { ...this.filter, includeIds: changed });
      for (const id of changed) ids.delete(id);
      for (const id of matching) ids.add(id);
    }
    members.at = this.version;
    return ids.size;
  }

  /**
   * Reads the list's ids, and caches them (or that they are too many) for the next versions: the change log brings
   * them up to date, unless everything was invalidated since this version (a publication, a prune). The ids are
   * the count: a category's over 100k events cost PostgreSQL a count and then the same scan again for them.
   */
  private async countAfresh(key: string): Promise<number> {
    if (!this.version.cache.cachesItems) return countEvents(this.db, this.filter);
    const found = await listEventIds(this.db, this.filter, MAX_MEMBERS + 1);
    const ids = found.length > MAX_MEMBERS ? null : new Set(found);
    const members: Members = { at: this.version, ids, busy: Promise.resolve() };
    this.version.cache.setItem(key, [], members, () => 40 * (ids?.size ?? 0) + 64, this.version);
    return ids?.size ?? countEvents(this.db, this.filter);
  }
}
