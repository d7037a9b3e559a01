import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.ts';
import { utcStamp } from '../posts/posts.access.ts';
import type { CalendarVersion } from '../shared/calendar-version.ts';
import { countPublishedEvents } from './terms.repository.ts';

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
  const counts = version.memo('term-counts', () => new Map<number, number>());
  const missing = unique.filter((id) => !counts.has(id));
  if (missing.length > 0)
    for (const [id, count] of withZeros(missing, await countPublishedEvents(db, missing, version.from))) counts.set(id, count);
  return new Map(unique.map((id) => [id, counts.get(id) ?? 0]));
}

function withZeros(ids: readonly number[], counted: ReadonlyMap<number, number>): Map<number, number> {
  return new Map(ids.map((id) => [id, counted.get(id) ?? 0]));
}
