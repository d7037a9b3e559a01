import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.ts';
import { insertPings, type NewPingRow } from './pings.repository.ts';

interface Waiting {
  readonly ping: NewPingRow;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit: the pings that arrive in one turn of the event loop are
 * written by one statement, which commits them all at once, and each is
 * acknowledged only after that commit. A commit costs the same for one row
 * or fifty (the WAL pages it writes, the round trip to PostgreSQL), so
 * under load a ping costs a share of one.
 */
export class PingBatches {
  private waiting: Waiting[] = [];

  constructor(private readonly db: Kysely<Database>) {}

  /** Resolves once the ping is committed; rejects, having stored nothing, if its batch could not be. */
  write(ping: NewPingRow): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.waiting.length === 0) setImmediate(() => void this.flush());
      this.waiting.push({ ping, resolve, reject });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    try {
      await insertPings(this.db, batch.map((entry) => entry.ping));
      for (const entry of batch) entry.resolve();
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  }
}
