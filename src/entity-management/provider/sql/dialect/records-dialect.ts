import type { RawBuilder } from 'kysely';

/** What the records SQL needs that SQLite and PostgreSQL spell differently. */
export interface RecordsDialect {
  /** Lower-cases a text expression across all of Unicode, for case-insensitive search. */
  lower(expression: RawBuilder<unknown>): RawBuilder<string>;
  /** Appended to a single-row select that is followed by a write of that row in the same transaction. */
  readonly lockRow: RawBuilder<unknown>;
}
