import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from './processes.ts';

const SCRIPT = path.join(ROOT, 'scripts/pgbouncer.sh');

/**
 * How `--pgbouncer` puts a PgBouncer in front of the PostgreSQL that `BENCH_DATABASE_URL` names: the environment
 * of `scripts/pgbouncer.sh` (its port, directory, credentials and the server it forwards to), and the address
 * through it of any database on that server.
 */
export interface PgBouncerPlan {
  readonly scriptEnv: Readonly<Record<string, string>>;
  /** `url` (a database on the server of BENCH_DATABASE_URL) as reached through the pooler. */
  pooled(url: string): string;
}

/** Why `--pgbouncer` cannot run with this BENCH_DATABASE_URL, or undefined when it can. */
export function pgbouncerRefusal(adminUrl: string | undefined): string | undefined {
  if (adminUrl === undefined || !/^postgres(ql)?:\/\//.test(adminUrl)) {
    return '--pgbouncer needs BENCH_DATABASE_URL=postgres://user:pass@host:port/db: PgBouncer fronts PostgreSQL';
  }
  const server = new URL(adminUrl);
  if (server.username === '' || server.password === '') {
    return '--pgbouncer needs a user and a password in BENCH_DATABASE_URL: PgBouncer signs in with them';
  }
  return undefined;
}

/** The plan for a pooler on `port` keeping its files in `directory`. */
export function planPgBouncer(adminUrl: string | undefined, port: number, directory: string): PgBouncerPlan {
  const refusal = pgbouncerRefusal(adminUrl);
  if (refusal !== undefined) throw new Error(refusal);
  const server = new URL(adminUrl as string);
  return {
    scriptEnv: {
      PGBOUNCER_PORT: String(port),
      PGBOUNCER_DIR: directory,
      PGBOUNCER_USER: decodeURIComponent(server.username),
      PGBOUNCER_PASSWORD: decodeURIComponent(server.password),
      PGBOUNCER_TARGET_HOST: server.hostname.replace(/^\[(.*)\]$/, '$1'),
      PGBOUNCER_TARGET_PORT: server.port === '' ? '5432' : server.port,
    },
    pooled(url) {
      const through = new URL(url);
      through.hostname = '127.0.0.1';
      through.port = String(port);
      return through.toString();
    },
  };
}

/** A running pooler: the servers' database address through it, what the report says of it, and how it stops. */
export interface PgBouncer extends PgBouncerPlan {
  readonly description: string;
  stop(): void;
}

/** Starts PgBouncer in transaction pooling on a free port in front of the server of `adminUrl`. */
export async function startPgBouncer(adminUrl: string | undefined): Promise<PgBouncer> {
  const directory = mkdtempSync(path.join(tmpdir(), 'almanac-bench-pgbouncer-'));
  const plan = planPgBouncer(adminUrl, await freePort(), directory);
  const script = (command: 'start' | 'stop') =>
    spawnSync('bash', [SCRIPT, command], { cwd: ROOT, env: { ...process.env, ...plan.scriptEnv }, encoding: 'utf8' });
  const started = script('start');
  if (started.status !== 0) {
    rmSync(directory, { recursive: true, force: true });
    throw new Error(`PgBouncer did not start (scripts/pgbouncer.sh, Debian's pgbouncer package): ${started.stderr}`);
  }
  const version = /PgBouncer (\S+)/.exec(spawnSync('pgbouncer', ['--version'], { encoding: 'utf8' }).stdout ?? '')?.[1] ?? '?';
  return {
    ...plan,
    description: `through PgBouncer ${version} in transaction pooling on 127.0.0.1:${plan.scriptEnv.PGBOUNCER_PORT}`,
    stop() {
      script('stop');
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** A port nothing listens on now, for the pooler to take. */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  probe.close();
  return port;
}
