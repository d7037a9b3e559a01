import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.ts';
import { deliver, leaseMs, type AttemptReport, type DeliverySettings } from './webhooks.delivery.ts';
import type { WebhookDispatcher } from './webhooks.dispatch.ts';
import { claimDue, giveUpBefore, hasDueDeliveries, pruneDeliveries, type ClaimedDelivery } from './webhooks.repository.ts';

type Db = Kysely<Database>;

export interface WorkerOptions {
  readonly db: Db;
  readonly settings: DeliverySettings;
  readonly dispatcher: WebhookDispatcher;
  readonly log: FastifyBaseLogger;
  /** How often the worker looks for changes and due deliveries (WEBHOOK_POLL_MS). */
  readonly pollMs: number;
  /** Attempts one worker makes at once. */
  readonly concurrency: number;
  /** How long finished deliveries stay in the log (CHANGES_RETENTION_DAYS). */
  readonly keepLogMs: number;
}

const MAINTAIN_EVERY_MS = 3_600_000;

/**
 * The delivery worker each server process runs (issue 24): it dispatches new
 * changes, then claims due attempts and makes them. Workers in several
 * processes share the work through the database: an attempt is claimed by
 * one of them (claimDue), and one whose process dies is made again when its
 * lease runs out, so nothing is lost and no attempt is made twice while its
 * maker lives.
 */
export class WebhookWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private ticking = false;
  /** The last round found more due than it had room for. */
  private backlog = false;
  private stopped = false;
  private maintainedAt = 0;
  /** Attempts under way: each holds one of `concurrency` slots, so a slow receiver holds one slot, not the worker. */
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly options: WorkerOptions) {}

  start(): void {
    this.schedule(0);
  }

  /** Stops looking for work and waits for the attempts under way (each bounded by the timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await Promise.all(this.inFlight);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.ticking = true;
      this.running = this.tick().then((backlog) => {
        this.ticking = false;
        this.backlog = backlog;
        this.schedule(backlog && this.inFlight.size < this.options.concurrency ? 0 : this.options.pollMs);
      });
    }, delayMs);
    this.timer.unref();
  }

  /** A slot freed up while work was waiting: the next round starts now. */
  private wake(): void {
    if (!this.ticking && this.backlog) this.schedule(0);
  }

  /** One round: dispatch, then claim what the free slots can take; true when more may be due. */
  private async tick(): Promise<boolean> {
    const { db, settings, dispatcher, log, concurrency } = this.options;
    try {
      const now = new Date();
      await dispatcher.dispatch(now);
      await this.maintain(now);
      const free = concurrency - this.inFlight.size;
      if (free <= 0) return true;
      if (!(await hasDueDeliveries(db, new Date().toISOString()))) return false;
      // The lease starts when the claim is made, not when the round began.
      const claimedAt = new Date();
      const claimed = await db
        .transaction()
        .execute((trx) => claimDue(trx, claimedAt.toISOString(), new Date(claimedAt.getTime() + leaseMs(settings)).toISOString(), free));
      for (const delivery of claimed) this.attempt(delivery);
      return claimed.length === free;
    } catch (error) {
      log.warn({ err: error }, 'webhook worker round failed; trying again');
      return false;
    }
  }

  private attempt(delivery: ClaimedDelivery): void {
    const { db, settings, log } = this.options;
    const attempt: Promise<void> = deliver(db, settings, delivery)
      .then(
        (report) => logAttempt(log, report),
        // The attempt stays claimed until its lease runs out; then it is made again.
        (error: unknown) => log.warn({ err: error, delivery: delivery.id }, 'webhook attempt could not be recorded'),
      )
      .finally(() => {
        this.inFlight.delete(attempt);
        this.wake();
      });
    this.inFlight.add(attempt);
  }

  /**
   * Each hour: deliveries still pending past the retry window (their
   * subscription was disabled meanwhile) are given up, and finished ones
   * older than the log keeps are forgotten.
   */
  private async maintain(now: Date): Promise<void> {
    if (now.getTime() - this.maintainedAt < MAINTAIN_EVERY_MS) return;
    this.maintainedAt = now.getTime();
    const { db, settings, log, keepLogMs } = this.options;
    const hours = Math.round(settings.retryForMs / 3_600_000);
    const gaveUp = await giveUpBefore(
      db,
      new Date(now.getTime() - settings.retryForMs).toISOString(),
      `Not delivered within ${hours} hours.`,
    );
    if (gaveUp > 0) log.warn({ deliveries: gaveUp }, 'webhook deliveries given up');
    const pruned = await pruneDeliveries(db, new Date(now.getTime() - keepLogMs).toISOString());
    if (pruned > 0) log.info({ deliveries: pruned }, 'webhook delivery log pruned');
  }
}

/** One line per attempt: never the secret, the signature or the body. */
function logAttempt(log: FastifyBaseLogger, { delivery, result, outcome, disabled }: AttemptReport): void {
  const fields = {
    webhook: delivery.webhook_id,
    delivery: delivery.id,
    message: delivery.message_id,
    event: delivery.event,
    attempt: delivery.attempts,
    status: result.status,
    ms: outcome.responseMs,
  };
  if (result.ok) log.info(fields, 'webhook delivered');
  else
    log.warn(
      { ...fields, error: outcome.error, next: outcome.status === 'pending' ? outcome.nextAttemptAt : undefined },
      'webhook attempt failed',
    );
  if (disabled) log.warn({ webhook: delivery.webhook_id }, 'webhook subscription disabled');
}
