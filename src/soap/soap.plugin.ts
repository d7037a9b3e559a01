import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.ts';
import type { Authenticator } from '../platform/auth/authenticate.ts';
import type { BackgroundWork } from '../platform/background.ts';
import type { Store } from '../platform/db/database.ts';
import { pingServiceRoutes } from './ping-service.routes.ts';
import { PingService } from './ping.service.ts';
import { pingsRoutes } from './pings.routes.ts';
import { WsSecretsService } from './ws-secrets.service.ts';

const PREFIX = '/soap';

export interface SoapOptions {
  readonly config: Config;
  readonly store: Store;
  /** The platform's, so PasswordText logins share Basic's lockout. */
  readonly authenticator: Authenticator;
  readonly background: BackgroundWork;
}

/** The SOAP surface: `/soap/PingService` (SOAP faults) and `/soap/pings` (JSON, WordPress-shaped errors). */
export async function soapPlugin(app: FastifyInstance, { config, store, authenticator, background }: SoapOptions): Promise<void> {
  const service = new PingService({
    db: store.db,
    authenticator,
    soapAuth: config.soapAuth,
    secrets: new WsSecretsService({ db: store.db, serverKey: config.soapSecretKey }),
    background,
  });
  await app.register(pingServiceRoutes, { prefix: PREFIX, service, endpointUrl: `${config.baseUrl}${PREFIX}/PingService` });
  await app.register(pingsRoutes, { prefix: PREFIX, service });
}
