import type { FastifyInstance } from 'fastify';
import type { DestinationStream, Logger } from 'pino';
import { buildApp } from './app.ts';
import type { Config } from './config/config.ts';
import { PasswordHasher } from './platform/auth/passwords.ts';
import { UsersService } from './platform/auth/users.service.ts';
import { BackgroundWork } from './platform/background.ts';
import { createDb, migrateToLatest, type Store } from './platform/db/database.ts';
import { MIGRATION_FOLDERS } from './migrations.ts';
import { createLogger } from './platform/logger.ts';

export const SHUTDOWN_GRACE_MS = 10_000;

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly store: Store;
  /** Its periodic and background work: `drain()` resolves once everything it would do now is done. */
  readonly background: BackgroundWork;
  readonly url: string;
  /** The address it listens on, as `listen` gave it. */
  readonly address: string;
  /** Stops accepting, finishes requests in flight (bounded) and the background work under way, closes the database. */
  readonly close: () => Promise<void>;
}

type FirstAdministrator = Awaited<ReturnType<UsersService['ensureFirstAdministrator']>>;

/** Migrates the database and creates the first administrator: once per start, before any process listens. */
export async function prepareDatabase(store: Store, config: Config): Promise<FirstAdministrator> {
  await migrateToLatest(store.db, MIGRATION_FOLDERS);
  return new UsersService(store, new PasswordHasher(config.passwordHashCost)).ensureFirstAdministrator(
    config.adminUser,
    config.adminPassword,
  );
}

/** The store of a serving process: on SQLite, WAL checkpoints run off the event loop. */
export function openStore(config: Config, logger: Logger): Store {
  return createDb(config.databaseUrl, {
    sqliteSynchronous: config.sqliteSynchronous,
    sqliteBusyWaitMs: config.sqliteBusyWaitMs,
    onSqliteCheckpointError: (err) => logger.error({ err }, 'the WAL checkpoint thread failed: checkpoints run inline from now on'),
  });
}

/** The public base URL: the address actually bound when PORT=0 and no BASE_URL was given. */
export function publicUrl(config: Config, address: string): string {
  return config.port === 0 && !process.env.BASE_URL ? new URL(address).origin : config.baseUrl;
}

/**
 * The start-up banner, and the first administrator (its generated password once, outside the log stream, as the README promises).
 * One write, so that nothing logged meanwhile lands inside it and a reader of the pipe sees it whole.
 */
export function printBanner(print: (text: string) => void, address: string, url: string, admin: FirstAdministrator): void {
  const lines = [
    `Almanac listening on ${address}`,
    `  Calendar:    ${url}/events/`,
    `  API index:   ${url}/`,
    `  Events API:  ${url}/calendar/events/v1`,
    `  Docs UI:     ${url}/docs`,
  ];
  if (admin.created) {
    lines.push(`  administrator created: ${admin.username}`);
    if (admin.generatedPassword !== undefined) lines.push(`admin password: ${admin.generatedPassword}`);
  }
  print(lines.join('\n'));
}

/**
 * Opens the database, migrates, creates the first administrator, listens. A worker of
 * `serve --workers N` passes `prepared`: the primary did the first two once.
 */
export async function startServer(
  config: Config,
  {
    print = console.log,
    logDestination,
    prepared = false,
  }: { print?: (line: string) => void; logDestination?: DestinationStream; prepared?: boolean } = {},
): Promise<RunningServer> {
  const logger = createLogger(config.logLevel, logDestination);
  const store = openStore(config, logger);
  const admin: FirstAdministrator = prepared ? { created: false } : await prepareDatabase(store, config);
  const background = new BackgroundWork(logger);
  const app = await buildApp({ config, store, logger, background });
  const address = await app.listen({ host: config.host, port: config.port });
  background.start();
  const url = publicUrl(config, address);
  printBanner(print, address, url, admin);

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      const timer = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      try {
        await app.close();
      } finally {
        clearTimeout(timer);
        await background.stop();
        await store.close();
      }
    })());
  return { app, store, background, url, address, close };
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
