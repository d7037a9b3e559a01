import { PostgresAdapter, type Kysely } from 'kysely';

/** Whether `db` (or a transaction of it) speaks PostgreSQL: for the few statements that differ by dialect. */
export function isPostgres<DB>(db: Kysely<DB>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
