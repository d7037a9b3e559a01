import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CompiledQuery,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type SqliteDatabase as KyselySqliteDatabase,
  type SqliteDialectConfig,
  type SqliteStatement,
} from 'kysely';
import { PlatformErrors } from '../../errors.ts';
import type { Database } from '../schema.ts';
import { boundListShapes } from '../bounded-lists.ts';
import { ForeignKeyViolationError, UniqueViolationError } from './errors.ts';
import { checkpointInBackground, type Checkpointer } from './sqlite-checkpoints.ts';
import { statementLog, type StatementListener } from './statement-log.ts';
import { SqliteDatabase } from './sqlite-driver.ts';

export interface SqliteOptions {
  /** A file path, or `:memory:`. */
  readonly file: string;
  readonly synchronous: 'NORMAL' | 'FULL';
  /** How long a statement keeps retrying while another process holds the write lock (`SQLITE_BUSY_WAIT_MS`); 5 s by default. */
  readonly busyWaitMs?: number;
  readonly onStatement?: StatementListener;
  /** Told when the checkpointing thread fails: WAL checkpoints in a thread of their own (sqlite-checkpoints.ts), or inline when absent. */
  readonly onCheckpointError?: (error: Error) => void;
}

/**
 * How long one attempt waits for a lock inside SQLite. That wait sleeps the
 * main thread, so it stays short: long enough for another process's commit or
 * a WAL checkpoint, too short to hold up the other requests.
 */
const BUSY_TIMEOUT_MS = 5;

export function createSqliteDb(options: SqliteOptions): {
  db: Kysely<Database>;
  raw: SqliteDatabase;
  statementsPrepared: () => number;
  checkpointer: Checkpointer | undefined;
} {
  if (options.file !== ':memory:') mkdirSync(dirname(options.file), { recursive: true });
  const busyWaitMs = options.busyWaitMs ?? 5000;
  // Nothing is served while the database opens, so here the whole budget may be waited in place.
  const raw = new SqliteDatabase(options.file, { timeout: busyWaitMs });
  raw.pragma('journal_mode = WAL');
  raw.pragma(`synchronous = ${options.synchronous}`);
  raw.pragma('foreign_keys = ON');
  keepPlannerStatistics(raw);
  raw.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // SQLite's lower() folds ASCII only; PostgreSQL's folds all of Unicode. Overriding it
  // lets `lower(x) LIKE lower(?)` mean the same on both ("CITTÀ" matches "città").
  raw.function('lower', { deterministic: true }, (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : value));
  const statements = reusingStatements(raw);
  const dialect = new WriteLockSqliteDialect({ database: statements }, raw, busyWaitMs);
  const checkpointer =
    options.onCheckpointError === undefined || options.file === ':memory:'
      ? undefined
      : checkpointInBackground(raw, options.file, options.onCheckpointError);
  return {
    db: new Kysely<Database>({ dialect, log: statementLog(options.onStatement) }),
    raw,
    statementsPrepared: statements.prepared,
    checkpointer,
  };
}

/** Distinct SQL texts cached as prepared statements; the application issues a few hundred shapes. */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * Kysely prepares every statement on every execution; compiling SQL is a
 * tenth of a single-event GET's CPU time (docs/perf.md). Prepared statements
 * are cached by SQL text instead (least recently used out first). SQLite
 * re-prepares a cached statement by itself after a schema change. Sharing one
 * is safe: every query runs to completion (`all`/`run`) before the next starts.
 */
function reusingStatements(raw: SqliteDatabase): KyselySqliteDatabase & { prepared: () => number } {
  const statements = new Map<string, SqliteStatement>();
  let prepared = 0;
  return {
    close: () => raw.close(),
    prepared: () => prepared,
    prepare: (text) => {
      let statement = statements.get(text);
      if (statement === undefined) {
        statement = raw.prepare(text);
        prepared += 1;
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
 * database that grew while the server ran. Its samples are forgotten (below).
 */
function keepPlannerStatistics(raw: SqliteDatabase): void {
  raw.pragma('optimize = 0x10002');
  forgetPlannerSamples(raw);
  const timer = setInterval(() => {
    if (!raw.open) {
      clearInterval(timer);
      return;
    }
    try {
      raw.pragma('optimize');
      forgetPlannerSamples(raw);
    } catch (error) {
      // Another process is writing: the statistics can wait for the next hour, the process must not crash.
      if (!isBusy(error)) throw error;
    }
  }, OPTIMIZE_INTERVAL_MS);
  timer.unref();
}

/**
 * better-sqlite3's SQLite is built with STAT4: ANALYZE also keeps samples of each index's values, and a statement
 * with a bound value the planner could look up in them is prepared again whenever values are bound to it, that is at
 * every run: a create's inserts with their triggers, the events list's page (100 µs a run; 65 µs without samples).
 * The planner keeps `sqlite_stat1`'s counts. So each ANALYZE of ours is followed by these statements, and a process
 * forgets the samples another process's ANALYZE left when it opens the database, and hourly.
 */
export const FORGET_PLANNER_SAMPLES = ['delete from sqlite_stat4', 'analyze sqlite_schema'] as const;

/** A row when the database has the samples' table (it has had an ANALYZE), which the statements above need. */
export const HAS_PLANNER_SAMPLES = "select 1 as kept from sqlite_schema where name = 'sqlite_stat4'";

/** Forgets the samples when there are any: deleting none would still take the write lock and reload the statistics. */
function forgetPlannerSamples(raw: SqliteDatabase): void {
  if (raw.prepare(HAS_PLANNER_SAMPLES).get() === undefined) return;
  if (raw.prepare('select 1 from sqlite_stat4 limit 1').get() === undefined) return;
  for (const statement of FORGET_PLANNER_SAMPLES) raw.exec(statement);
}

/** SQLITE_BUSY or one of its extended codes: another connection holds a lock this statement needs. */
export function isBusy(error: unknown): boolean {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' && error.code.startsWith('SQLITE_BUSY');
}

export interface BusyWait {
  /** How long to keep retrying, from the first attempt. */
  readonly budgetMs: number;
  /** Waits between two attempts (the driver lends the connection out meanwhile). */
  readonly pause: (ms: number) => Promise<void>;
}

const FIRST_PAUSE_MS = 2;
/** The longest pause: how late, at most, a waiting write notices that the lock was released. */
const LONGEST_PAUSE_MS = 32;

/**
 * Runs `attempt` (its argument counts the retries) until it does not fail
 * with SQLITE_BUSY, pausing between attempts; then `DatabaseBusyError` once
 * `budgetMs` is spent. Pauses double up to LONGEST_PAUSE_MS, each cut by a
 * random part of up to half, so that processes waiting on each other do not
 * retry in step.
 */
export async function retryWhileBusy<T>(attempt: (retry: number) => T | Promise<T>, { budgetMs, pause }: BusyWait): Promise<T> {
  const deadline = performance.now() + budgetMs;
  for (let retry = 0; ; retry += 1) {
    try {
      return await attempt(retry);
    } catch (error) {
      if (!isBusy(error)) throw error;
      const left = deadline - performance.now();
      if (left <= 0) throw PlatformErrors.databaseBusy({ cause: error });
      const longest = Math.min(LONGEST_PAUSE_MS, FIRST_PAUSE_MS * 2 ** retry);
      await pause(Math.min(left, longest * (0.5 + Math.random() / 2)));
    }
  }
}

/**
 * better-sqlite3 is synchronous: waiting on busy_timeout for another
 * process's write lock (the CLI, a second server) stopped every request of
 * this process for up to 5 s, then failed with a 500. So SQLite waits only
 * BUSY_TIMEOUT_MS, and a statement still refused is retried from timers until
 * `busyWaitMs` is spent, then fails with DatabaseBusyError (a 503 with
 * Retry-After).
 *
 * Only statements outside a transaction are retried (`BEGIN IMMEDIATE`
 * included): half a transaction cannot be replayed, so a statement inside one
 * that meets SQLITE_BUSY fails at once and the transaction rolls back — rare,
 * since the transaction took the write lock at BEGIN. Between attempts the
 * connection goes back to Kysely's mutex, so this process's reads (which WAL
 * never blocks) go on; an open transaction holds that mutex from BEGIN to
 * COMMIT, so nothing runs inside it.
 *
 * `BEGIN IMMEDIATE` rather than a deferred BEGIN: a transaction that reads
 * and then writes fails at once with SQLITE_BUSY when another process
 * committed in between, and that could not be retried.
 */
class WriteLockSqliteDriver extends SqliteDriver {
  #connection: DatabaseConnection | undefined;

  constructor(
    config: SqliteDialectConfig,
    private readonly raw: SqliteDatabase,
    private readonly busyWaitMs: number,
  ) {
    super(config);
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    this.#connection ??= new LockWaitingConnection(connection, (query) => this.execute(connection, query));
    return this.#connection;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  private async execute<R>(connection: DatabaseConnection, query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.raw.inTransaction) {
      try {
        return await connection.executeQuery<R>(query);
      } catch (error) {
        throw isBusy(error) ? PlatformErrors.databaseBusy({ cause: error }) : error;
      }
    }
    const run = () => connection.executeQuery<R>(query);
    return retryWhileBusy((retry) => (retry === 0 ? run() : this.withoutBusyTimeout(run)), {
      budgetMs: this.busyWaitMs,
      pause: async (ms) => {
        await this.releaseConnection();
        await sleep(ms);
        await super.acquireConnection();
      },
    });
  }

  /** A retry only checks whether the lock is free: many writes waiting must not add up to a stalled event loop. */
  private withoutBusyTimeout<T>(run: () => T): T {
    this.raw.pragma('busy_timeout = 0');
    try {
      return run();
    } finally {
      this.raw.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }
}

/** The driver's one connection, with its statements run through the driver's lock waits. */
class LockWaitingConnection implements DatabaseConnection {
  constructor(
    private readonly connection: DatabaseConnection,
    private readonly execute: <R>(query: CompiledQuery) => Promise<QueryResult<R>>,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.execute<R>(boundListShapes(query));
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.connection.streamQuery<R>(query, chunkSize);
  }
}

class WriteLockSqliteDialect extends SqliteDialect {
  constructor(
    private readonly driverConfig: SqliteDialectConfig,
    private readonly raw: SqliteDatabase,
    private readonly busyWaitMs: number,
  ) {
    super(driverConfig);
  }

  override createDriver(): Driver {
    return new WriteLockSqliteDriver(this.driverConfig, this.raw, this.busyWaitMs);
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
