import type { EventListFilter } from './events.repository.ts';

/** How long a remembered total may be reused; another process's writes show after at most this. */
export const TOTAL_TTL_MS = 2000;
const MAX_ENTRIES = 500;

/**
 * Totals of event lists, remembered briefly in this process. Counting a
 * window costs time linear in the events it matches, and every archive page
 * asks for it. Only filters on the events' own columns are remembered —
 * never links, terms, search or geolocation, which other modules change —
 * every event write in this process forgets them all, and an entry expires
 * after `TOTAL_TTL_MS` (design.md: per-process caches may be briefly stale).
 */
export class EventTotals {
  private readonly entries = new Map<string, { total: number; expiresAt: number }>();
  /** Bumped by every write, so a count that raced with one is not remembered. */
  private generation = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  private keyOf(filter: EventListFilter): string | undefined {
    const { venueIds, organizerIds, categoryIds, tagIds, search, nearVenueIds, geolocated, nowUtc: _now, ...own } = filter;
    const linked = [venueIds, organizerIds, categoryIds, tagIds, search, nearVenueIds, geolocated];
    return linked.every((value) => value === undefined) ? JSON.stringify(own) : undefined;
  }

  /** The total for `filter`, counted by `count` unless a fresh one is remembered. */
  async get(filter: EventListFilter, count: () => Promise<number>): Promise<number> {
    const key = this.keyOf(filter);
    if (key === undefined) return count();
    const now = this.clock();
    const entry = this.entries.get(key);
    if (entry !== undefined && entry.expiresAt > now) return entry.total;
    const generation = this.generation;
    const total = await count();
    if (generation !== this.generation) return total;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, { total, expiresAt: now + TOTAL_TTL_MS });
    return total;
  }

  forgetAll(): void {
    this.generation += 1;
    this.entries.clear();
  }
}
