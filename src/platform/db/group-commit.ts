import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';
import { inSavepoint } from './savepoints.repository.ts';

type Db = Kysely<Database>;

interface Waiting {
  readonly work: (trx: Db) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

type Outcome = { readonly value: unknown } | { readonly error: unknown };

/**
 * Group commit for writes that each need a transaction of their own (a create, an update): the
 * writes that arrive in one turn of the event loop run one after the other in one transaction,
 * each in a savepoint, so that one that fails is undone alone; each is answered only after the
 * shared commit. A commit costs about the same for one write or sixteen (the WAL pages it appends,
 * PostgreSQL's flush), so under load a write pays a share of one. The same idea as the SOAP
 * pings' batches, for writes that run statements of their own.
 */
export class GroupCommit {
  private waiting: Waiting[] = [];
  private flushing = false;

  constructor(private readonly db: Db) {}

  /** Resolves with what `work` returned once its writes are committed; rejects, having written nothing, if it threw or the commit failed. */
  run<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.waiting.length === 1 && !this.flushing) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    this.flushing = true;
    try {
      const outcomes = await this.commit(batch);
      batch.forEach((entry, index) => {
        const outcome = outcomes[index] as Outcome;
        if ('error' in outcome) entry.reject(outcome.error);
        else entry.resolve(outcome.value);
      });
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    } finally {
      this.flushing = false;
      if (this.waiting.length > 0) setImmediate(() => void this.flush());
    }
  }

  /** A write alone needs no savepoint: its failure rolls the transaction back. */
  private async commit(batch: readonly Waiting[]): Promise<Outcome[]> {
    const [only] = batch;
    if (batch.length === 1 && only !== undefined) {
      try {
        return [{ value: await this.db.transaction().execute(only.work) }];
      } catch (error) {
        return [{ error }];
      }
    }
    return this.db.transaction().execute(async (trx) => {
      const outcomes: Outcome[] = [];
      for (const entry of batch) {
        try {
          outcomes.push({ value: await inSavepoint(trx, () => entry.work(trx)) });
        } catch (error) {
          outcomes.push({ error });
        }
      }
      return outcomes;
    });
  }
}
