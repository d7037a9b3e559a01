import { createHash } from 'node:crypto';
import type { AuthUser, Authenticator } from '../platform/auth/authenticate.ts';
import { SoapErrors } from './faults.ts';
import type { UsernameToken } from './username-token.ts';
import type { WsSecretsService } from './ws-secrets.service.ts';

/** How far `wsu:Created` may be from the server clock, either way (docs/soap.md). */
const CREATED_WINDOW_MS = 5 * 60_000;

// xsd:dateTime with a time zone; a zone-less time would depend on the sender's clock settings.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

export interface WsSecurityOptions {
  readonly authenticator: Authenticator;
  readonly secrets: WsSecretsService;
}

/** A nonce to record before the call is accepted; a second use within its lifetime is a replay. */
export interface NonceClaim {
  readonly key: string;
  readonly expiresAtMs: number;
}

export interface VerifiedToken {
  readonly user: AuthUser;
  readonly nonce: NonceClaim | undefined;
}

function createdAt(created: string, nowMs: number): number {
  const ms = DATE_TIME.test(created) ? Date.parse(created) : Number.NaN;
  if (Number.isNaN(ms)) throw SoapErrors.failedAuthentication('Created must be an xsd:dateTime with a time zone.');
  if (Math.abs(nowMs - ms) > CREATED_WINDOW_MS) {
    throw SoapErrors.failedAuthentication('Created is more than 5 minutes away from the server clock.');
  }
  return ms;
}

/**
 * Verifies a UsernameToken: `Created` freshness when present (required for
 * PasswordDigest), then the password — PasswordText against the login
 * password (with the platform's lockout), PasswordDigest against the user's
 * WS-Security secret. The nonce is returned to be recorded with the ping,
 * in one transaction, so a refused call leaves nothing behind.
 */
export async function verifyUsernameToken(
  options: WsSecurityOptions,
  token: UsernameToken,
  address: string,
  nowMs: number,
): Promise<VerifiedToken> {
  const createdMs = token.created === undefined ? undefined : createdAt(token.created, nowMs);
  const user =
    token.passwordType === 'text'
      ? await options.authenticator.verifyPassword(token.username, token.password, address)
      : await options.secrets.verifyDigest(token);
  const nonce =
    token.nonce === undefined
      ? undefined
      : {
          key: createHash('sha256')
            .update(`${token.username}\0${token.nonce.toString('base64')}`)
            .digest('hex'),
          // Past Created + window the token is refused as stale, so the nonce need not be stored longer.
          expiresAtMs: (createdMs ?? nowMs) + CREATED_WINDOW_MS,
        };
  return { user, nonce };
}
