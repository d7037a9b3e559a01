import type { Kysely } from 'kysely';
import type { AuthUser, Authenticator } from '../platform/auth/authenticate.ts';
import type { BackgroundWork } from '../platform/background.ts';
import type { Database } from '../platform/db/schema.ts';
import { SoapErrors } from './faults.ts';
import { insertNonce, pruneNonces } from './nonces.repository.ts';
import { PingBatches } from './ping-batches.ts';
import type { PingRequest } from './ping-request.ts';
import { countPings, insertPing, listPings } from './pings.repository.ts';
import type { WsSecretsService } from './ws-secrets.service.ts';
import { verifyUsernameToken } from './ws-security.ts';

export interface PingServiceOptions {
  readonly db: Kysely<Database>;
  readonly authenticator: Authenticator;
  readonly soapAuth: 'optional' | 'required';
  /** Checks PasswordDigest tokens. */
  readonly secrets: WsSecretsService;
  /** The server's, which waits for the pings' group commits on shutdown. */
  readonly background?: BackgroundWork;
}

export interface ReceivedPing {
  readonly request: PingRequest;
  /** The caller authenticated by HTTP Basic or Bearer, if any. */
  readonly httpUser: AuthUser | null;
  readonly address: string;
}

const PRUNE_INTERVAL_MS = 60_000;

/** Accepts pings (authentication rules, replay protection, durable record) and lists them. */
export class PingService {
  private lastPruneMs = 0;
  private readonly batches: PingBatches;

  constructor(private readonly options: PingServiceOptions) {
    this.batches = new PingBatches(options.db, options.background);
  }

  /** Resolves once the ping is committed; throws the fault otherwise, having stored nothing. */
  async receive({ request, httpUser, address }: ReceivedPing): Promise<void> {
    const { db, soapAuth } = this.options;
    const nowMs = Date.now();
    const verified = request.token === undefined ? undefined : await verifyUsernameToken(this.options, request.token, address, nowMs);
    // The message-level identity wins over the transport's when a client sends both.
    const user = verified?.user ?? httpUser;
    if (user === null && soapAuth === 'required') {
      throw SoapErrors.failedAuthentication('Credentials are required: send a WS-Security UsernameToken or HTTP Basic credentials.');
    }
    const nonce = verified?.nonce;
    const ping = {
      received_at: new Date(nowMs).toISOString(),
      ping_input: request.pingInput,
      username: user?.username ?? null,
      client_address: address,
    };
    // A nonce and its ping commit together or not at all; other pings commit with those of their tick.
    if (nonce === undefined) {
      await this.batches.write(ping);
      return;
    }
    await db.transaction().execute(async (trx) => {
      if (!(await insertNonce(trx, nonce.key, nonce.expiresAtMs, nowMs))) {
        throw SoapErrors.failedAuthentication('This nonce was already used: the message is a replay.');
      }
      await insertPing(trx, ping);
    });
    if (nowMs - this.lastPruneMs > PRUNE_INTERVAL_MS) {
      this.lastPruneMs = nowMs;
      await pruneNonces(db, nowMs);
    }
  }

  /** One page of pings, newest first. */
  async list(page: number, perPage: number) {
    const { db } = this.options;
    const [pings, total] = await Promise.all([listPings(db, { limit: perPage, offset: (page - 1) * perPage }), countPings(db)]);
    return { pings, total, total_pages: Math.ceil(total / perPage) };
  }
}
