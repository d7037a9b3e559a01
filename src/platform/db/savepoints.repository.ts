import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

// One name for every savepoint: a nested one hides the outer of that name until released, and a
// fixed text keeps the three statements prepared once (SQLite caches statements by their text).
const NAME = sql.id('nested_write');

/**
 * Runs `work` inside a savepoint of the open transaction `trx`: when it throws, its writes are
 * undone and the transaction goes on as before it (on PostgreSQL, usable again after a failed
 * statement). Savepoints nest.
 */
export async function inSavepoint<T>(trx: Kysely<Database>, work: () => Promise<T>): Promise<T> {
  await sql`savepoint ${NAME}`.execute(trx);
  let result: T;
  try {
    result = await work();
  } catch (error) {
    await sql`rollback to savepoint ${NAME}`.execute(trx);
    await sql`release savepoint ${NAME}`.execute(trx);
    throw error;
  }
  await sql`release savepoint ${NAME}`.execute(trx);
  return result;
}
