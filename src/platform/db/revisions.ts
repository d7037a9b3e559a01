import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/** Revisions kept by database triggers (migrations 2026-11-24T0100 and T0200). */
export type RevisionName = 'calendar' | 'auth' | 'entities';

/** The revision's current value: one primary-key read. */
export async function readRevision(db: Db, name: RevisionName): Promise<number> {
  const { rows } = await sql<{ value: number | string }>`select value from revisions where name = ${name}`.execute(db);
  return Number(rows[0]?.value);
}

/**
 * `read`, shared by every call made in one turn of the event loop: for
 * what requests look up as they arrive (a revision, a version). That is as
 * exact as a read per request: the requests dispatched in a turn all reached
 * the server before the turn began (libuv polls their sockets first), and
 * the shared read runs after that, so it sees every write committed before
 * any of them arrived; a request that arrives later is dispatched in a later
 * turn, after a new read. (libuv polls again within a turn only when 1024
 * sockets were ready at once.) Under load this is one read per turn instead
 * of one per request. Code that writes and then reads in one turn must not
 * use it: it could get what was read before its own write.
 */
export function oncePerTurn<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    if (pending === undefined) {
      pending = read();
      setImmediate(() => {
        pending = undefined;
      });
    }
    return pending;
  };
}
