import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { assertFaultStoresNothing, envelope, postSoap, SECRET_KEY, securityHeader } from './soap-fixtures.ts';

const BIN = path.resolve('bin/almanac.js');
const runFile = promisify(execFile);

describe('almanac soap secret: WS-Security PasswordDigest secrets', () => {
  let server: TestServer;
  let author: Credentials;
  before(async () => {
    server = await startTestServer({ SOAP_SECRET_KEY: SECRET_KEY });
    author = await server.createUser('author');
  });
  after(async () => server.close());

  // Asynchronous: the CLI shares the database with this process's server.
  async function almanac(args: string[], env: Record<string, string> = { SOAP_SECRET_KEY: SECRET_KEY }) {
    try {
      const { stdout, stderr } = await runFile(process.execPath, [BIN, ...args], {
        env: { ...process.env, LOG_LEVEL: 'silent', DATABASE_URL: server.config.databaseUrl, ...env },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  const digestPing = (secret: string) =>
    postSoap(server, envelope({ header: securityHeader({ username: author.username, password: secret, type: 'digest' }) }));

  it('issues a secret once that PasswordDigest accepts, and a new one revokes it', async () => {
    const first = await almanac(['soap', 'secret', '--username', author.username]);
    assert.equal(first.code, 0, first.stderr);
    const secret = /^secret=(\S{43})$/.exec(first.stdout.trim())?.[1] ?? '';
    assert.equal((await digestPing(secret)).status, 202);

    const second = await almanac(['soap', 'secret', '--username', author.username, '--json']);
    const issued = JSON.parse(second.stdout) as { username: string; secret: string };
    assert.equal(issued.username, author.username);
    assert.notEqual(issued.secret, secret);
    assert.equal((await digestPing(issued.secret)).status, 202);
    await assertFaultStoresNothing(server, () => digestPing(secret), 'wsse:FailedAuthentication');
  });

  it('exits 1 with one line for an unknown user, or when no SOAP_SECRET_KEY is set', async () => {
    const unknown = await almanac(['soap', 'secret', '--username', 'nobody']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^No user named "nobody"\.\n$/);
    const noKey = await almanac(['soap', 'secret', '--username', author.username], { SOAP_SECRET_KEY: '' });
    assert.equal(noKey.code, 1);
    assert.match(noKey.stderr, /^Set SOAP_SECRET_KEY/);
  });

  it('stops with exit code 2 on a SOAP_SECRET_KEY shorter than 32 characters', async () => {
    const result = await almanac(['soap', 'secret', '--username', author.username], { SOAP_SECRET_KEY: 'short' });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^Invalid configuration: SOAP_SECRET_KEY /);
  });
});
