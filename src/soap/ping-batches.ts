import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.ts';
import { insertPings, type NewPingRow } from './pings.repository.ts';

interface Waiting {
  readonly ping: NewPingRow;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit: pings are written by one statement per batch, which commits
 * them all at once, and each is acknowledged only after that commit. A batch
 * is what arrived in the current turn of the event loop, or, while a batch is
 * being committed (a round trip to PostgreSQL), everything that arrived
 * meanwhile. A commit costs about the same for one row or fifty (the WAL
 * pages it writes, the round trip, PostgreSQL's flush to disk), so under
 * load a ping costs a share of one.
 */
export class PingBatches {
  private waiting: Waiting[] = [];
  private flushing = false;

  constructor(private readonly db: Kysely<Database>) {}

  /** Resolves once the ping is committed; rejects, having stored nothing, if its batch could not be. */
  write(ping: NewPingRow): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ ping, resolve, reject });
      if (this.waiting.length === 1 && !this.flushing) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    this.flushing = true;
    try {
      await insertPings(
        this.db,
        batch.map((entry) => entry.ping),
      );
      for (const entry of batch) entry.resolve();
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    } finally {
      this.flushing = false;
      if (this.waiting.length > 0) setImmediate(() => void this.flush());
    }
  }
}
