import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Which CPUs the servers and the load generator get: on two or more cores
 * (and with `taskset`), the load generator has the last core to itself, so
 * that it does not steal time from the process it measures.
 */
export interface CpuPlan {
  readonly server: string | undefined;
  readonly load: string | undefined;
  readonly description: string;
}

export function planCpus(): CpuPlan {
  const cpus = availableParallelism();
  const taskset = spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!taskset || cpus < 2) {
    return {
      server: undefined,
      load: undefined,
      description: `${cpus} CPU(s), no pinning (${taskset ? 'one core' : 'taskset not found'})`,
    };
  }
  const server = cpus === 2 ? '0' : `0-${cpus - 2}`;
  const load = String(cpus - 1);
  return { server, load, description: `${cpus} CPUs: server on CPU ${server}, load generator on CPU ${load} (taskset)` };
}

/** `command args` prefixed with `taskset -c cpus` when pinning. */
export function pinned(cpus: string | undefined, command: string, args: readonly string[]): [string, string[]] {
  return cpus === undefined ? [command, [...args]] : ['taskset', ['-c', cpus, command, ...args]];
}

/**
 * The node arguments of `npm start` (package.json's `start` script,
 * `node <flags> bin/almanac.js serve`): the benchmark runs the server exactly
 * so, V8 flags included.
 */
export function npmStartArgs(): string[] {
  const { scripts } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const [command, ...args] = scripts.start.trim().split(/\s+/);
  if (command !== 'node' || !args.includes('bin/almanac.js')) throw new Error(`unexpected start script: ${scripts.start}`);
  return args;
}

/** The environment a measured server runs in: its database, any free port, quiet logs, an admin, no rate limit. */
export function serverEnv(databaseUrl: string, adminPassword: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'warn',
    ADMIN_USER: 'admin',
    ADMIN_PASSWORD: adminPassword,
    RATE_LIMIT_PER_MINUTE: '0',
  };
}

/** A child process serving HTTP; `taskset` execs the command, so the pid is the server's own. */
export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  /** Peak resident set size so far (VmHWM), in bytes; undefined where /proc is absent. */
  peakRss(): number | undefined;
  /** Its resident memory now, in bytes. */
  rss(): number | undefined;
  stop(): Promise<void>;
}

const LISTENING = /listening on (https?:\/\/\S+)/i;

/** Starts a server child and resolves with its URL once it prints "listening on <url>". */
export function startServerProcess(
  label: string,
  command: [string, string[]],
  env: Record<string, string>,
  timeoutMs = 60_000,
  cwd = ROOT,
): Promise<ServerProcess> {
  const child = spawn(command[0], command[1], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const fail = (reason: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${label} did not start: ${reason}\n${output.slice(-2000)}`));
    };
    const timer = setTimeout(() => fail(`no "listening on" line within ${timeoutMs / 1000} s`), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = LISTENING.exec(output);
      if (match === null || child.pid === undefined) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      // Keep draining the pipes so a chatty server never blocks on a full pipe.
      child.stdout?.resume();
      resolve(serverProcess(child, match[1]!.replace(/\/$/, '')));
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('exit', (code, signal) => fail(`exited (${signal ?? code})`));
    child.once('error', (error) => fail(error.message));
  });
}

function serverProcess(child: ChildProcess, url: string): ServerProcess {
  const pid = child.pid!;
  child.removeAllListeners('exit');
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    url,
    pid,
    peakRss: () => readMemory(pid, 'VmHWM'),
    rss: () => readMemory(pid, 'VmRSS'),
    stop: async () => {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** A memory figure of the process from /proc (VmHWM: peak resident, VmRSS: resident now), in bytes. */
function readMemory(pid: number, field: 'VmHWM' | 'VmRSS'): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kilobytes = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1];
    return kilobytes === undefined ? undefined : Number(kilobytes) * 1024;
  } catch {
    return undefined;
  }
}

/** Runs a CLI command of the package (`node bin/almanac.js …`) and returns its stdout. */
export function runCli(args: readonly string[], env: Record<string, string>): string {
  return runNode([path.join(ROOT, 'bin/almanac.js'), ...args], env);
}

/** Runs a TypeScript script of the package (`node --import tsx script …`) on these CPUs and returns its stdout. */
export function runScript(cpus: string | undefined, script: string, args: readonly string[], env: Record<string, string>): string {
  return runNode(['--import', 'tsx', script, ...args], env, cpus);
}

function runNode(args: readonly string[], env: Record<string, string>, cpus?: string): string {
  const [command, commandArgs] = pinned(cpus, process.execPath, args);
  const result = spawnSync(command, commandArgs, { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  return result.stdout;
}

/** Builds dist/ (`npm run build`) so that the server runs the bundle of the sources as they are now. */
export function buildBundle(): void {
  const result = spawnSync(process.execPath, [path.join(ROOT, 'scripts/bundle.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`npm run build failed (${result.status}): ${result.stderr}`);
}
