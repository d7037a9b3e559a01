import type { Kysely, RawBuilder } from 'kysely';
import type { Database } from '../../../../platform/db/schema.ts';

/** What the records SQL needs that SQLite and PostgreSQL spell differently. */
export interface RecordsDialect {
  /** Appended to a single-row select that is followed by a write of that row in the same transaction. */
  readonly lockRow: RawBuilder<unknown>;
  /** Runs `work` in one transaction that may write, safe against writers in other processes. */
  transaction<T>(db: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
}
