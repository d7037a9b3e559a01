import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { PlatformErrors } from '../errors.ts';
import { isRole, type Role } from './capabilities.ts';
import { decoyHash, verifyPassword } from './passwords.ts';
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

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export type Credentials =
  | { readonly kind: 'basic'; readonly username: string; readonly password: string }
  | { readonly kind: 'bearer'; readonly token: string };

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

export class Authenticator {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly throttle: FailureThrottle,
  ) {}

  /** Resolves the caller of a request; `undefined` header means anonymous. Bad credentials throw. */
  async authenticate(header: string | undefined, address: string): Promise<AuthUser | null> {
    if (header === undefined || header === '') return null;
    const credentials = parseAuthorization(header);
    return credentials.kind === 'basic'
      ? this.verifyPassword(credentials.username, credentials.password, address)
      : this.verifyToken(credentials.token, address);
  }

  /** Username + password check with lockout; used by Basic auth and WS-Security PasswordText. */
  async verifyPassword(username: string, password: string, address: string): Promise<AuthUser> {
    await this.throttle.assertAllowed(username, address);
    const user = await findUserByUsername(this.db, username);
    const valid = await verifyPassword(password, user?.password_hash ?? (await decoyHash()));
    if (user === undefined || !valid || !isRole(user.role)) {
      await this.throttle.recordFailure(username, address);
      throw PlatformErrors.invalidCredentials();
    }
    await this.throttle.recordSuccess(username, address);
    return { id: user.id, username: user.username, displayName: user.display_name, role: user.role };
  }

  private async verifyToken(token: string, address: string): Promise<AuthUser> {
    // Tokens have no username: failures count against the address alone.
    await this.throttle.assertAllowed('', address);
    const owner = await findActiveTokenOwner(this.db, hashToken(token));
    if (owner === undefined || !isRole(owner.role)) {
      await this.throttle.recordFailure('', address);
      throw PlatformErrors.invalidToken();
    }
    const now = Date.now();
    if (owner.last_used_at === null || now - Date.parse(owner.last_used_at) > TOKEN_TOUCH_INTERVAL_MS) {
      await touchToken(this.db, owner.token_id, new Date(now).toISOString());
    }
    return { id: owner.id, username: owner.username, displayName: owner.display_name, role: owner.role };
  }
}
