import { cacheKey } from '../../platform/cache/read-cache.ts';
import type { Db } from '../../platform/db/schema.ts';
import { utcStamp } from '../posts/posts.access.ts';
import type { CalendarVersion } from '../common/calendar-version.ts';
import { countPublishedEvents, countPublishedEventsOfAll } from './terms.repository.ts';

/** Terms a version counts all at once (a few dozen in most calendars); beyond, the terms asked for are counted. */
const COUNT_ALL_MAX = 1000;

const bytesOf = (counts: ReadonlyMap<number, number> | null) => 16 * (counts?.size ?? 0) + 8;

/**
 * Published-event counts of the terms `termIds` (each asked id gets an entry).
 *
 * A term's `count` is the number of its published events: the database
 * keeps those stored as `publish` in `terms.published_count`, and a query
 * adds the scheduled ones whose date has passed (terms.repository.ts). Every
 * event and list response embeds several terms, so a read counts them once
 * per calendar version (calendar-version.ts), at the version's `from`
 * instant, which gives the same result at any instant of the version: every
 * term at once when there are few (one statement for all the version's
 * requests), else the terms asked for. A write (no version) counts what its
 * transaction sees, now.
 */
export async function publishedEventCounts(
  db: Db,
  termIds: readonly number[],
  version: CalendarVersion | undefined,
): Promise<Map<number, number>> {
  const unique = [...new Set(termIds)];
  if (unique.length === 0) return new Map();
  if (version === undefined) return withZeros(unique, await countPublishedEvents(db, unique, utcStamp(new Date())));
  const all = await version.once(
    cacheKey('term-counts'),
    // null: too many terms to count all.
    async () => (await countPublishedEventsOfAll(db, version.from, COUNT_ALL_MAX)) ?? null,
    bytesOf,
  );
  if (all !== null) return withZeros(unique, all);
  unique.sort((a, b) => a - b);
  return version.once(
    cacheKey('term-counts', ...unique),
    async () => withZeros(unique, await countPublishedEvents(db, unique, version.from)),
    bytesOf,
  );
}

function withZeros(ids: readonly number[], counted: ReadonlyMap<number, number>): Map<number, number> {
  return new Map(ids.map((id) => [id, counted.get(id) ?? 0]));
}
