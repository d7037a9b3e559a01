/** A store for measurements: like the server's, but its Kysely reports every statement it runs, and can explain one. */
import { Kysely, PostgresDialect, SqliteDialect, type LogEvent } from 'kysely';
import type { Store } from '../src/platform/db/database.ts';
import { createPostgresDb, translatePostgresError } from '../src/platform/db/dialect/postgres.ts';
import { createSqliteDb, translateSqliteError } from '../src/platform/db/dialect/sqlite.ts';
import type { Database } from '../src/platform/db/schema.ts';

/** A statement as the database ran it: its SQL, parameters and time. */
export interface Statement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  readonly ms: number;
}

/** A store that can explain a statement it ran. */
export type LoggingStore = Store & { explain: (statement: Statement) => Promise<string> };

/** A store like the server's, whose Kysely reports every statement, plus a way to explain one. */
export function loggingStore(url: string, recorded: Statement[]): LoggingStore {
  const log = (event: LogEvent) => {
    if (event.level === 'query') {
      recorded.push({ sql: event.query.sql, parameters: event.query.parameters, ms: event.queryDurationMillis });
    }
  };
  if (url.startsWith('sqlite:')) {
    const { raw } = createSqliteDb({ file: url.slice('sqlite:'.length), synchronous: 'NORMAL' });
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }), log });
    return storeOf(db, 'sqlite', translateSqliteError, async ({ sql: text, parameters }) => {
      const rows = raw.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...(parameters as unknown[])) as {
        id: number;
        parent: number;
        detail: string;
      }[];
      const depth = new Map<number, number>([[0, 0]]);
      return rows
        .map((row) => {
          const level = (depth.get(row.parent) ?? 0) + 1;
          depth.set(row.id, level);
          return `${'  '.repeat(level - 1)}${row.detail}`;
        })
        .join('\n');
    });
  }
  const { pool } = createPostgresDb(url);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log });
  return storeOf(db, 'postgres', translatePostgresError, async ({ sql: text, parameters }) => {
    const result = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF, TIMING ON) ${text}`, [...parameters]);
    return result.rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

/** A store over `db` that prepares nothing of its own and explains with `explain`. */
function storeOf(
  db: Kysely<Database>,
  dialect: Store['dialect'],
  translateError: Store['translateError'],
  explain: (statement: Statement) => Promise<string>,
): LoggingStore {
  return { db, dialect, translateError, statementsPrepared: () => 0, ping: async () => undefined, close: () => db.destroy(), explain };
}
