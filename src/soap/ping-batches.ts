import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.ts';
import type { BackgroundWork } from '../platform/background.ts';
import { GroupCommitQueue } from '../platform/group-commit-queue.ts';
import { insertPings, type NewPingRow } from './pings.repository.ts';

/**
 * Group commit: pings are written by one statement per batch, which commits
 * them all at once, and each is acknowledged only after that commit. A batch
 * is what arrived in the current tick of the event loop, or, while a batch is
 * being committed (a round trip to PostgreSQL), everything that arrived
 * meanwhile. A commit costs about the same for one row or fifty (the WAL
 * pages it appends, the round trip, PostgreSQL's flush to disk), so under
 * load a ping costs a share of one.
 */
export class PingBatches {
  private readonly batches: GroupCommitQueue<NewPingRow, void>;

  constructor(db: Kysely<Database>, background?: BackgroundWork) {
    this.batches = new GroupCommitQueue<NewPingRow, void>(async (pings) => {
      await insertPings(db, pings);
      return pings.map(() => ({ value: undefined }));
    }, background);
  }

  /** Resolves once the ping is committed; rejects, having stored nothing, if its batch could not be. */
  write(ping: NewPingRow): Promise<void> {
    return this.batches.add(ping);
  }
}
