/**
 * `almanac serve --workers N`: N processes on one port through node:cluster.
 * The primary migrates and creates the first administrator once, forks the
 * workers (each a whole server: HTTP, webhook deliveries, hourly maintenance),
 * starts another when one dies, and on SIGTERM or SIGINT lets each finish what
 * it is serving before it exits. Everything the processes must agree on lives
 * in the database (docs/architecture.md, "State that must work with several
 * processes"); the primary itself holds no state and serves no request.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config/config.ts';
import { createLogger } from './platform/logger.ts';
import { closeOnSignals, openStore, prepareDatabase, printBanner, publicUrl, SHUTDOWN_GRACE_MS, startServer } from './server.ts';

/** What a worker tells the primary once it listens. */
interface ListeningMessage {
  readonly almanac: 'listening';
  readonly address: string;
}

const FIRST_RESTART_DELAY_MS = 250;
const LONGEST_RESTART_DELAY_MS = 10_000;
/** A worker that ran this long before it died starts the backoff afresh. */
const HEALTHY_AFTER_MS = 30_000;

/** In a worker of `serve --workers N`: the server, without migrating or the first administrator, and its banner left to the primary. */
export async function runWorker(config: Config): Promise<void> {
  const server = await startServer(config, { print: () => undefined, prepared: true });
  closeOnSignals(server);
  const message: ListeningMessage = { almanac: 'listening', address: server.address };
  process.send?.(message);
}

function isListening(message: unknown): message is ListeningMessage {
  return typeof message === 'object' && message !== null && (message as { almanac?: unknown }).almanac === 'listening';
}

/** The delay before the next start after `quickDeaths` workers in a row died young: 250 ms, doubling, at most 10 s. */
export function restartDelay(quickDeaths: number): number {
  return Math.min(FIRST_RESTART_DELAY_MS * 2 ** Math.max(0, quickDeaths - 1), LONGEST_RESTART_DELAY_MS);
}

/** In the primary: prepares the database, forks `workers` servers sharing the port, keeps them running until a signal. */
export async function runPrimary(config: Config, workers: number, { print = console.log }: { print?: (line: string) => void } = {}) {
  const log = createLogger(config.logLevel).child({ role: 'primary' });
  const store = openStore(config, log);
  const admin = await prepareDatabase(store, config).finally(() => store.close());

  const startedAt = new Map<Worker, number>();
  let listening = 0;
  let started = false;
  let stopping = false;
  let quickDeaths = 0;
  let failed = false;
  const pending = new Set<NodeJS.Timeout>();

  const fork = () => {
    const worker = cluster.fork();
    startedAt.set(worker, Date.now());
    worker.on('message', (message: unknown) => {
      if (!isListening(message)) return;
      log.info({ worker: worker.process.pid }, 'worker listening');
      if (started || ++listening < workers) return;
      started = true;
      printBanner(print, message.address, publicUrl(config, message.address), admin);
    });
  };

  const exitWhenAllGone = () => {
    if (Object.keys(cluster.workers ?? {}).length > 0) return;
    log.info('all workers stopped');
    process.exit(failed ? 1 : 0);
  };

  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ reason }, 'shutting down');
    for (const timer of pending) clearTimeout(timer);
    // A worker finishes its requests in flight as a single process does (closeOnSignals), then exits.
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    setTimeout(() => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
    }, SHUTDOWN_GRACE_MS + 5_000).unref();
    exitWhenAllGone();
  };

  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (startedAt.get(worker) ?? Date.now());
    startedAt.delete(worker);
    if (stopping) {
      if (code !== 0 && signal !== 'SIGTERM') failed = true;
      exitWhenAllGone();
      return;
    }
    if (!started) {
      // A worker that cannot start (the port is taken, the database unreachable) would fail again: stop.
      log.error({ worker: worker.process.pid, code, signal }, 'a worker failed to start');
      failed = true;
      stop('a worker failed to start');
      return;
    }
    quickDeaths = lived >= HEALTHY_AFTER_MS ? 1 : quickDeaths + 1;
    const delay = restartDelay(quickDeaths);
    log.warn({ worker: worker.process.pid, code, signal, restartInMs: delay }, 'worker exited; starting another');
    const timer = setTimeout(() => {
      pending.delete(timer);
      if (!stopping) fork();
    }, delay);
    pending.add(timer);
  });

  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  log.info({ workers }, 'starting workers');
  for (let i = 0; i < workers; i++) fork();
}
