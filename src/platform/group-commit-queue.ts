import type { BackgroundWork } from './background.ts';

/** What one item of a batch came to: its own value, or its own error. */
export type BatchOutcome<R> = { readonly value: R } | { readonly error: unknown };

interface Waiting<I, R> {
  readonly item: I;
  readonly resolve: (value: R) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * A group commit's queue: gathers the items that arrive in one tick of the
 * event loop, or while earlier batches are being written, and hands them
 * to `write` together; each caller is settled with its own outcome once
 * `write` has finished. Used by `platform/db/group-commit.ts` and the SOAP
 * pings' batches: a commit costs about the same for one item or fifty, so
 * under load each pays a share of one. `write` returns one outcome per item,
 * in order; if it throws, every item of the batch fails with that error.
 * At most `inFlight` batches are written at once (a database with one
 * connection takes one; PostgreSQL flushes several commits together, and
 * the process works while one waits). Each flush is tracked by the server's
 * `BackgroundWork`, when given, so that shutdown and `drain` wait for it.
 */
export class GroupCommitQueue<I, R> {
  private waiting: Waiting<I, R>[] = [];
  private scheduled = false;
  private writing = 0;

  constructor(
    private readonly write: (items: readonly I[]) => Promise<BatchOutcome<R>[]>,
    private readonly background?: BackgroundWork,
    private readonly inFlight = 1,
  ) {}

  add(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /** A flush in the next tick, when items wait, none is scheduled yet, and fewer than `inFlight` are being written. */
  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0 || this.writing >= this.inFlight) return;
    this.scheduled = true;
    const flushed = new Promise<void>((resolve) =>
      setImmediate(() => {
        this.scheduled = false;
        resolve(this.flush());
      }),
    );
    this.background?.track(flushed);
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    this.writing += 1;
    try {
      const outcomes = await this.write(batch.map((entry) => entry.item));
      batch.forEach((entry, index) => {
        const outcome = outcomes[index] as BatchOutcome<R>;
        if ('error' in outcome) entry.reject(outcome.error);
        else entry.resolve(outcome.value);
      });
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    } finally {
      this.writing -= 1;
      this.schedule();
    }
  }
}
