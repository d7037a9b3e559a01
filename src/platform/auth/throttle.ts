import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { DatabaseBusyError, PlatformErrors } from '../errors.ts';
import { clearFailures, countFailures, pruneFailures, recordFailure } from './throttle.repository.ts';

export interface ThrottleLimits {
  /** Failures allowed per (subject, address) pair in the window; 0 disables the pair lockout. */
  readonly maxFailures: number;
  /** Failures allowed per address across subjects; 0 disables it. */
  readonly maxFailuresPerAddress: number;
  readonly windowSeconds: number;
}

/** What is guessed; failures of one bucket never lock out another. */
export type FailureBucket = 'login' | 'post-password';

/**
 * Counts failed secret checks of one bucket (user logins and tokens, or post
 * passwords) in the database, so that every process sharing it sees the same
 * lockouts. `subject` is the username, or a namespaced key such as `post:12`.
 */
export class FailureThrottle {
  private lastPruneMs = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly bucket: FailureBucket,
    private readonly limits: ThrottleLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws 429 when the pair or the address is locked out. */
  async assertAllowed(subject: string, address: string): Promise<void> {
    const { maxFailures, maxFailuresPerAddress, windowSeconds } = this.limits;
    if (maxFailures === 0 && maxFailuresPerAddress === 0) return;
    const nowMs = this.now();
    const windowMs = windowSeconds * 1000;
    const counts = await countFailures(this.db, this.bucket, subject, address, nowMs - windowMs);
    const lockedUntil = (oldestMs: number | null) => (oldestMs ?? nowMs) + windowMs;
    if (maxFailures > 0 && counts.pair.count >= maxFailures) {
      throw PlatformErrors.tooManyRequests((lockedUntil(counts.pair.oldestMs) - nowMs) / 1000);
    }
    if (maxFailuresPerAddress > 0 && counts.address.count >= maxFailuresPerAddress) {
      throw PlatformErrors.tooManyRequests((lockedUntil(counts.address.oldestMs) - nowMs) / 1000);
    }
  }

  async recordFailure(subject: string, address: string): Promise<void> {
    const nowMs = this.now();
    await recordFailure(this.db, this.bucket, subject, address, nowMs);
    if (nowMs - this.lastPruneMs > 60_000) {
      this.lastPruneMs = nowMs;
      await pruneFailures(this.db, this.bucket, nowMs - this.limits.windowSeconds * 1000);
    }
  }

  async recordSuccess(subject: string, address: string): Promise<void> {
    try {
      await clearFailures(this.db, this.bucket, subject, address);
    } catch (error) {
      // The secret was right: a database another process keeps locked must not refuse it. Failures left
      // uncleared only count for the rest of their window.
      if (!(error instanceof DatabaseBusyError)) throw error;
    }
  }
}
