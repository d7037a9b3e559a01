import { sql } from 'kysely';
import type { RecordsDialect } from './records-dialect.ts';

export const postgresRecords: RecordsDialect = {
  // Text columns are collated "C" for byte order; lower() under "C" would fold ASCII only.
  lower: (expression) => sql<string>`lower(${expression} collate "default")`,
  // Concurrent partial updates of one record must not lose each other's fields.
  lockRow: sql`for update`,
  transaction: (db, work) => db.transaction().execute(work),
};
