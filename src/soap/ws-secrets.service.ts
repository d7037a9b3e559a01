import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AuthUser } from '../platform/auth/authenticate.ts';
import { isRole } from '../platform/auth/capabilities.ts';
import { findUserByUsername } from '../platform/auth/users.repository.ts';
import type { Db } from '../platform/db/schema.ts';
import { AppError } from '../platform/errors.ts';
import { SoapErrors } from './faults.ts';
import type { UsernameToken } from './username-token.ts';
import { findWsSecretOwner, upsertWsSecret } from './ws-secrets.repository.ts';

/**
 * PasswordDigest hashes the password itself, so the server must know it;
 * login passwords are scrypt hashes. Each user may instead get a separate
 * WS-Security secret, HMAC(server key, user id, salt): only the salt is
 * stored, so the database alone reveals no secret (ADR 0007).
 */
function deriveSecret(serverKey: string, userId: number, salt: string): string {
  return createHmac('sha256', serverKey).update(`almanac-wsse-v1\0${userId}\0${salt}`).digest('base64url');
}

/** Base64(SHA-1(nonce + created + password)), UsernameToken Profile 1.0 §3.1. */
function passwordDigest(nonce: Buffer, created: string, password: string): string {
  return createHash('sha1')
    .update(Buffer.concat([nonce, Buffer.from(created, 'utf8'), Buffer.from(password, 'utf8')]))
    .digest('base64');
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

export interface WsSecretsServiceOptions {
  readonly db: Db;
  /** `SOAP_SECRET_KEY`: enables PasswordDigest. */
  readonly serverKey: string | undefined;
}

/** The users' WS-Security PasswordDigest secrets: issued by the command line, checked on every digest token. */
export class WsSecretsService {
  constructor(private readonly options: WsSecretsServiceOptions) {}

  /**
   * Issues a new PasswordDigest secret for the user, replacing any previous
   * one. The caller shows it once; it cannot be listed later.
   */
  async issue(username: string): Promise<string> {
    const { db, serverKey } = this.options;
    if (serverKey === undefined) {
      throw new AppError(400, 'soap_secret_key_missing', 'Set SOAP_SECRET_KEY (32+ characters) to enable WS-Security PasswordDigest.');
    }
    const user = await findUserByUsername(db, username);
    if (user === undefined) throw new AppError(404, 'unknown_user', `No user named "${username}".`);
    const salt = randomBytes(16).toString('base64url');
    await upsertWsSecret(db, user.id, salt, new Date().toISOString());
    return deriveSecret(serverKey, user.id, salt);
  }

  /** Verifies a PasswordDigest token against the user's WS-Security secret; Nonce and Created are required. */
  async verifyDigest(token: UsernameToken): Promise<AuthUser> {
    const { db, serverKey } = this.options;
    const { nonce, created } = token;
    if (nonce === undefined || created === undefined) {
      throw SoapErrors.failedAuthentication('A PasswordDigest token needs a Nonce and a Created time.');
    }
    if (serverKey === undefined) throw SoapErrors.failedAuthentication('PasswordDigest is not enabled on this server.');
    const owner = await findWsSecretOwner(db, token.username);
    // An unknown user is checked against a throwaway secret, so both failures look and last the same.
    const secret = owner === undefined ? randomBytes(32).toString('base64url') : deriveSecret(serverKey, owner.id, owner.salt);
    const valid = sameText(token.password, passwordDigest(nonce, created, secret));
    if (owner === undefined || !valid || !isRole(owner.role)) {
      throw SoapErrors.failedAuthentication('The username or password is incorrect.');
    }
    return { id: owner.id, username: owner.username, displayName: owner.display_name, role: owner.role };
  }
}
