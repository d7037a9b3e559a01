/**
 * `almanac serve --workers 2` (issue 26), as operators run it: one port, two
 * worker processes under a primary, one database (SQLite by default,
 * PostgreSQL with TEST_DATABASE_URL). Each request goes on a connection of its
 * own, so the primary hands them to the workers in turn; the pid in each
 * request's log line says which worker served it. Every consistency promise
 * the README makes holds across the workers: revoked tokens, role changes,
 * cached anonymous answers and their ETags, the failed-login lockout, SOAP
 * nonces; the rate limit is per process, as documented. A worker killed with
 * SIGKILL is replaced; SIGTERM on the primary stops everything and exits 0.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { freshDatabase, rawRequest } from '../helpers/server.ts';
import { envelope, securityHeader } from '../soap/soap-fixtures.ts';
import { CALENDAR, calendarBody } from './support/seed.ts';
import { BIN, ROOT, startServerProcess, stopServerProcess, type ServerProcess } from './support/server-process.ts';

const run = promisify(execFile);
const database = await freshDatabase();
const ADMIN_PASSWORD = `workers-${randomBytes(6).toString('hex')}`;
const env = {
  ...process.env,
  LOG_LEVEL: 'info',
  HOST: '127.0.0.1',
  PORT: '0',
  DATABASE_URL: database.url,
  ADMIN_USER: 'admin',
  ADMIN_PASSWORD,
  AUTH_MAX_FAILURES: '5',
  SOAP_SECRET_KEY: 'workers-test-soap-secret-key-0123456789',
  // `--workers 2` wins over it.
  WEB_CONCURRENCY: '3',
};
const where = database.url.startsWith('sqlite:') ? 'SQLite' : 'PostgreSQL';

/** `almanac …` on the test database, as an operator runs it beside the server; its stdout. */
async function cli(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [BIN, ...args], { cwd: ROOT, env });
  return stdout;
}

async function tokenFor(username: string): Promise<{ id: number; header: string }> {
  const { id, token } = JSON.parse(await cli('tokens', 'create', '--username', username, '--json')) as { id: number; token: string };
  return { id, header: `Bearer ${token}` };
}

interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
  readonly json: any;
  /** The worker that served it. */
  readonly pid: number;
}

interface LogLine {
  readonly pid: number;
  readonly msg: string;
  readonly worker?: number;
  readonly signal?: string;
}

function logLines(text: string): LogLine[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

async function waitFor<T>(what: string, probe: () => T | undefined, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * The server's output once both workers have said they listen and the primary has printed its banner after them
 * (the port answers as soon as the first worker listens).
 */
const outputOnceBothListen = (server: ServerProcess) =>
  waitFor('both workers listening, then the banner', () => {
    const output = server.output();
    const bothListen = logLines(output).filter((line) => line.msg === 'worker listening').length >= 2;
    return bothListen && output.includes('Almanac listening on') ? output : undefined;
  });

/** One request on a connection of its own (no keep-alive: the primary gives each connection to the next worker). */
async function call(
  server: ServerProcess,
  method: string,
  path: string,
  { headers = {}, body }: { headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  const offset = server.output().length;
  const answer = await rawRequest(`${server.url}${path}`, { method, headers, body, ownConnection: true });
  const { status, headers: received } = answer;
  const text = answer.body.toString();
  const pid = await waitFor(`the log line of ${method} ${path}`, () => {
    const lines = logLines(server.output().slice(offset));
    return lines.find((line) => line.msg === 'incoming request')?.pid;
  });
  let json: unknown;
  if (/json/.test(received['content-type'] ?? '')) json = JSON.parse(text);
  return { status, headers: received, text, json, pid };
}

const jsonBody = (auth: string, body: unknown) => ({
  headers: { authorization: auth, 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** Repeats `request` until both workers have served it (at most 10 times); every answer is checked by `check`. */
async function onBothWorkers(request: () => Promise<Answer>, check: (answer: Answer) => void): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < 10 && new Set(answers.map((answer) => answer.pid)).size < 2; i++) {
    const answer = await request();
    check(answer);
    answers.push(answer);
  }
  assert.equal(new Set(answers.map((answer) => answer.pid)).size, 2, 'both workers answered');
  return answers;
}

/** A date-time `days` from now in the calendar's write format. */
function inDays(days: number, hour: number): string {
  const date = new Date(Date.now() + days * 86_400_000);
  return `${date.toISOString().slice(0, 10)} ${String(hour).padStart(2, '0')}:00:00`;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe(`almanac serve --workers 2 on ${where}`, () => {
  let server: ServerProcess;
  let admin: { id: number; header: string };
  const started: ServerProcess[] = [];
  const drops: (() => Promise<void>)[] = [];

  before(async () => {
    server = await startServerProcess(env, () => undefined, ['--workers', '2']);
    started.push(server);
    await cli('users', 'add', '--username', 'ed', '--password', 'ed-long-password', '--role', 'editor');
    admin = await tokenFor('admin');
  });
  after(async () => {
    await Promise.all(started.map((child) => stopServerProcess(child, 'SIGKILL')));
    await database.drop();
    for (const drop of drops) await drop();
  });

  it('starts two workers on one port (--workers wins over WEB_CONCURRENCY), prints the banner once, and both serve requests', async () => {
    const output = await outputOnceBothListen(server);
    assert.equal(output.match(/Almanac listening on/g)?.length, 1, output);
    assert.doesNotMatch(output, /admin password:/, 'a supplied password is never printed');
    const listening = logLines(output).filter((line) => line.msg === 'worker listening');
    assert.equal(listening.length, 2);
    const workers = new Set(listening.map((line) => line.worker));
    const answers = await onBothWorkers(
      () => call(server, 'GET', '/healthz'),
      (answer) => assert.equal(answer.status, 200),
    );
    for (const answer of answers) assert.ok(workers.has(answer.pid), `pid ${answer.pid} is a worker`);
    assert.ok(!workers.has(server.process.pid), 'the primary serves no request');
  });

  it('a write through one worker is in the next cached anonymous read through either: list, single event, ETag', async () => {
    const created = await call(
      server,
      'POST',
      `${CALENDAR}/events`,
      jsonBody(admin.header, calendarBody('events', 'Before', { status: 'publish', start_date: inDays(10, 10), end_date: inDays(10, 12) })),
    );
    assert.equal(created.status, 201, created.text);
    const id = (created.json as { id: number }).id;
    const single = `${CALENDAR}/events/${id}`;
    const list = `${CALENDAR}/events`;
    const titleIn = (answer: Answer) => (answer.json as { events: { id: number; title: string }[] }).events.find((e) => e.id === id)?.title;
    // Each worker answers twice, so the second answer is a cached one.
    const before = new Set<string>();
    for (let round = 0; round < 2; round++) {
      for (const answer of await onBothWorkers(
        () => call(server, 'GET', single),
        (a) => assert.equal(a.status, 200),
      )) {
        assert.equal((answer.json as { title: string }).title, 'Before');
        before.add(String(answer.headers.etag));
      }
      for (const answer of await onBothWorkers(
        () => call(server, 'GET', list),
        (a) => assert.equal(a.status, 200),
      )) {
        assert.equal(titleIn(answer), 'Before');
        before.add(String(answer.headers.etag));
      }
    }
    const updated = await call(server, 'POST', single, jsonBody(admin.header, { title: 'After' }));
    assert.equal(updated.status, 200, updated.text);
    for (const answer of await onBothWorkers(
      () => call(server, 'GET', single),
      (a) => assert.equal(a.status, 200),
    )) {
      assert.equal((answer.json as { title: string }).title, 'After', `worker ${answer.pid} answered the new title`);
      assert.ok(answer.headers.etag !== undefined && !before.has(answer.headers.etag), 'a new ETag');
    }
    for (const answer of await onBothWorkers(
      () => call(server, 'GET', list),
      (a) => assert.equal(a.status, 200),
    )) {
      assert.equal(titleIn(answer), 'After', `worker ${answer.pid} listed the new title`);
      assert.ok(answer.headers.etag !== undefined && !before.has(answer.headers.etag), 'a new ETag');
    }
  });

  it('a token revoked with the CLI is refused by every worker at once', async () => {
    const token = await tokenFor('ed');
    await onBothWorkers(
      () => call(server, 'GET', `${CALENDAR}/events`, { headers: { authorization: token.header } }),
      (answer) => assert.equal(answer.status, 200, answer.text),
    );
    await cli('tokens', 'revoke', '--id', String(token.id));
    await onBothWorkers(
      () => call(server, 'GET', `${CALENDAR}/events`, { headers: { authorization: token.header } }),
      (answer) => assert.equal(answer.status, 401, answer.text),
    );
  });

  it('a role changed with the CLI applies on every worker at once', async () => {
    const token = await tokenFor('ed');
    const create = () =>
      call(
        server,
        'POST',
        `${CALENDAR}/events`,
        jsonBody(
          token.header,
          calendarBody('events', 'By ed', { status: 'publish', start_date: inDays(20, 10), end_date: inDays(20, 11) }),
        ),
      );
    await onBothWorkers(create, (answer) => assert.equal(answer.status, 201, answer.text));
    await cli('users', 'role', '--username', 'ed', '--role', 'subscriber');
    await onBothWorkers(create, (answer) => assert.equal(answer.status, 403, answer.text));
  });

  it('failed logins count across workers: the lockout holds on both', async () => {
    const basic = (password: string) => ({ headers: { authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}` } });
    const pids = new Set<number>();
    for (let i = 0; i < 5; i++) {
      const answer = await call(server, 'GET', `${CALENDAR}/events`, basic(`wrong-${i}`));
      assert.equal(answer.status, 401, answer.text);
      pids.add(answer.pid);
    }
    assert.equal(pids.size, 2, 'the five failures were spread over both workers');
    // Five in all, though neither worker saw five: the right password is now refused by both.
    await onBothWorkers(
      () => call(server, 'GET', `${CALENDAR}/events`, basic(ADMIN_PASSWORD)),
      (answer) => {
        assert.equal(answer.status, 429, answer.text);
        assert.ok(Number(answer.headers['retry-after']) > 0);
      },
    );
  });

  it('a WS-Security PasswordDigest nonce accepted by one worker is refused by the other', async () => {
    const secret = (JSON.parse(await cli('soap', 'secret', '--username', 'ed', '--json')) as { secret: string }).secret;
    const soap = { 'content-type': 'text/xml; charset=utf-8', soapaction: '"pingOperation"' };
    const body = envelope({ header: securityHeader({ username: 'ed', password: secret, type: 'digest' }) });
    const first = await call(server, 'POST', '/soap/PingService', { headers: soap, body });
    assert.ok(first.status === 200 || first.status === 202, `${first.status} ${first.text}`);
    const replays: Answer[] = [];
    while (replays.length < 10 && !replays.some((answer) => answer.pid !== first.pid)) {
      const replay = await call(server, 'POST', '/soap/PingService', { headers: soap, body });
      assert.equal(replay.status, 500, replay.text);
      assert.match(replay.text, /<faultcode>wsse:FailedAuthentication<\/faultcode>/);
      replays.push(replay);
    }
    assert.ok(
      replays.some((answer) => answer.pid !== first.pid),
      'the other worker refused the replay',
    );
  });

  it('a worker killed with SIGKILL is replaced, and the server answers meanwhile', async () => {
    const victim = (await call(server, 'GET', '/healthz')).pid;
    const offset = server.output().length;
    process.kill(victim, 'SIGKILL');
    const exited = await waitFor('the primary to see the exit', () =>
      logLines(server.output().slice(offset)).find((line) => line.msg === 'worker exited; starting another' && line.worker === victim),
    );
    assert.equal(exited.signal, 'SIGKILL');
    for (let i = 0; i < 3; i++) {
      const answer = await call(server, 'GET', '/healthz');
      assert.equal(answer.status, 200);
      assert.notEqual(answer.pid, victim);
    }
    const replacement = await waitFor('a new worker', () =>
      logLines(server.output().slice(offset)).find((line) => line.msg === 'worker listening'),
    );
    const answers = await onBothWorkers(
      () => call(server, 'GET', '/healthz'),
      (answer) => assert.equal(answer.status, 200),
    );
    assert.ok(answers.some((answer) => answer.pid === replacement.worker));
  });

  it('SIGTERM on the primary lets a request in flight finish, stops every worker and exits 0', async () => {
    const workers = logLines(server.output())
      .filter((line) => line.msg === 'worker listening')
      .map((line) => line.worker as number);
    // A request whose body is still arriving when the signal comes is answered before the exit.
    const url = new URL(server.url);
    const inFlight = new Promise<number>((resolve, reject) => {
      const request = http.request(
        {
          host: url.hostname,
          port: url.port,
          method: 'POST',
          path: `${CALENDAR}/nope`,
          agent: false,
          headers: { 'content-type': 'application/json', 'content-length': '2' },
        },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        },
      );
      request.on('error', reject);
      request.write('{');
      setTimeout(() => {
        server.process.kill('SIGTERM');
        setTimeout(() => request.end('}'), 300);
      }, 300);
    });
    const exited = new Promise<number | null>((resolve) => server.process.once('exit', (code) => resolve(code)));
    assert.equal(await inFlight, 404);
    assert.equal(await exited, 0);
    for (const pid of workers) assert.equal(alive(pid), false, `worker ${pid} is gone`);
    assert.match(server.output(), /"role":"primary".*"msg":"all workers stopped"/);
  });

  it('rate limits are per process, as documented: each worker admits RATE_LIMIT_PER_MINUTE', async () => {
    const limit = 4;
    const limited = await startServerProcess({ ...env, RATE_LIMIT_PER_MINUTE: String(limit) }, () => undefined, ['--workers', '2']);
    started.push(limited);
    const admitted = new Map<number, number>();
    const served = new Map<number, number>();
    for (let i = 0; i < limit * 3; i++) {
      const answer = await call(limited, 'GET', `${CALENDAR}/events`);
      assert.equal(answer.headers['ratelimit-limit'], String(limit));
      assert.ok(answer.status === 200 || answer.status === 429, answer.text);
      served.set(answer.pid, (served.get(answer.pid) ?? 0) + 1);
      if (answer.status === 200) admitted.set(answer.pid, (admitted.get(answer.pid) ?? 0) + 1);
    }
    assert.equal(admitted.size, 2, 'both workers admitted requests');
    // Each admits its own limit and refuses the rest: together more than one limit, at most two.
    for (const [pid, count] of served) assert.equal(admitted.get(pid), Math.min(count, limit), `worker ${pid}: ${count} served`);
    const total = [...admitted.values()].reduce((sum, count) => sum + count, 0);
    assert.ok(total > limit && total <= 2 * limit, `${total} admitted in all`);
    assert.equal(await stopServerProcess(limited, 'SIGTERM'), 0);
  });

  it('takes WEB_CONCURRENCY without --workers, and prints a generated administrator password once', async () => {
    const fresh = await freshDatabase();
    drops.push(fresh.drop);
    const cluster = await startServerProcess({ ...env, DATABASE_URL: fresh.url, ADMIN_PASSWORD: '', WEB_CONCURRENCY: '2' });
    started.push(cluster);
    const output = await outputOnceBothListen(cluster);
    assert.equal(logLines(output).filter((line) => line.msg === 'worker listening').length, 2);
    const passwords = [...output.matchAll(/^admin password: (\S{16,})$/gm)].map((match) => match[1] as string);
    assert.equal(passwords.length, 1, output);
    const basic = { headers: { authorization: `Basic ${Buffer.from(`admin:${passwords[0]}`).toString('base64')}` } };
    await onBothWorkers(
      () => call(cluster, 'GET', `${CALENDAR}/events`, basic),
      (answer) => assert.equal(answer.status, 200, answer.text),
    );
    assert.equal(await stopServerProcess(cluster, 'SIGTERM'), 0);
  });

  it('refuses a number of workers outside 1–64, or several on sqlite::memory:, with one line and exit code 2', () => {
    for (const [args, extra, named] of [
      [['--workers', '0'], {}, '--workers'],
      [['--workers', '65'], {}, '--workers'],
      [['--workers', 'two'], {}, '--workers'],
      [[], { WEB_CONCURRENCY: '100' }, 'WEB_CONCURRENCY'],
      [['--workers', '2'], { DATABASE_URL: 'sqlite::memory:' }, '--workers'],
    ] as const) {
      const result = spawnSync(process.execPath, [BIN, 'serve', ...args], { cwd: ROOT, env: { ...env, ...extra }, encoding: 'utf8' });
      assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`^Invalid configuration: ${named} (must|needs) .*\n$`));
      assert.equal(result.stdout, '');
    }
  });

  it('stops with exit code 1 when its workers cannot start (the port is taken), rather than restarting them', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const result = await run(process.execPath, [BIN, 'serve', '--workers', '2'], { cwd: ROOT, env: { ...env, PORT: String(port) } }).then(
        () => ({ code: 0, stdout: '' }),
        (error: { code: number; stdout: string }) => error,
      );
      assert.equal(result.code, 1);
      assert.match(result.stdout, /"msg":"a worker failed to start"/);
      assert.doesNotMatch(result.stdout, /starting another/);
    } finally {
      taken.close();
    }
  });
});
