import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { DatabaseBusyError } from '../errors.ts';
import type { AuthUser } from './authenticate.ts';
import { hashToken } from './authenticate.ts';
import { isRole } from './capabilities.ts';
import { deleteSession, findSessionWithUser, insertSession, pruneSessions, touchSession } from './sessions.repository.ts';
import { findUserById } from './users.repository.ts';

export interface SessionLimits {
  /** A session unused this long ends. */
  readonly idleSeconds: number;
  /** A session ends this long after sign-in, however busy. */
  readonly maxSeconds: number;
}

export interface Session {
  readonly user: AuthUser;
  /** The value every state-changing form of this session carries. */
  readonly csrf: string;
}

const MAX_TOUCH_INTERVAL_MS = 60_000;
const PRUNE_INTERVAL_MS = 10 * 60_000;

/** The user's password hash, digested: a session made before a password change no longer matches it. */
const credentialOf = (passwordHash: string) => hash('sha256', `session:${passwordHash}`, 'hex');

/** Derived from the cookie's token, so nothing more is stored, and the page's form cannot be made without the cookie. */
export const csrfTokenOf = (token: string) => createHmac('sha256', token).update('csrf').digest('base64url');

/** Compares a submitted secret with the expected one in constant time. */
export function sameSecret(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Browser sessions kept in the database, so that every process sees a sign-in and a sign-out, each
 * request reads the user as they are now (a changed role applies at once), and a changed password
 * ends the sessions made before it. The token lives only in the browser's cookie; the row is found
 * by its hash.
 */
export class SessionStore {
  private lastPruneMs = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly limits: SessionLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Starts a session for `userId`; returns the cookie's token. */
  async start(userId: number): Promise<string> {
    const user = await findUserById(this.db, userId);
    if (user === undefined) throw new Error(`No user ${userId}`);
    const token = randomBytes(32).toString('base64url');
    const nowMs = this.now();
    await insertSession(this.db, {
      id: hashToken(token),
      user_id: userId,
      credential: credentialOf(user.password_hash),
      created_at_ms: nowMs,
      last_seen_ms: nowMs,
      expires_at_ms: nowMs + this.limits.maxSeconds * 1000,
    });
    await this.prune(nowMs);
    return token;
  }

  /** The live session of `token`, or `null` (unknown, expired, idle too long, or its user's password changed). */
  async resolve(token: string): Promise<Session | null> {
    const id = hashToken(token);
    const row = await findSessionWithUser(this.db, id);
    if (row === undefined) return null;
    const nowMs = this.now();
    const idleMs = this.limits.idleSeconds * 1000;
    const over = nowMs >= row.expires_at_ms || nowMs - row.last_seen_ms >= idleMs;
    if (over || !sameSecret(credentialOf(row.password_hash), row.credential)) {
      await deleteSession(this.db, id);
      return null;
    }
    if (!isRole(row.role)) return null;
    // Recorded often enough that an active session never looks idle, rarely enough to spare the database.
    if (nowMs - row.last_seen_ms >= Math.min(MAX_TOUCH_INTERVAL_MS, idleMs / 10)) {
      try {
        await touchSession(this.db, id, nowMs);
      } catch (error) {
        if (!(error instanceof DatabaseBusyError)) throw error;
      }
    }
    return { user: { id: row.user_id, username: row.username, displayName: row.display_name, role: row.role }, csrf: csrfTokenOf(token) };
  }

  async end(token: string): Promise<void> {
    await deleteSession(this.db, hashToken(token));
  }

  private async prune(nowMs: number): Promise<void> {
    if (nowMs - this.lastPruneMs < PRUNE_INTERVAL_MS) return;
    this.lastPruneMs = nowMs;
    await pruneSessions(this.db, nowMs, nowMs - this.limits.idleSeconds * 1000);
  }
}
