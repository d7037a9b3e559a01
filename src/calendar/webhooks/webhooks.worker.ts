import type { FastifyBaseLogger } from 'fastify';
import type { BackgroundWork, PeriodicHandle } from '../../platform/background.ts';
import type { Db } from '../../platform/db/schema.ts';
import { deliver, leaseMs, type AttemptReport, type DeliverySettings } from './webhooks.delivery.ts';
import type { WebhookDispatcher } from './webhooks.dispatch.ts';
import { claimDue, giveUpBefore, hasDueDeliveries, pruneDeliveries, type ClaimedDelivery } from './webhooks.repository.ts';

export interface WorkerOptions {
  readonly db: Db;
  readonly settings: DeliverySettings;
  readonly dispatcher: WebhookDispatcher;
  readonly log: FastifyBaseLogger;
  /** Runs the worker's rounds and waits for its attempts on shutdown. */
  readonly background: BackgroundWork;
  /** How often the worker looks for changes and due deliveries (WEBHOOK_POLL_MS). */
  readonly pollMs: number;
  /** Attempts one worker makes at once. */
  readonly concurrency: number;
  /** How long finished deliveries stay in the log (CHANGES_RETENTION_DAYS). */
  readonly keepLogMs: number;
}

const MAINTAIN_EVERY_MS = 3_600_000;

/**
 * The delivery worker each server process runs (issue 24), as two tasks of
 * the process's `BackgroundWork`: every WEBHOOK_POLL_MS it dispatches new
 * changes, then claims due attempts and makes them; every hour it tidies
 * the delivery log. Workers in several processes share the work through the
 * database: an attempt is claimed by one of them (claimDue), and one whose
 * process dies is made again when its lease runs out, so nothing is lost
 * and no attempt is made twice while its maker lives.
 */
export class WebhookWorker {
  private readonly rounds: PeriodicHandle;
  /** The last round found more due than it had room for. */
  private backlog = false;
  /** Attempts under way: each holds one of `concurrency` slots, so a slow receiver holds one slot, not the worker. */
  private inFlight = 0;

  constructor(private readonly options: WorkerOptions) {
    const { background, pollMs } = options;
    this.rounds = background.every({ name: 'webhook deliveries', everyMs: pollMs, run: () => this.deliverDue() });
    background.every({ name: 'webhook delivery log', everyMs: MAINTAIN_EVERY_MS, run: () => this.maintain() });
  }

  /** One round: dispatch, then claim what the free slots can take; true when more is due and a slot is free for it. */
  private async deliverDue(): Promise<boolean> {
    // Until the round knows better: one that fails leaves no backlog to wake for.
    this.backlog = false;
    this.backlog = await this.claimAndAttempt();
    return this.backlog && this.inFlight < this.options.concurrency;
  }

  /** True when more may be due than the free slots took. */
  private async claimAndAttempt(): Promise<boolean> {
    const { db, settings, dispatcher, concurrency } = this.options;
    await dispatcher.dispatch(new Date());
    const free = concurrency - this.inFlight;
    if (free <= 0) return true;
    if (!(await hasDueDeliveries(db, new Date().toISOString()))) return false;
    // The lease starts when the claim is made, not when the round began.
    const claimedAt = new Date();
    const claimed = await db
      .transaction()
      .execute((trx) => claimDue(trx, claimedAt.toISOString(), new Date(claimedAt.getTime() + leaseMs(settings)).toISOString(), free));
    for (const delivery of claimed) this.attempt(delivery);
    return claimed.length === free;
  }

  private attempt(delivery: ClaimedDelivery): void {
    const { db, settings, log, background } = this.options;
    this.inFlight += 1;
    const attempt = deliver(db, settings, delivery)
      .then(
        (report) => logAttempt(log, report),
        // The attempt stays claimed until its lease runs out; then it is made again.
        (error: unknown) => log.warn({ err: error, delivery: delivery.id }, 'webhook attempt could not be recorded'),
      )
      .finally(() => {
        this.inFlight -= 1;
        // A slot freed up while work was waiting: the next round starts now.
        if (this.backlog) this.rounds.wake();
      });
    background.track(attempt);
  }

  /**
   * Deliveries still pending past the retry window (their subscription was
   * disabled meanwhile) are given up, and finished ones older than the log
   * keeps are forgotten.
   */
  private async maintain(): Promise<void> {
    const now = new Date();
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
