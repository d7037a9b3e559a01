import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../schema.ts';
import { ForeignKeyViolationError, UniqueViolationError } from './errors.ts';

// COUNT(*) and BIGINT come back as strings by default; our counts fit in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number.parseFloat(value));

export function createPostgresDb(connectionString: string): { db: Kysely<Database>; pool: pg.Pool } {
  const pool = new pg.Pool({ connectionString, max: 10, idleTimeoutMillis: 30_000 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), pool };
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
