import type { BackgroundWork } from '../platform/background.ts';
import { isPostgres } from '../platform/db/dialect-of.ts';
import type { Db } from '../platform/db/schema.ts';
import { GroupCommitQueue } from '../platform/group-commit-queue.ts';
import { insertPings, type NewPingRow } from './pings.repository.ts';

/** Batches PostgreSQL commits at once: while one waits for its WAL flush, the next is under way. */
const POSTGRES_BATCHES_IN_FLIGHT = 4;

/** How many batches of pings are committed at once on `db`. */
export const batchesInFlight = (db: Db): number => (isPostgres(db) ? POSTGRES_BATCHES_IN_FLIGHT : 1);

/**
 * Group commit: pings are written by one statement per batch, which commits
 * them all at once, and each is acknowledged only after that commit. A batch
 * is what arrived in the current tick of the event loop, or, while batches
 * are being committed, everything that arrived meanwhile. A commit costs
 * about the same for one row or fifty (the WAL pages it appends, the round
 * trip, PostgreSQL's flush to disk), so under load a ping costs a share of one.
 */
export class PingBatches {
  private readonly batches: GroupCommitQueue<NewPingRow, void>;

  constructor(db: Db, background?: BackgroundWork) {
    this.batches = new GroupCommitQueue<NewPingRow, void>(
      async (pings) => {
        await insertPings(db, pings);
        return pings.map(() => ({ value: undefined }));
      },
      background,
      batchesInFlight(db),
    );
  }

  /** Resolves once the ping is committed; rejects, having stored nothing, if its batch could not be. */
  write(ping: NewPingRow): Promise<void> {
    return this.batches.add(ping);
  }
}
