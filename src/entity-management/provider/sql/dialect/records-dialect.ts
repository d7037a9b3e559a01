import type { RawBuilder } from 'kysely';

/** What the records SQL needs that SQLite and PostgreSQL spell differently. */
export interface RecordsDialect {
  /** Appended to a single-row select that is followed by a write of that row in the same transaction. */
  readonly lockRow: RawBuilder<unknown>;
}
