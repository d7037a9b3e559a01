import type { CalendarVersion } from '../shared/calendar-version.ts';
import type { EventListFilter } from './events.repository.ts';

const MAX_ENTRIES = 500;

/**
 * Totals of event lists, remembered in this process for the current
 * calendar version (calendar-version.ts). Counting a window costs time
 * linear in the events it matches, and every archive page asks for it.
 * Within a version neither a write nor the clock can change a total, so
 * one counted at any instant of it holds for the whole version, whatever
 * the filter: the filter's `nowUtc` is left out of the key.
 */
export class EventTotals {
  private version: CalendarVersion | undefined;
  private entries = new Map<string, number>();

  /**
   * The total for `filter`, counted by `count` unless remembered in
   * `version`. A count racing with a write is remembered in the version
   * read before it, which that write has ended.
   */
  async get(filter: EventListFilter, version: CalendarVersion, count: () => Promise<number>): Promise<number> {
    if (version !== this.version) {
      this.version = version;
      this.entries = new Map();
    }
    const entries = this.entries;
    const { nowUtc: _now, ...rest } = filter;
    const key = JSON.stringify(rest);
    const known = entries.get(key);
    if (known !== undefined) return known;
    const total = await count();
    if (entries.size >= MAX_ENTRIES) entries.clear();
    entries.set(key, total);
    return total;
  }
}
