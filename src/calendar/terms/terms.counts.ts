import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.ts';
import { utcStamp } from '../shared/permissions.ts';
import { readEventsRevision } from '../shared/revisions.repository.ts';
import * as repository from './terms.repository.ts';

type Db = Kysely<Database>;

/**
 * The counts of published events of terms at one events revision, exact
 * from `from` until `until` (the next moment a `future` event reaches its
 * date and becomes published, or never).
 */
interface Snapshot {
  readonly revision: number;
  readonly from: string;
  readonly until: string | null;
  readonly counts: Map<number, number>;
}

/**
 * A term's `count` is the number of its published events; counting it costs
 * time linear in the events filed under the term (thousands per term at 100k
 * events), and every event and list response embeds several terms. So counts
 * are remembered per process, each one counted once per snapshot:
 *
 * - the snapshot is keyed by the events revision, which every write to
 *   `events` or `event_terms` (event writes, term deletes cascading to their
 *   links, the demo loader) bumps in its own transaction — a write made by
 *   any process sharing the database makes it stale at the next read;
 * - the only change without a write is time: a `future` event whose date
 *   passes counts as published. The snapshot ends at the earliest date of a
 *   `future` event still to come, so it is exact at every instant, not just
 *   eventually.
 *
 * Counts read in a snapshot are counted at its `from` instant: they hold for
 * the whole snapshot, whichever request fills them. A count racing with a
 * write lands in the snapshot of the revision read before it, which that
 * write has made stale. Storing counts instead (updated by every write,
 * corrected at read time for past-dated `future` events) would save the
 * first count after each write, at the price of keeping them right on every
 * write path; this costs one primary-key read per request.
 */
class TermCounts {
  private snapshot: Snapshot | undefined;

  async get(db: Db, termIds: readonly number[]): Promise<Map<number, number>> {
    const snapshot = await this.current(db);
    const missing = [...new Set(termIds)].filter((id) => !snapshot.counts.has(id));
    if (missing.length > 0) {
      const counted = await repository.countPublishedEvents(db, missing, snapshot.from);
      for (const id of missing) snapshot.counts.set(id, counted.get(id) ?? 0);
    }
    return new Map(termIds.map((id) => [id, snapshot.counts.get(id) ?? 0]));
  }

  private async current(db: Db): Promise<Snapshot> {
    const revision = await readEventsRevision(db);
    const now = utcStamp(new Date());
    const known = this.snapshot;
    if (known !== undefined && known.revision === revision && known.from <= now && (known.until === null || now < known.until)) return known;
    const until = await repository.findNextPublication(db, now);
    const fresh: Snapshot = { revision, from: now, until, counts: new Map() };
    this.snapshot = fresh;
    return fresh;
  }
}

/**
 * One cache per database handle. A transaction is a handle of its own, so
 * what it reads (its own uncommitted writes) never reaches the shared cache.
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
