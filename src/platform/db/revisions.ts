import { findRevision, listRevisions } from './revisions.repository.ts';
import type { Db } from './schema.ts';

/**
 * The revisions the database keeps, each bumped by triggers on the tables it
 * covers (created by the migrations of the surface that owns it). The
 * platform owns `auth` (users and API tokens); each surface adds its own by
 * augmenting this interface in its `*.tables.ts` file, so a name is checked
 * at compile time without the platform knowing any surface.
 */
export interface RevisionNames {
  auth: true;
}
export type RevisionName = keyof RevisionNames;

/** The revision's current value, read now (for code that writes, or must see the latest). */
export async function readRevision(db: Db, name: RevisionName): Promise<number> {
  return findRevision(db, name);
}

type Revisions = ReadonlyMap<string, number>;

const tickReads = new WeakMap<Db, () => Promise<Revisions>>();

/** Resolves in the check phase: after the poll phase has dispatched every request that reached the server. */
const afterTheTicksRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Every revision, read by one statement per tick of the event loop and
 * handle, for all who ask (`oncePerTick`). The statement starts at the first
 * ask (on PostgreSQL its round trip overlaps the dispatch of the tick's other
 * requests), and what it read is handed over once the tick's requests have
 * all been dispatched: they are answered together and their answers leave
 * back to back. On a cached single-event GET (SQLite) that took the
 * server's CPU per request from 46 to 30 µs, most of it the cost of waking
 * the client up for each answer sent alone.
 */
function revisionsOfTick(db: Db): Promise<Revisions> {
  let read = tickReads.get(db);
  if (read === undefined) {
    read = oncePerTick(async () => {
      const [revisions] = await Promise.all([listRevisions(db), afterTheTicksRequests()]);
      return revisions;
    });
    tickReads.set(db, read);
  }
  return read();
}

// NaN, never equal to itself, would let nothing be cached; the migrations create every row.
const valueOf = (revisions: Revisions, name: RevisionName) => revisions.get(name) ?? Number.NaN;

/** A revision as of this tick of the event loop, for requests that only read (see `oncePerTick`). */
export async function revisionOfTick(db: Db, name: RevisionName): Promise<number> {
  return valueOf(await revisionsOfTick(db), name);
}

/** A request, which keeps the revisions read for it (the platform decorates every request with the slot). */
export interface RevisionsHolder {
  revisions: Promise<Revisions> | null;
}

/**
 * A revision as of `request`, for requests that only read: every revision
 * is read once for the request, when it first asks (it has arrived by
 * then), by the statement of that tick. An authenticated read needs
 * `auth` in its hook and its surface's revision in its handler, a tick or
 * more later: one round trip serves both.
 */
export async function revisionOf(db: Db, request: RevisionsHolder, name: RevisionName): Promise<number> {
  request.revisions ??= revisionsOfTick(db);
  return valueOf(await request.revisions, name);
}

/**
 * `read`, shared by every call made in one tick of the event loop: for
 * what requests look up as they arrive (a revision, a version). That is as
 * exact as a read per request: the requests dispatched in a tick all reached
 * the server before the tick began (libuv polls their sockets first), and
 * the shared read runs after that, so it sees every write committed before
 * any of them arrived; a request that arrives later is dispatched in a later
 * tick, after a new read. (libuv polls again within a tick only when 1024
 * sockets were ready at once.) Under load this is one read per tick instead
 * of one per request. Code that writes and then reads in one tick must not
 * use it: it could get what was read before its own write. Nor code run
 * by a timer (before the poll) or by `setImmediate` (its read would be
 * shared into the next tick's poll): either could share its read with
 * requests that arrived after it began.
 */
export function oncePerTick<T>(read: () => Promise<T>): () => Promise<T> {
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
