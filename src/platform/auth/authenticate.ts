import { hash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { revisionOf, type RevisionsHolder } from '../db/revisions.ts';
import type { Database } from '../db/schema.ts';
import { DatabaseBusyError, PlatformErrors } from '../errors.ts';
import { isRole, type Role } from './capabilities.ts';
import { verifyPassword, type PasswordHasher } from './passwords.ts';
import type { FailureThrottle } from './throttle.ts';
import { findActiveTokenOwner, touchToken } from './tokens.repository.ts';
import { findUserByUsername } from './users.repository.ts';

/** The caller, as every surface sees it. */
export interface AuthUser {
  readonly id: number;
  readonly username: string;
  readonly displayName: string;
  readonly role: Role;
}

const MAX_HEADER_LENGTH = 4096;
const TOKEN_TOUCH_INTERVAL_MS = 60_000;
/** What an API token looks like (users.service.ts makes them): `alm_` and 32 random bytes in base64url. */
const TOKEN_SHAPE = /^alm_[A-Za-z0-9_-]{43}$/;

export function hashToken(token: string): string {
  // The one-shot form: no Hash object per request.
  return hash('sha256', token, 'hex');
}

export type Credentials =
  { readonly kind: 'basic'; readonly username: string; readonly password: string } | { readonly kind: 'bearer'; readonly token: string };

/** Parses an Authorization header; throws 401 `invalid_authorization_header` when malformed. */
export function parseAuthorization(header: string): Credentials {
  if (header.length > MAX_HEADER_LENGTH) throw PlatformErrors.invalidAuthorizationHeader();
  const match = /^(\S+) +(\S+)$/.exec(header.trim());
  if (match === null) throw PlatformErrors.invalidAuthorizationHeader();
  const [, scheme = '', value = ''] = match;
  switch (scheme.toLowerCase()) {
    case 'basic': {
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value)) throw PlatformErrors.invalidAuthorizationHeader();
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon <= 0) throw PlatformErrors.invalidAuthorizationHeader();
      return { kind: 'basic', username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
    }
    case 'bearer':
      return { kind: 'bearer', token: value };
    default:
      throw PlatformErrors.invalidAuthorizationHeader();
  }
}

type TokenOwner = NonNullable<Awaited<ReturnType<typeof findActiveTokenOwner>>>;

const MAX_CACHED_TOKENS = 10_000;

export class Authenticator {
  /** Live tokens' owners by token hash, as of one `auth` revision (bumped by the database on every user or token write). */
  private owners: { revision: number; byHash: Map<string, TokenOwner> } = { revision: -1, byHash: new Map() };
  /** When this process last recorded each token's use (`last_used_at`, at most once a minute). */
  private readonly touchedMs = new Map<number, number>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly throttle: FailureThrottle,
    private readonly passwords: PasswordHasher,
  ) {}

  /**
   * Resolves the caller of `request`; `undefined` header means anonymous.
   * Bad credentials throw.
   */
  async authenticate(request: RevisionsHolder, header: string | undefined, address: string): Promise<AuthUser | null> {
    if (header === undefined || header === '') return null;
    const credentials = parseAuthorization(header);
    return credentials.kind === 'basic'
      ? this.verifyBasic(request, credentials.username, credentials.password, address)
      : this.verifyToken(request, credentials.token, address);
  }

  /**
   * Basic credentials: a password, or one of the user's API tokens as the password, for clients that can send
   * nothing but Basic (CalDAV apps). Anything else that looks like a token is checked as a password, so a wrong
   * one counts against the (username, address) pair as any wrong password does.
   */
  private async verifyBasic(request: RevisionsHolder, username: string, password: string, address: string): Promise<AuthUser> {
    if (TOKEN_SHAPE.test(password)) {
      const owner = await this.tokenOwner(request, hashToken(password));
      if (owner !== undefined && owner.username === username && isRole(owner.role)) return this.accepted(owner, owner.role);
    }
    return this.verifyPassword(username, password, address);
  }

  /** Username + password check with lockout; used by Basic auth and WS-Security PasswordText. */
  async verifyPassword(username: string, password: string, address: string): Promise<AuthUser> {
    await this.throttle.assertAllowed(username, address);
    const user = await findUserByUsername(this.db, username);
    const valid = await verifyPassword(password, user?.password_hash ?? (await this.passwords.decoy()));
    if (user === undefined || !valid || !isRole(user.role)) {
      await this.throttle.recordFailure(username, address);
      throw PlatformErrors.invalidCredentials();
    }
    await this.throttle.recordSuccess(username, address);
    return { id: user.id, username: user.username, displayName: user.display_name, role: user.role };
  }

  /**
   * A valid token is accepted without consulting the lockout: lockouts stop
   * guessing, and a 256-bit token is not guessed. A wrong one counts against
   * the address (tokens have no username), and a locked-out address is told so.
   */
  private async verifyToken(request: RevisionsHolder, token: string, address: string): Promise<AuthUser> {
    const hash = hashToken(token);
    const owner = await this.tokenOwner(request, hash);
    if (owner === undefined || !isRole(owner.role)) {
      await this.throttle.assertAllowed('', address);
      await this.throttle.recordFailure('', address);
      throw PlatformErrors.invalidToken();
    }
    return this.accepted(owner, owner.role);
  }

  /** The owner of a live token, its use recorded (at most once a minute per process). */
  private async accepted(owner: TokenOwner, role: Role): Promise<AuthUser> {
    const now = Date.now();
    const touched = this.touchedMs.get(owner.token_id);
    const lastUsedMs = touched ?? (owner.last_used_at === null ? 0 : Date.parse(owner.last_used_at));
    if (now - lastUsedMs > TOKEN_TOUCH_INTERVAL_MS) {
      // Recorded in this process too: the cached owner still carries the old time until the next revision.
      if (this.touchedMs.size >= MAX_CACHED_TOKENS) this.touchedMs.clear();
      this.touchedMs.set(owner.token_id, now);
      try {
        await touchToken(this.db, owner.token_id, new Date(now).toISOString());
      } catch (error) {
        // Bookkeeping, not the request's work: a database another process keeps locked must not refuse a valid token.
        if (!(error instanceof DatabaseBusyError)) throw error;
      }
    }
    return { id: owner.id, username: owner.username, displayName: owner.display_name, role };
  }

  /**
   * The owner of a live token, cached for as long as the `auth` revision
   * holds: a revocation, a role change or a removed user in any process bumps
   * it, so the next request sees the change. Unknown tokens are never
   * cached (guesses must not fill the memory).
   */
  private async tokenOwner(request: RevisionsHolder, hash: string): Promise<TokenOwner | undefined> {
    const revision = await revisionOf(this.db, request, 'auth');
    if (revision !== this.owners.revision) this.owners = { revision, byHash: new Map() };
    const owners = this.owners;
    const known = owners.byHash.get(hash);
    if (known !== undefined) return known;
    const owner = await findActiveTokenOwner(this.db, hash);
    if (owner !== undefined) {
      if (owners.byHash.size >= MAX_CACHED_TOKENS) owners.byHash.clear();
      owners.byHash.set(hash, owner);
    }
    return owner;
  }
}
