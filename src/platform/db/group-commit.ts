import type { BackgroundWork } from '../background.ts';
import { GroupCommitQueue, type BatchOutcome } from '../group-commit-queue.ts';
import type { Db } from './schema.ts';
import { savepoint } from './savepoints.repository.ts';
import { isPostgres } from './dialect-of.ts';
import { pipelinedTransaction } from './dialect/postgres-pipeline.ts';

type Work = (trx: Db) => Promise<unknown>;

/**
 * Group commit for writes that each need a transaction of their own (a create, an update): the
 * writes that arrive in one tick of the event loop run one after the other in one transaction,
 * each in a savepoint, so that one that fails is undone alone; each is answered only after the
 * shared commit. A commit costs about the same for one write or sixteen (the WAL pages it appends,
 * PostgreSQL's flush), so under load a write pays a share of one. A write must not ask its own
 * `GroupCommit` for another: it would wait for the batch it is part of.
 */
export class GroupCommit {
  private readonly batches: GroupCommitQueue<Work, unknown>;

  constructor(
    private readonly db: Db,
    background?: BackgroundWork,
  ) {
    this.batches = new GroupCommitQueue((works) => this.commit(works), background);
  }

  /** Resolves with what `work` returned once its writes are committed; rejects, having written nothing, if it threw or the commit failed. */
  run<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return this.batches.add(work) as Promise<T>;
  }

  /** A write alone needs no savepoint: its failure rolls the transaction back. */
  private async commit(works: readonly Work[]): Promise<BatchOutcome<unknown>[]> {
    const [only] = works;
    if (works.length === 1 && only !== undefined) {
      try {
        return [{ value: await this.transaction(only) }];
      } catch (error) {
        return [{ error }];
      }
    }
    return this.transaction((trx) => eachInSavepoint(trx, works));
  }

  /** On PostgreSQL a write's statements asked for together share a round trip (see pipelinedTransaction). */
  private transaction<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return isPostgres(this.db) ? pipelinedTransaction(this.db, work) : this.db.transaction().execute(work);
  }
}

/**
 * `next()` asked for without waiting for the answer of `first`, a statement already asked for: on PostgreSQL, in
 * a pipelined transaction, what `next` asks for at once travels with it. Settles once both have, with `next`'s
 * value or the first error: a write that fails has then asked for nothing more when it is rolled back.
 */
export async function behind<T>(first: Promise<unknown>, next: () => Promise<T>): Promise<T> {
  const [before, after] = await Promise.allSettled([first, next()]);
  if (before.status === 'rejected') throw before.reason;
  if (after.status === 'rejected') throw after.reason;
  return after.value;
}

/**
 * Each of `works`, one after the other, in a savepoint of `trx`, each with its own outcome. A statement is asked
 * for without waiting for the answers ahead of it: a savepoint travels with its write's first statement, and one's
 * release with the next one's savepoint, so on PostgreSQL a write in a batch costs no round trip more than alone.
 * The last needs no release (the commit ends it). A release that failed fails the whole batch: the savepoint it
 * should have ended would otherwise be the one a later write's failure rolls back to, undoing a write answered
 * as done.
 */
async function eachInSavepoint(trx: Db, works: readonly Work[]): Promise<BatchOutcome<unknown>[]> {
  const outcomes: BatchOutcome<unknown>[] = [];
  const releases: Promise<unknown>[] = [];
  for (const [index, work] of works.entries()) {
    try {
      outcomes.push({ value: await behind(savepoint.open(trx), () => work(trx)) });
      if (index < works.length - 1) {
        const released = savepoint.release(trx);
        released.catch(() => undefined); // awaited with the others, below
        releases.push(released);
      }
    } catch (error) {
      await savepoint.undo(trx);
      outcomes.push({ error });
    }
  }
  await Promise.all(releases);
  return outcomes;
}
