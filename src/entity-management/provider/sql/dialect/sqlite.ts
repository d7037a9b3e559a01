import { sql } from 'kysely';
import type { RecordsDialect } from './records-dialect.ts';

export const sqliteRecords: RecordsDialect = {
  // A SQLite write transaction already excludes every other writer.
  lockRow: sql``,
};
