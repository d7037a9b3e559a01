import { sql } from 'kysely';
import type { RecordsDialect } from './records-dialect.ts';

export const sqliteRecords: RecordsDialect = {
  // The platform overrides SQLite's lower() on every connection to fold all of Unicode.
  lower: (expression) => sql<string>`lower(${expression})`,
  // A SQLite write transaction already excludes every other writer.
  lockRow: sql``,
};
