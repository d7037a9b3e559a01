import { Transaction, type Kysely } from 'kysely';
import type pg from 'pg';
import type { StatementListener } from './statement-log.ts';

type Query = (text: unknown, values?: unknown, callback?: unknown) => Promise<pg.QueryResult>;

const done = (command: string): pg.QueryResult => ({ command, rowCount: null, oid: 0, rows: [], fields: [] });

/**
 * Sends a transaction's `begin` with its first statement instead of waiting for its answer alone: the client is
 * in pipeline mode (each statement sent at once, with its own Sync), so the two go out together and the
 * transaction costs one round trip less; statements run concurrently on it (`Promise.all`) share one too. A
 * transaction that sent nothing sends neither its `begin` nor its end. `begin` fails only with its connection,
 * and then so does the statement sent behind it, so nothing runs outside the transaction it belongs to.
 */
export function pipelineTransactions(client: pg.PoolClient, onStatement: StatementListener | undefined): void {
  const query = client.query.bind(client) as Query;
  let beginPending = false;
  let inFlight = 0;
  const sqlOf = (text: unknown) => (typeof text === 'string' ? text : String((text as { text?: unknown }).text));
  const send = (text: unknown, values?: unknown): Promise<pg.QueryResult> => {
    onStatement?.(sqlOf(text), inFlight > 0);
    inFlight += 1;
    const sent = query(text, values);
    const settle = () => {
      inFlight -= 1;
    };
    sent.then(settle, settle);
    return sent;
  };
  const pipelined: Query = async (text, values, callback) => {
    // The callback form is the pool's own `query`, a statement alone on a connection of its own.
    if (typeof values === 'function' || callback !== undefined) {
      onStatement?.(sqlOf(text), false);
      return query(text, values, callback);
    }
    const command = typeof text === 'string' ? text.trim().toLowerCase() : '';
    if (command === 'begin') {
      beginPending = true;
      return done('BEGIN');
    }
    if (beginPending) {
      beginPending = false;
      if (command === 'commit' || command === 'rollback') return done(command.toUpperCase());
      // Its failure is the next statement's: that one is answered after it, on the same connection.
      send('begin').catch(() => undefined);
    }
    return send(text, values);
  };
  (client as unknown as { query: Query }).query = pipelined;
}

/**
 * Runs `work` in a transaction of `db` whose statements go out as they are asked for: Kysely's own transaction
 * hands its connection to one statement at a time, so statements asked for together (`Promise.all`, or one
 * started before the answer of another is awaited) would each wait for the one before. Here they travel
 * together, in the order asked, and the connection answers them in that order: one round trip for all. A
 * statement that fails aborts the transaction, and those behind it fail with it; the transaction then rolls
 * back as any other. `work` must settle only once every statement it asked for has (`behind` in group-commit.ts),
 * so that none is asked for after the transaction or its savepoint rolled back.
 */
export async function pipelinedTransaction<DB, T>(db: Kysely<DB>, work: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.transaction().execute((trx) =>
    trx.getExecutor().provideConnection((connection) => {
      const executor = trx.getExecutor().withConnectionProvider({ provideConnection: (consume) => consume(connection) });
      // A transaction's handle never reaches its driver or dialect (Kysely refuses transaction(), connection() and
      // destroy() on one); they are only asked for to build it.
      return work(new Transaction<DB>({ config: { dialect: UNREACHABLE }, dialect: UNREACHABLE, driver: UNREACHABLE, executor }));
    }),
  );
}

const UNREACHABLE = Object.freeze({}) as never;
