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
  const counts = version.memo('term-counts', (): VersionCounts => ({ all: false, of: new Map() }));
  const missing = counts.all ? [] : unique.filter((id) => !counts.of.has(id));
  if (missing.length > 0) {
    // The first read of a version counts every term when there are few (one statement where each page of a list
    // asked for its own terms, after every write); many terms are counted as they are asked for.
    const every = counts.of.size === 0 ? await countPublishedEventsOfAll(db, version.from, COUNT_ALL_MAX) : undefined;
    if (every !== undefined) {
      counts.of = every;
      counts.all = true;
    } else for (const [id, count] of withZeros(missing, await countPublishedEvents(db, missing, version.from))) counts.of.set(id, count);
  }
  return new Map(unique.map((id) => [id, counts.of.get(id) ?? 0]));
}

/** The counts a version has read: every term's (`all`), or those asked for so far. */
interface VersionCounts {
  all: boolean;
  of: Map<number, number>;
}

function withZeros(ids: readonly number[], counted: ReadonlyMap<number, number>): Map<number, number> {
  return new Map(ids.map((id) => [id, counted.get(id) ?? 0]));
}
