import { Kysely, PostgresAdapter, PostgresDialect, sql, type DialectAdapter } from 'kysely';
import pg from 'pg';
import type { Database } from '../schema.ts';
import { ForeignKeyViolationError, UniqueViolationError } from './errors.ts';
import { pipelineTransactions } from './postgres-pipeline.ts';
import type { StatementListener } from './statement-log.ts';

// COUNT(*) and BIGINT come back as strings by default; our counts fit in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number.parseFloat(value));

/** Kysely's migration lock id, retained so that a server of an older version and this one still exclude each other's migrations. */
const MIGRATION_LOCK_ID = sql.lit('3853314791062309107');

/**
 * Migrations under a transaction-scoped lock, so that PostgreSQL behind a
 * pooler in transaction mode (PgBouncer) works: Kysely takes a session-level
 * advisory lock in one statement, migrates in a transaction and unlocks in a
 * third, and a transaction pooler may run the three on different server
 * connections — the lock then stays with a pooled connection (the next start
 * waits an hour) or two starts both get it. Here the lock opens the
 * transaction the migrations run in (Kysely's own BEGIN, on the same
 * connection, only warns), and their COMMIT or ROLLBACK releases it.
 */
class TransactionPoolSafeAdapter extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`begin`.execute(db);
    await sql`select set_config('lock_timeout', '3600000', true)`.execute(db);
    await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`.execute(db);
  }

  override async releaseMigrationLock(db: Kysely<unknown>): Promise<void> {
    // Ends the transaction if the migrations' own never began (after a commit it only warns).
    await sql`rollback`.execute(db);
  }
}

class TransactionPoolSafeDialect extends PostgresDialect {
  override createAdapter(): DialectAdapter {
    return new TransactionPoolSafeAdapter();
  }
}

/**
 * Nothing here relies on session state (no named prepared statements, session
 * advisory locks, `SET`, `LISTEN` or temporary tables): every connection is
 * interchangeable between transactions, as a transaction pooler requires.
 */
export function createPostgresDb(connectionString: string, onStatement?: StatementListener): { db: Kysely<Database>; pool: pg.Pool } {
  const pool = new pg.Pool({ connectionString, max: 10, idleTimeoutMillis: 30_000, pipeline: true });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => pipelineTransactions(client, onStatement));
  return { db: new Kysely<Database>({ dialect: new TransactionPoolSafeDialect({ pool }) }), pool };
}

/** Translates node-postgres SQLSTATE errors into the storage-neutral ones. */
export function translatePostgresError(error: unknown): unknown {
  if (!(error instanceof Error) || !('code' in error)) return error;
  const constraint = 'constraint' in error && typeof error.constraint === 'string' ? error.constraint : undefined;
  switch (error.code) {
    case '23505':
      return new UniqueViolationError(constraint, { cause: error });
    case '23503':
      return new ForeignKeyViolationError({ cause: error });
    default:
      return error;
  }
}
