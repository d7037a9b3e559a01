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
 * event loop, or while the previous batch is being written, and hands them
 * to `write` together; each caller is settled with its own outcome once
 * `write` has finished. Used by `platform/db/group-commit.ts` and the SOAP
 * pings' batches: a commit costs about the same for one item or fifty, so
 * under load each pays a share of one. `write` returns one outcome per item,
 * in order; if it throws, every item of the batch fails with that error.
 * Each flush is tracked by the server's `BackgroundWork`, when given, so that
 * shutdown and `drain` wait for it.
 */
export class GroupCommitQueue<I, R> {
  private waiting: Waiting<I, R>[] = [];
  private flushing = false;

  constructor(
    private readonly write: (items: readonly I[]) => Promise<BatchOutcome<R>[]>,
    private readonly background?: BackgroundWork,
  ) {}

  add(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (this.waiting.length === 1 && !this.flushing) this.flushNextTick();
    });
  }

  private flushNextTick(): void {
    const flushed = new Promise<void>((resolve) => setImmediate(() => resolve(this.flush())));
    this.background?.track(flushed);
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    this.flushing = true;
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
      this.flushing = false;
      if (this.waiting.length > 0) this.flushNextTick();
    }
  }
}
