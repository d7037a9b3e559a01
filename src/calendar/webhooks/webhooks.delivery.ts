import { Webhook } from 'standardwebhooks';
import type { Config } from '../../config/config.ts';
import type { Db } from '../../platform/db/schema.ts';
import { postJson, type AllowList, type PostResult } from '../../platform/http/outbound.ts';
import { clearFailures, countFailure, recordAttempt, type AttemptOutcome, type ClaimedDelivery } from './webhooks.repository.ts';

/** What delivering needs to know (WEBHOOK_* settings). */
export interface DeliverySettings {
  readonly allow: AllowList;
  readonly timeoutMs: number;
  /** The first retry waits about this long; each next one twice as long, up to MAX_RETRY_DELAY_MS. */
  readonly retryBaseMs: number;
  /** How long after a change its delivery is retried before it is given up. */
  readonly retryForMs: number;
  /** Failures in a row that disable a subscription. */
  readonly disableAfter: number;
}

/** The delivery settings of the configuration: the worker's, and the service's wherever it is built. */
export function deliverySettingsOf(config: Config): DeliverySettings {
  return {
    allow: config.webhookAllowHosts,
    timeoutMs: config.webhookTimeoutMs,
    retryBaseMs: config.webhookRetryBaseMs,
    retryForMs: config.webhookRetryHours * 3_600_000,
    disableAfter: config.webhookDisableAfter,
  };
}

const MAX_RETRY_DELAY_MS = 6 * 3_600_000;
const USER_AGENT = 'Almanac-Webhooks/1 (+https://www.standardwebhooks.com)';

/**
 * How long to wait after the `attempts`-th failed attempt: exponential,
 * capped, with "equal jitter" (half fixed, half random), so that receivers
 * coming back are not hit by every sender at once.
 */
export function retryDelayMs(attempts: number, baseMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 40));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** How long a claimed attempt may take before another worker may make it again: well past the timeout. */
export function leaseMs(settings: Pick<DeliverySettings, 'timeoutMs'>): number {
  return settings.timeoutMs * 2 + 1000;
}

/**
 * Standard Webhooks headers for one attempt: the message id, the attempt's
 * time, and a `v1,` signature of `id.timestamp.body` with each secret that
 * signs now (the current one, and the one it replaced during its overlap),
 * space-separated.
 */
export function signedHeaders(delivery: ClaimedDelivery, at: Date): Record<string, string> {
  const secrets = [delivery.secret];
  if (delivery.previous_secret !== null && delivery.previous_secret_until !== null && at.toISOString() < delivery.previous_secret_until) {
    secrets.push(delivery.previous_secret);
  }
  return {
    'webhook-id': delivery.message_id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(delivery.message_id, at, delivery.payload)).join(' '),
  };
}

/** What one attempt did, for the log. */
export interface AttemptReport {
  readonly delivery: ClaimedDelivery;
  readonly result: PostResult;
  readonly outcome: AttemptOutcome;
  /** Whether the subscription was disabled by this attempt (a 410, or too many failures in a row). */
  readonly disabled: boolean;
  /** False when the attempt's lease had run out and another worker made it again: that one's result stands. */
  readonly recorded: boolean;
}

/** Makes one claimed attempt and records how it went; `countsFailures: false` leaves the subscription's state alone (a ping). */
export async function deliver(
  db: Db,
  settings: DeliverySettings,
  delivery: ClaimedDelivery,
  { countsFailures = true }: { countsFailures?: boolean } = {},
): Promise<AttemptReport> {
  const at = new Date();
  const result = await postJson(delivery.url, signedHeaders(delivery, at), delivery.payload, {
    allow: settings.allow,
    timeoutMs: settings.timeoutMs,
    userAgent: USER_AGENT,
  });
  const ended = new Date();
  const next = new Date(ended.getTime() + retryDelayMs(delivery.attempts, settings.retryBaseMs));
  const givenUp = next.getTime() - Date.parse(delivery.created_at) > settings.retryForMs;
  const outcome: AttemptOutcome = {
    status: result.ok ? 'succeeded' : givenUp ? 'failed' : 'pending',
    nextAttemptAt: result.ok || givenUp ? ended.toISOString() : next.toISOString(),
    responseStatus: result.status ?? null,
    responseMs: Math.round(result.durationMs),
    error: result.ok ? null : (result.error ?? `HTTP ${String(result.status)}`),
  };
  const gone = result.status === 410;
  return db.transaction().execute(async (trx) => {
    const recorded = await recordAttempt(trx, delivery.id, delivery.attempts, outcome);
    if (!recorded || !countsFailures) return { delivery, result, outcome, disabled: false, recorded };
    if (result.ok) {
      await clearFailures(trx, delivery.webhook_id);
      return { delivery, result, outcome, disabled: false, recorded };
    }
    const disabled = await countFailure(trx, delivery.webhook_id, {
      now: ended.toISOString(),
      retryAfter: outcome.nextAttemptAt,
      disableAfter: settings.disableAfter,
      disableNow: gone,
      reason: (failures) =>
        gone
          ? `The receiver answered 410 Gone at ${ended.toISOString()}.`
          : `${failures} failed attempts in a row; the last at ${ended.toISOString()}: ${outcome.error ?? ''}`,
    });
    return { delivery, result, outcome, disabled, recorded };
  });
}
