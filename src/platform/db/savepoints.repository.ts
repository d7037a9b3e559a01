import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

// One name for every savepoint: a nested one hides the outer of that name until released, and a
// fixed text keeps the three statements prepared once (SQLite caches statements by their text).
const NAME = sql.id('nested_write');

/** The statements of a savepoint in `trx`, each sent as it is asked for (on PostgreSQL, pipelined in a write's transaction). */
export const savepoint = {
  open: (trx: Kysely<Database>) => sql`savepoint ${NAME}`.execute(trx),
  release: (trx: Kysely<Database>) => sql`release savepoint ${NAME}`.execute(trx),
  /** Undoes what was written since the savepoint and ends it: the transaction goes on as before it. */
  undo: (trx: Kysely<Database>) => Promise.all([sql`rollback to savepoint ${NAME}`.execute(trx), savepoint.release(trx)]),
};

/**
 * Runs `work` inside a savepoint of the open transaction `trx`: when it throws, its writes are
 * undone and the transaction goes on as before it (on PostgreSQL, usable again after a failed
 * statement). Savepoints nest.
 */
export async function inSavepoint<T>(trx: Kysely<Database>, work: () => Promise<T>): Promise<T> {
  await savepoint.open(trx);
  let result: T;
  try {
    result = await work();
  } catch (error) {
    await savepoint.undo(trx);
    throw error;
  }
  await savepoint.release(trx);
  return result;
}
