import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.ts';
import { utcStamp } from '../posts/posts.access.ts';
import type { CalendarVersion } from '../shared/calendar-version.ts';
import { countPublishedEvents, countPublishedEventsOfAll } from './terms.repository.ts';

/** Terms a version counts all at once (a few dozen in most calendars); beyond, each count is read when asked for. */
const COUNT_ALL_MAX = 1000;

type Db = Kysely<Database>;

/**
 * Published-event counts of the terms `termIds` (each asked id gets an entry).
 *
 * A term's `count` is the number of its published events: the database
 * keeps those stored as `publish` in `terms.published_count`, and a query
 * adds the scheduled ones whose date has passed (terms.repository.ts). Every
 * event and list response embeds several terms, so a read remembers counts
 * in the calendar version it reads at (calendar-version.ts), counted at the
 * version's `from` instant, which gives the same result at any instant of
 * the version. A write (no version) counts what its transaction sees, now.
 */
export async function publishedEventCounts(
  db: Db,
  termIds: readonly number[],
  version: CalendarVersion | undefined,
): Promise<Map<number, number>> {
  const unique = [...new Set(termIds)];
  if (unique.length === 0) return new Map();
  if (version === undefined) return withZeros(unique, await countPublishedEvents(db, unique, utcStamp(new Date())));
  // The first read of a version counts every term when there are few, once for all the version's requests (one
  // statement where each page of a list asked for its own terms after every write); many are counted as asked for.
  const counts = version.memo('term-counts', (): VersionCounts => ({
    // A failed count is not kept for the version: its requests count what they ask for (and fail on their own).
    all: countPublishedEventsOfAll(db, version.from, COUNT_ALL_MAX).catch(() => undefined),
    asked: new Map(),
  }));
  const all = await counts.all;
  if (all !== undefined) return new Map(unique.map((id) => [id, all.get(id) ?? 0]));
  const missing = unique.filter((id) => !counts.asked.has(id));
  if (missing.length > 0)
    for (const [id, count] of withZeros(missing, await countPublishedEvents(db, missing, version.from))) counts.asked.set(id, count);
  return new Map(unique.map((id) => [id, counts.asked.get(id) ?? 0]));
}

/** The counts a version has read: every term's (`undefined` when there are too many), else those asked for so far. */
interface VersionCounts {
  readonly all: Promise<Map<number, number> | undefined>;
  readonly asked: Map<number, number>;
}

function withZeros(ids: readonly number[], counted: ReadonlyMap<number, number>): Map<number, number> {
  return new Map(ids.map((id) => [id, counted.get(id) ?? 0]));
}
