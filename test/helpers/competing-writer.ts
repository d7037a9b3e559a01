import { setTimeout as sleep } from 'node:timers/promises';
import { SqliteDatabase } from '../../src/platform/db/dialect/sqlite-driver.ts';
import pg from 'pg';
import type { TestServer } from './server.ts';

/** One statement with `?` placeholders (rewritten to `$n` for PostgreSQL). */
export type Statement = readonly [sql: string, ...parameters: unknown[]];

/** A write of another connection, committed when released. */
export interface CompetingWrite {
  /**
   * Waits until the server is blocked behind this write (PostgreSQL: `waiters`
   * backends wait on a lock; SQLite: a moment for the requests to reach the
   * lock), then commits it.
   */
  commitOnceBlocked(waiters?: number): Promise<void>;
}

/**
 * Another connection to the server's database, as another process would be,
 * that runs `statements` in a transaction and holds it: the barrier between
 * a request's read and its write in race tests. On SQLite it holds the one
 * write lock (`BEGIN IMMEDIATE`); on PostgreSQL the rows it changed.
 */
export async function competingWrite(server: TestServer, statements: readonly Statement[]): Promise<CompetingWrite> {
  const url = server.config.databaseUrl;
  if (url.startsWith('sqlite:')) {
    const connection = new SqliteDatabase(url.slice('sqlite:'.length));
    connection.pragma('foreign_keys = ON');
    connection.exec('BEGIN IMMEDIATE');
    for (const [text, ...parameters] of statements) connection.prepare(text).run(...parameters);
    return {
      async commitOnceBlocked() {
        await sleep(300);
        connection.exec('COMMIT');
        connection.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('BEGIN');
  for (const [text, ...parameters] of statements) {
    let index = 0;
    await client.query(
      text.replace(/\?/g, () => `$${(index += 1)}`),
      parameters,
    );
  }
  return {
    async commitOnceBlocked(waiters = 1) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        // Inside a transaction PostgreSQL shows pg_stat_activity as it was at the first look: look afresh each time.
        await client.query('select pg_stat_clear_snapshot()');
        const waiting = await client.query(
          `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
        );
        if (waiting.rows[0].n >= waiters) break;
        if (Date.now() > deadline) {
          // Released, so the request waiting on it ends and the test fails at once rather than at its timeout.
          await client.query('ROLLBACK');
          await client.end();
          throw new Error('the request never waited on the competing write');
        }
        await sleep(10);
      }
      await client.query('COMMIT');
      await client.end();
    },
  };
}
