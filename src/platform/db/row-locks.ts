import type { Kysely, SelectQueryBuilder } from 'kysely';
import { isPostgres } from './dialect-of.ts';

/**
 * Holds the rows a write reads, so that what it checks is what it writes
 * over until it commits. PostgreSQL: `FOR UPDATE` (a concurrent writer of the
 * row waits, then reads what was committed). SQLite needs nothing: every
 * write transaction begins IMMEDIATE and holds the database's one write lock.
 * Call it inside the write's transaction, on the transaction's handle.
 */
export function lockingRows<DB, TB extends keyof DB, O>(
  db: Kysely<DB>,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return isPostgres(db) ? query.forUpdate() : query;
}
