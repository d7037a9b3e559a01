import { sql } from 'kysely';
import type { RecordsDialect } from './records-dialect.ts';

export const sqliteRecords: RecordsDialect = {
  // A SQLite write transaction already excludes every other writer.
  lockRow: sql``,
  // BEGIN IMMEDIATE takes the write lock up front (waiting on busy_timeout). A deferred
  // transaction that reads and then writes fails at once with SQLITE_BUSY when another
  // process committed in between, and that would be a 500.
  transaction: (db, work) =>
    db.connection().execute(async (connection) => {
      await sql`begin immediate`.execute(connection);
      try {
        const result = await work(connection);
        await sql`commit`.execute(connection);
        return result;
      } catch (error) {
        await sql`rollback`.execute(connection);
        throw error;
      }
    }),
};
