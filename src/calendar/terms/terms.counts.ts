import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.ts';
import { currentCalendarVersion, type CalendarVersion } from '../shared/calendar-version.ts';
import * as repository from './terms.repository.ts';

type Db = Kysely<Database>;

/**
 * A term's `count` is the number of its published events: the database
 * keeps those stored as `publish` in `terms.published_count`, and a query
 * adds the scheduled ones whose date has passed (terms.repository.ts). Every
 * event and list response embeds several terms, so counts are also
 * remembered per process for the current calendar version (see
 * calendar-version.ts): a write by any process bumps the revision, and a
 * `future` event reaching its date ends the version, so the counts are exact
 * at every instant. Counts are read at the version's `from` instant, which
 * gives the same result at any instant of the version; a read racing with a
 * write lands in the memo of the version read before it, which that write
 * has ended.
 */
class TermCounts {
  private version: CalendarVersion | undefined;
  private counts = new Map<number, number>();

  async get(db: Db, termIds: readonly number[]): Promise<Map<number, number>> {
    const version = await currentCalendarVersion(db);
    if (version !== this.version) {
      this.version = version;
      this.counts = new Map();
    }
    const counts = this.counts;
    const missing = [...new Set(termIds)].filter((id) => !counts.has(id));
    if (missing.length > 0) {
      const counted = await repository.countPublishedEvents(db, missing, version.from);
      for (const id of missing) counts.set(id, counted.get(id) ?? 0);
    }
    return new Map(termIds.map((id) => [id, counts.get(id) ?? 0]));
  }
}

/**
 * One memo per database handle. A transaction is a handle of its own, so
 * what it reads (its own uncommitted writes) never reaches the shared memo.
 */
const caches = new WeakMap<Db, TermCounts>();

/** Published-event counts of the terms `termIds` (each asked id gets an entry). */
export async function publishedEventCounts(db: Db, termIds: readonly number[]): Promise<Map<number, number>> {
  if (termIds.length === 0) return new Map();
  let cache = caches.get(db);
  if (cache === undefined) {
    cache = new TermCounts();
    caches.set(db, cache);
  }
  return cache.get(db, termIds);
}
