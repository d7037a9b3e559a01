import type { FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { buildApp } from './app.ts';
import type { Config } from './config/config.ts';
import { ensureFirstAdministrator } from './platform/auth/users.service.ts';
import { createDb, migrateToLatest, type Store } from './platform/db/database.ts';
import { MIGRATION_FOLDERS } from './migrations.ts';
import { createLogger } from './platform/logger.ts';

const SHUTDOWN_GRACE_MS = 10_000;

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly url: string;
  /** Stops accepting, finishes requests in flight (bounded), closes the database. */
  readonly close: () => Promise<void>;
}

/** Opens the database, migrates, creates the first administrator, listens. */
export async function startServer(
  config: Config,
  { print = console.log, logDestination }: { print?: (line: string) => void; logDestination?: DestinationStream } = {},
): Promise<RunningServer> {
  const logger = createLogger(config.logLevel, logDestination);
  const store = createDb(config.databaseUrl, { sqliteSynchronous: config.sqliteSynchronous, sqliteBusyWaitMs: config.sqliteBusyWaitMs });
  await migrateToLatest(store.db, MIGRATION_FOLDERS);
  const admin = await ensureFirstAdministrator(store.db, store.translateError, config.adminUser, config.adminPassword);
  const app = await buildApp({ config, store, logger });
  const address = await app.listen({ host: config.host, port: config.port });
  const listening = new URL(address);
  const url = config.port === 0 && !process.env.BASE_URL ? listening.origin : config.baseUrl;

  print(`Almanac listening on ${address}`);
  print(`  API index:   ${url}/`);
  print(`  Calendar:    ${url}/calendar/events/v1`);
  print(`  Docs UI:     ${url}/docs`);
  if (admin.created) {
    print(`  administrator created: ${admin.username}`);
    // Printed once, outside the log stream, as platform.md promises.
    if (admin.generatedPassword !== undefined) print(`admin password: ${admin.generatedPassword}`);
  }

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      const timer = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      try {
        await app.close();
      } finally {
        clearTimeout(timer);
        await store.close();
      }
    })());
  return { app, store, url, close };
}

/** Exits 0 after a graceful shutdown on SIGTERM or SIGINT. */
export function closeOnSignals(server: RunningServer): void {
  const stop = (signal: NodeJS.Signals) => {
    server.app.log.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
