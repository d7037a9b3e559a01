import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type SqliteDatabase as KyselySqliteDatabase,
  type SqliteDialectConfig,
  type SqliteStatement,
} from 'kysely';
import type { Database } from '../schema.ts';
import { ForeignKeyViolationError, UniqueViolationError } from './errors.ts';

export interface SqliteOptions {
  /** A file path, or `:memory:`. */
  readonly file: string;
  readonly synchronous: 'NORMAL' | 'FULL';
}

export function createSqliteDb(options: SqliteOptions): { db: Kysely<Database>; raw: SqliteDatabase.Database } {
  if (options.file !== ':memory:') mkdirSync(dirname(options.file), { recursive: true });
  const raw = new SqliteDatabase(options.file);
  raw.pragma('journal_mode = WAL');
  raw.pragma(`synchronous = ${options.synchronous}`);
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  keepPlannerStatistics(raw);
  // SQLite's lower() folds ASCII only; PostgreSQL's folds all of Unicode. Overriding it
  // lets `lower(x) LIKE lower(?)` mean the same on both ("CITTÀ" matches "città").
  raw.function('lower', { deterministic: true }, (value: unknown) =>
    typeof value === 'string' ? value.toLowerCase() : value,
  );
  return { db: new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: reusingStatements(raw) }) }), raw };
}

/** Distinct SQL texts kept prepared; the application issues a few hundred shapes. */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * Kysely prepares every statement on every execution; compiling SQL is a
 * tenth of a single-event GET's CPU time (docs/perf.md). Prepared statements
 * are kept by SQL text instead (least recently used out first). SQLite
 * re-prepares a kept statement by itself after a schema change. Sharing one
 * is safe: every query runs to completion (`all`/`run`) before the next starts.
 */
function reusingStatements(raw: SqliteDatabase.Database): KyselySqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => raw.close(),
    prepare: (text) => {
      let statement = statements.get(text);
      if (statement === undefined) {
        statement = raw.prepare(text);
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value as string);
      } else {
        statements.delete(text);
      }
      statements.set(text, statement);
      return statement;
    },
  };
}

/** How often a long-lived connection refreshes the planner's statistics (SQLite's recommended practice). */
const OPTIMIZE_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Without statistics (`sqlite_stat1`) SQLite's planner guesses, and on the
 * filtered event list it walks a 60-day date window instead of the venue
 * index (37 ms instead of 0.1 ms at 100k events, docs/perf.md). `PRAGMA
 * optimize` runs ANALYZE only on the tables whose statistics are missing or
 * stale, with a bounded sample (analysis_limit), so it is cheap when there is
 * nothing to do: on open for every table (0x10000), then hourly for a
 * database that grew while the server ran.
 */
function keepPlannerStatistics(raw: SqliteDatabase.Database): void {
  raw.pragma('optimize = 0x10002');
  const timer = setInterval(() => {
    if (raw.open) raw.pragma('optimize');
    else clearInterval(timer);
  }, OPTIMIZE_INTERVAL_MS);
  timer.unref();
}

/**
 * Transactions take the write lock up front (`BEGIN IMMEDIATE`, waiting on
 * busy_timeout). A deferred transaction that reads and then writes fails at
 * once with SQLITE_BUSY when another process (the CLI, a second server)
 * committed in between — a 500 instead of a short wait.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly driverConfig: SqliteDialectConfig) {
    super(driverConfig);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.driverConfig);
  }
}

/** Translates better-sqlite3 constraint errors into the storage-neutral ones. */
export function translateSqliteError(error: unknown): unknown {
  if (!(error instanceof Error) || !('code' in error)) return error;
  switch (error.code) {
    case 'SQLITE_CONSTRAINT_UNIQUE':
    case 'SQLITE_CONSTRAINT_PRIMARYKEY': {
      const constraint = /UNIQUE constraint failed: (.*)$/.exec(error.message)?.[1];
      return new UniqueViolationError(constraint, { cause: error });
    }
    case 'SQLITE_CONSTRAINT_FOREIGNKEY':
      return new ForeignKeyViolationError({ cause: error });
    default:
      return error;
  }
}
