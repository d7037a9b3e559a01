import type { Kysely } from 'kysely';
import type { Config } from '../../config/config.ts';
import { PasswordHasher, verifyPassword } from '../../platform/auth/passwords.ts';
import { FailureThrottle } from '../../platform/auth/throttle.ts';
import type { Database } from '../../platform/db/schema.ts';

/** The throttle's subject: failures are counted per address, whatever post they were on. */
const ADDRESS_ONLY = '';

/** What the gate needs of a post: its id and its password hash (`null`: not protected). */
export interface ProtectedPost {
  readonly id: number;
  readonly password_hash: string | null;
}

/** One read's claim to protected posts: the `password` and `context` it sent, from where. */
export interface PasswordAttempt<Post extends ProtectedPost> {
  readonly password?: string | undefined;
  readonly context?: string | undefined;
  readonly address: string;
  /** May this caller edit the post (then `context=edit` opens it without a password)? */
  readonly editable: (post: Post) => boolean;
}

/**
 * Decides which protected posts a read shows unstripped (docs/calendar-compatibility.md): no
 * password, `context=edit` from who may edit, or the right `password`.
 *
 * A request is one attempt, whatever it lists: it fails only when its
 * password opens none of the posts it tried, and a password that opens one
 * of them is never a failure. Failures are counted in their own bucket, per
 * address (`AUTH_MAX_FAILURES` in `AUTH_LOCKOUT_SECONDS`), so guessing post
 * passwords never locks anybody out of logging in. A locked-out address gets
 * a 429 on a single read; its lists keep the posts stripped.
 */
export class PostPasswords {
  private readonly throttle: FailureThrottle;

  private readonly hasher: PasswordHasher;

  constructor(db: Kysely<Database>, config: Config) {
    this.hasher = new PasswordHasher(config.passwordHashCost);
    // Counted per address only: a count per post would let a list go on guessing a post locked alone.
    this.throttle = new FailureThrottle(db, 'post-password', {
      maxFailures: config.authMaxFailures,
      maxFailuresPerAddress: 0,
      windowSeconds: config.authLockoutSeconds,
    });
  }

  /** The stored hash of a `password` argument: `null` removes the password, `undefined` keeps it. Slow by design: call it before taking locks. */
  async hashOf(password: string | undefined): Promise<string | null | undefined> {
    if (password === undefined) return undefined;
    return password === '' ? null : this.hasher.hash(password);
  }

  /** The ids of `posts` shown unstripped to `attempt`. */
  async unlocked<Post extends ProtectedPost>(
    posts: readonly Post[],
    attempt: PasswordAttempt<Post>,
    mode: 'single' | 'list',
  ): Promise<ReadonlySet<number>> {
    const open = new Set<number>();
    const guarded: Post[] = [];
    for (const post of posts) {
      if (post.password_hash === null || (attempt.context === 'edit' && attempt.editable(post))) open.add(post.id);
      else guarded.push(post);
    }
    const { password, address } = attempt;
    if (guarded.length === 0 || password === undefined || password === '') return open;
    try {
      await this.throttle.assertAllowed(ADDRESS_ONLY, address);
    } catch (error) {
      if (mode === 'list') return open;
      throw error;
    }
    const matches = await Promise.all(guarded.map((post) => verifyPassword(password, post.password_hash ?? '')));
    guarded.forEach((post, index) => matches[index] && open.add(post.id));
    // A success clears nothing: knowing one post's password is no licence to guess the others.
    if (!matches.includes(true)) await this.throttle.recordFailure(ADDRESS_ONLY, address);
    return open;
  }
}
