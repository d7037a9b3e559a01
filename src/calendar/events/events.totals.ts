import type { CalendarVersion } from '../shared/calendar-version.ts';
import type { EventListFilter } from './events.repository.ts';

const MAX_ENTRIES = 500;

/**
 * The total of an event list, remembered in the calendar version it is
 * read at (calendar-version.ts). Counting a window costs time linear in the
 * events it matches, and every archive page asks for it. Within a version
 * neither a write nor the clock can change a total, so one counted at any
 * instant of it holds for the whole version, whatever the filter: the
 * filter's `nowUtc` is left out of the key.
 */
export async function eventTotal(version: CalendarVersion, filter: EventListFilter, count: () => Promise<number>): Promise<number> {
  const entries = version.memo('event-totals', () => new Map<string, number>());
  const { nowUtc: _now, ...rest } = filter;
  const key = JSON.stringify(rest);
  const known = entries.get(key);
  if (known !== undefined) return known;
  const total = await count();
  if (entries.size >= MAX_ENTRIES) entries.clear();
  entries.set(key, total);
  return total;
}
