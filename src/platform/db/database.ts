import { Migrator, sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';
import { createPostgresDb, translatePostgresError } from './dialect/postgres.ts';
import { createSqliteDb, FORGET_PLANNER_SAMPLES, HAS_PLANNER_SAMPLES, translateSqliteError } from './dialect/sqlite.ts';
import type { StatementListener } from './dialect/statement-log.ts';
import { MigrationFolders } from './migration-folders.ts';

export type DialectName = 'sqlite' | 'postgres';

/** An open database: the Kysely instance plus what differs per dialect. */
export interface Store {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  /**
   * Driver error → `UniqueViolationError` / `ForeignKeyViolationError`, others unchanged
   * (a lock another process held too long is thrown as a `DatabaseBusyError` already).
   */
  readonly translateError: (error: unknown) => unknown;
  /**
   * How many statements this process has prepared so far: SQLite keeps them by SQL text, so this counts
   * the distinct shapes it met (bounded, issue 19.4); PostgreSQL prepares none here (0).
   */
  readonly statementsPrepared: () => number;
  /** Throws when the database cannot answer a trivial query. */
  readonly ping: () => Promise<void>;
  readonly close: () => Promise<void>;
}

export interface StoreOptions {
  readonly sqliteSynchronous?: 'NORMAL' | 'FULL';
  readonly sqliteBusyWaitMs?: number;
  /** Told of every statement sent, transaction control included (tests count round trips with it). */
  readonly onStatement?: StatementListener;
  /** SQLite: checkpoint the WAL from a thread of its own, told of its failure here (a serving process; tools checkpoint inline). */
  readonly onSqliteCheckpointError?: (error: Error) => void;
}

export function createDb(url: string, options: StoreOptions = {}): Store {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    const { db, statementsPrepared, checkpointer } = createSqliteDb({
      file: file === ':memory:' ? ':memory:' : file,
      synchronous: options.sqliteSynchronous ?? 'NORMAL',
      busyWaitMs: options.sqliteBusyWaitMs,
      onStatement: options.onStatement,
      onCheckpointError: options.onSqliteCheckpointError,
    });
    return storeOf(db, 'sqlite', translateSqliteError, statementsPrepared, checkpointer?.stop);
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    const { db } = createPostgresDb(url, options.onStatement);
    return storeOf(db, 'postgres', translatePostgresError, () => 0);
  }
  throw new Error('DATABASE_URL must start with sqlite: or postgres://');
}

function storeOf(
  db: Kysely<Database>,
  dialect: DialectName,
  translateError: (error: unknown) => unknown,
  statementsPrepared: () => number,
  afterClose: () => Promise<void> = async () => {},
): Store {
  let closed = false;
  return {
    db,
    dialect,
    translateError,
    statementsPrepared,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await db.destroy();
      await afterClose();
    },
  };
}

/**
 * After a bulk load: fresh planner statistics — without them SQLite walks a
 * date window instead of the venue index (docs/query-plans.md); on SQLite
 * their counts only, the samples forgotten (dialect/sqlite.ts) — and
 * on PostgreSQL a VACUUM as well. It marks the new pages all-visible, without
 * which an index-only scan (the events list's covering index) still reads the
 * table for every row; left to autovacuum, that work comes minutes later,
 * under the first requests.
 */
export async function settleAfterBulkLoad(store: Store): Promise<void> {
  if (store.dialect === 'postgres') {
    await sql`vacuum analyze`.execute(store.db);
    return;
  }
  await sql`analyze`.execute(store.db);
  if ((await sql.raw(HAS_PLANNER_SAMPLES).execute(store.db)).rows.length === 0) return;
  for (const statement of FORGET_PLANNER_SAMPLES) await sql.raw(statement).execute(store.db);
}

/** Brings the schema up to date with the migrations of `folders`; returns the names of those applied now. */
export async function migrateToLatest(db: Kysely<Database>, folders: readonly string[]): Promise<string[]> {
  // Kysely's types are invariant in the database type; migrations use `Kysely<any>`.
  const migrator = new Migrator({
    db,
    provider: new MigrationFolders(folders),
    // Surfaces add migrations independently: one dated before another surface's latest applied one still runs.
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}
