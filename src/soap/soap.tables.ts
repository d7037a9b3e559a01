import type { Generated } from 'kysely';

/** One accepted ping: written once, never updated. */
export interface SoapPingTable {
  id: Generated<number>;
  /** UTC, ISO 8601 with milliseconds. */
  received_at: string;
  ping_input: string;
  /** The authenticated caller's username at the time, `null` when anonymous. */
  username: string | null;
  client_address: string;
}

/** UsernameToken nonces seen recently, shared by every process on the database (replay protection). */
export interface SoapNonceTable {
  /** SHA-256 (hex) of the username and the nonce bytes. */
  nonce_key: string;
  /** Past this instant a replay fails the `Created` window anyway, so the row can go. */
  expires_at_ms: number;
}

/**
 * A user's WS-Security PasswordDigest secret, derived on demand from the
 * server key and this salt (ADR 0007): the secret itself is never stored.
 */
export interface SoapWsSecretTable {
  user_id: number;
  salt: string;
  issued_at: string;
}

declare module '../platform/db/schema.ts' {
  interface Database {
    soap_pings: SoapPingTable;
    soap_nonces: SoapNonceTable;
    soap_ws_secrets: SoapWsSecretTable;
  }
}
