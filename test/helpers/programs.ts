import { spawnSync } from 'node:child_process';

/**
 * Fails the test file at once when a program it tests against is missing (a client, a proxy, an oracle): a
 * missing subject is a failure that names what to install, never a skipped test.
 */
export function requireProgram(command: string, args: readonly string[], missing: string): void {
  if (spawnSync(command, args, { stdio: 'ignore' }).status !== 0) throw new Error(`${missing}; the tests of this file need it`);
}
