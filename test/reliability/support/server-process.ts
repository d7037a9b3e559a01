import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const BIN = path.join(ROOT, 'bin/almanac.js');

/** `almanac serve` as a child process, as an operator runs it. */
export interface ServerProcess {
  readonly process: ChildProcess;
  readonly url: string;
  /** Everything it printed so far (stdout and the log stream). */
  readonly output: () => string;
}

/** Starts `almanac serve` (with `args`, such as `--workers 2`) with `env` and waits until it listens; `onOutput` sees everything it prints. */
export async function startServerProcess(
  env: NodeJS.ProcessEnv,
  onOutput: (text: string) => void = () => undefined,
  args: readonly string[] = [],
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    onOutput(chunk.toString());
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const match = /Almanac listening on (http:\/\/[^\s]+)/.exec(output);
    if (match?.[1] !== undefined) return { process: child, url: match[1].replace(/\/$/, ''), output: () => output };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the server did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Sends `signal` and waits for the exit; the exit code (null when killed by the signal). */
export async function stopServerProcess(child: ServerProcess, signal: NodeJS.Signals): Promise<number | null> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return child.process.exitCode;
  const exited = new Promise<number | null>((resolve) => child.process.once('exit', (code) => resolve(code)));
  child.process.kill(signal);
  return exited;
}

/** A Bearer header for a new API token of `username`, made by the CLI on the database `env` names. */
export function bearerFor(env: NodeJS.ProcessEnv, username: string): string {
  const run = spawnSync(process.execPath, [BIN, 'tokens', 'create', '--username', username, '--json'], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`tokens create failed: ${run.stderr}`);
  return `Bearer ${(JSON.parse(run.stdout) as { token: string }).token}`;
}
