import { sql } from 'kysely';
import type { RecordsDialect } from './records-dialect.ts';

export const postgresRecords: RecordsDialect = {
  // Concurrent partial updates of one record must not lose each other's fields.
  lockRow: sql`for update`,
};
