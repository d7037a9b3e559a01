import type { EventListFilter } from './events.repository.ts';

/**
 * How long a remembered total may be reused at one revision: writes are seen
 * at once (they bump the revision); only the passage of time (a `future`
 * event reaching its date) shows after at most this.
 */
export const TOTAL_TTL_MS = 2000;
const MAX_ENTRIES = 500;

/**
 * Totals of event lists, remembered briefly in this process. Counting a
 * window costs time linear in the events it matches, and every archive page
 * asks for it. Only filters on the events' own columns are remembered —
 * never links, terms, search or geolocation, which other modules change.
 * Entries are keyed by the events revision that every event write bumps in
 * the database, so a write in any process makes them stale at once.
 */
export class EventTotals {
  private readonly entries = new Map<string, { total: number; expiresAt: number }>();

  constructor(private readonly clock: () => number = Date.now) {}

  private keyOf(filter: EventListFilter): string | undefined {
    const { venueIds, organizerIds, categoryIds, tagIds, search, nearVenueIds, geolocated, nowUtc: _now, ...own } = filter;
    const linked = [venueIds, organizerIds, categoryIds, tagIds, search, nearVenueIds, geolocated];
    return linked.every((value) => value === undefined) ? JSON.stringify(own) : undefined;
  }

  /**
   * The total for `filter`, counted by `count` unless one counted at the
   * current `revision` is remembered. A count racing with a write is stored
   * under the revision read before it, which that write has made stale.
   */
  async get(filter: EventListFilter, revision: () => Promise<number>, count: () => Promise<number>): Promise<number> {
    const filterKey = this.keyOf(filter);
    if (filterKey === undefined) return count();
    const key = `${await revision()}\u0000${filterKey}`;
    const now = this.clock();
    const entry = this.entries.get(key);
    if (entry !== undefined && entry.expiresAt > now) return entry.total;
    const total = await count();
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, { total, expiresAt: now + TOTAL_TTL_MS });
    return total;
  }
}
