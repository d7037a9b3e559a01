import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.ts';
import type { CalendarVersion } from '../shared/calendar-version.ts';
import { changedEventsSince } from './events.changed.ts';
import { carriedKey, isCarriable } from './events.filters.ts';
import { listEventPositions, matchesThrough, type EventListFilter, type EventOrder, type ListPosition } from './events.repository.ts';

type Db = Kysely<Database>;

/** Pages kept, and the ids they keep in all (~3 MB), by default; the least recently used go first. */
const LIMITS = { maxPages: 2_000, maxIds: 100_000 };
/** A page further down than this (offset and length) is read each time rather than kept with what precedes it. */
const MAX_PREFIX = 500;
/** A page not checked for this long is read again (the change log forgets removals, in days). */
const MAX_KEPT_AGE_MS = 3_600_000;

/** A page of a public list as read at a revision: its events, every event before them, and where it ends. */
interface KeptPage {
  readonly shown: readonly number[];
  /** The page's events and all before them. */
  readonly through: ReadonlySet<number>;
  /** The place of its last event when the page was full; undefined for a shorter one (the last: any event that comes to match joins it). */
  readonly last: ListPosition | undefined;
  revision: number;
  until: string | null;
  at: number;
}

/**
 * The events on a page of a public list, carried from version to version
 * (issue 26), so that a write elsewhere does not make every list read its
 * page again. A page is kept with every event before it, in list order,
 * from the listing index alone. A later version asks the change log which
 * events changed since, and the page still holds unless one of them is on
 * it or before it, or now matches the filter at or before its last event
 * (the database compares the positions): then, and only then, it is read
 * again. Everything else a list shows (the events' representations, the
 * total) is carried per event and per total (events.remembered.ts,
 * events.totals.ts). As for totals, a scheduled publication passing, an
 * hour without use or more than 2,000 changed events have it read again;
 * the lists of signed-in callers, with `include` or further down than
 * `MAX_PREFIX` are read each time. What is kept is bounded (pages, and ids
 * in all), so that many distinct lists (a crawler, a hostile caller) cost
 * a bounded memory.
 */
export class CarriedPages {
  private readonly pages = new Map<string, KeptPage>();
  /** The ids the pages keep in all. */
  private idsKept = 0;

  constructor(
    private readonly db: Db,
    private readonly limits: { readonly maxPages: number; readonly maxIds: number } = LIMITS,
  ) {}

  /**
   * The ids on the page (`offset`, `limit`) of the list `filter` selects, as of `version` or later; undefined
   * for a list not carried, which the caller reads as it is.
   */
  async ids(
    version: CalendarVersion,
    filter: EventListFilter,
    limit: number,
    offset: number,
    order: EventOrder,
  ): Promise<readonly number[] | undefined> {
    if (!isCarriable(filter) || offset + limit > MAX_PREFIX) return undefined;
    const key = `${carriedKey(filter)}|${order}|${offset}|${limit}`;
    const kept = this.pages.get(key);
    if (kept !== undefined && (await this.stillHolds(kept, filter, version, order))) {
      this.keep(key, kept);
      return kept.shown;
    }
    const prefix = await listEventPositions(this.db, filter, offset + limit, order);
    const shown = prefix.slice(offset).map((position) => position.id);
    this.keep(key, {
      shown,
      through: new Set(prefix.map((position) => position.id)),
      last: prefix.length === offset + limit ? prefix.at(-1) : undefined,
      revision: version.revision,
      until: version.until,
      at: Date.now(),
    });
    return shown;
  }

  private async stillHolds(page: KeptPage, filter: EventListFilter, version: CalendarVersion, order: EventOrder): Promise<boolean> {
    const current = page.revision <= version.revision && (page.until === null || version.from < page.until);
    if (!current || Date.now() - page.at >= MAX_KEPT_AGE_MS) return false;
    if (page.revision < version.revision) {
      const { ids, incomplete } = await changedEventsSince(this.db, version, page.revision);
      if (incomplete || ids.some((id) => page.through.has(id))) return false;
      if (ids.length > 0 && (await matchesThrough(this.db, filter, ids, page.last, order))) return false;
    }
    Object.assign(page, { revision: Math.max(page.revision, version.revision), until: version.until, at: Date.now() });
    return true;
  }

  /** Keeps `page` under `key` as the most recently used, and forgets the least recently used beyond the bounds. */
  private keep(key: string, page: KeptPage): void {
    this.forget(key);
    this.pages.set(key, page);
    this.idsKept += page.through.size;
    for (const oldest of this.pages.keys()) {
      if (this.pages.size <= this.limits.maxPages && this.idsKept <= this.limits.maxIds) break;
      this.forget(oldest);
    }
  }

  private forget(key: string): void {
    const page = this.pages.get(key);
    if (page === undefined) return;
    this.pages.delete(key);
    this.idsKept -= page.through.size;
  }
}
