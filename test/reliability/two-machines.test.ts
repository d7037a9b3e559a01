/**
 * Two machines of one deployment, as a load balancer sees them: two `almanac serve` processes, each with a
 * `BASE_URL` of its own, on one database (PostgreSQL with TEST_DATABASE_URL, directly or through PgBouncer in
 * transaction pooling as CI runs it; else one SQLite file both open). A write through one is read through the
 * other at once, whatever either has cached; an editor's session and an API token made on one are honoured, and
 * ended, on both; a webhook subscribed on one is delivered once per message although both run the deliverer.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Browser } from '../admin/admin.helper.ts';
import { Receiver } from '../calendar/webhook.receiver.ts';
import { freePort, freshMigratedDatabase } from '../helpers/server.ts';
import { send, type RawResponse } from './support/client.ts';
import { bearerFor, startServerProcess, stopServerProcess, type ServerProcess } from './support/server-process.ts';

const NS = '/calendar/events/v1';
const database = await freshMigratedDatabase();
const ADMIN_PASSWORD = `two-machines-${randomBytes(6).toString('hex')}`;
const env = {
  ...process.env,
  LOG_LEVEL: 'info',
  HOST: '127.0.0.1',
  DATABASE_URL: database.url,
  ADMIN_USER: 'admin',
  ADMIN_PASSWORD,
  // Both caches on, as in production: what either process keeps must never hide the other's writes.
  RESPONSE_CACHE_MB: '8',
  EVENT_CACHE_MB: '8',
  MEDIA_SIDELOAD: 'false',
  WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
  WEBHOOK_POLL_MS: '30',
};
const where = database.url.startsWith('sqlite:') ? 'one SQLite file' : `one PostgreSQL reached at port ${new URL(database.url).port}`;

/** A date-time `days` from now in the calendar's write format. */
function inDays(days: number, hour: number): string {
  return `${new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)} ${String(hour).padStart(2, '0')}:00:00`;
}

describe(`two machines with their own BASE_URL on ${where}`, () => {
  const machines: { server: ServerProcess; baseUrl: string }[] = [];
  let a: ServerProcess;
  let b: ServerProcess;
  let admin: string;

  before(async () => {
    // Started at once, as a rollout does: one creates the first administrator, the other finds it.
    await Promise.all(
      ['http://a.example', 'http://b.example'].map(async (baseUrl) => {
        const port = await freePort();
        const server = await startServerProcess({ ...env, PORT: String(port), BASE_URL: baseUrl });
        machines.push({ server, baseUrl });
      }),
    );
    machines.sort((x, y) => x.baseUrl.localeCompare(y.baseUrl));
    [a, b] = machines.map((machine) => machine.server) as [ServerProcess, ServerProcess];
    admin = bearerFor(env, 'admin');
  });
  after(async () => {
    const codes = await Promise.all(machines.map(({ server }) => stopServerProcess(server, 'SIGTERM')));
    await database.drop();
    assert.deepEqual(codes, [0, 0], 'both stopped cleanly');
  });

  const call = async (server: ServerProcess, method: string, path: string, options: { auth?: string; body?: unknown } = {}) => {
    const headers: Record<string, string> = options.auth === undefined ? {} : { authorization: options.auth };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await send({ method, url: `${server.url}${path}`, headers, body: JSON.stringify(options.body) });
    assert.ok(response.status < 500, `${method} ${path}: ${response.status} ${response.text}`);
    return response;
  };
  const write = async (server: ServerProcess, method: string, path: string, body: unknown): Promise<any> => {
    const response = await call(server, method, path, { auth: admin, body });
    assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${response.text}`);
    return response.json;
  };

  it('each names its own BASE_URL in its links, on the one database', async () => {
    for (const { server, baseUrl } of machines) {
      const index = await call(server, 'GET', '/');
      assert.equal((index.json as { url: string }).url, baseUrl);
      assert.equal(index.headers.get('link'), `<${baseUrl}/>; rel="https://api.w.org/"`);
    }
    const made = await write(a, 'POST', `${NS}/events`, {
      title: 'Linked',
      status: 'publish',
      start_date: inDays(5, 9),
      end_date: inDays(5, 10),
    });
    const onB = await call(b, 'GET', `${NS}/events/${made.id}`);
    assert.equal((onB.json as { url: string }).url, made.url.replace('http://a.example', 'http://b.example'));
    await write(b, 'DELETE', `${NS}/events/${made.id}?force=true`, undefined);
  });

  it('a write through A is in the next read through B of what B cached: item, list and total, page, feed, /changes', async () => {
    const start = await call(b, 'GET', `${NS}/changes`);
    const syncToken = (start.json as { next_sync_token: string }).next_sync_token;
    const created = await write(a, 'POST', `${NS}/events`, {
      title: 'Before',
      status: 'publish',
      start_date: inDays(10, 10),
      end_date: inDays(10, 12),
    });
    const reads: Record<string, [string, (answer: RawResponse) => string | number | undefined]> = {
      item: [`${NS}/events/${created.id}`, (answer) => (answer.json as { title: string }).title],
      list: [
        `${NS}/events?per_page=50`,
        (answer) => (answer.json as { events: { id: number; title: string }[] }).events.find((event) => event.id === created.id)?.title,
      ],
      total: [`${NS}/events?per_page=1`, (answer) => Number(answer.headers.get('x-wp-total'))],
      page: [`/event/${created.slug}`, (answer) => /<h1[^>]*>([^<]*)</.exec(answer.text)?.[1]],
      feed: [`${NS}/events.ics`, (answer) => /^SUMMARY[^:\r\n]*:(Before|After)\r?$/m.exec(answer.text)?.[1]],
      changes: [
        `${NS}/changes?sync_token=${syncToken}`,
        (answer) =>
          (answer.json as { changes: { key?: string; item: { id: number; title: string } }[] }).changes.find(
            (change) => change.item.id === created.id,
          )?.item.title,
      ],
    };
    /** What B answers, each read twice so that the second answer can come from its caches. */
    const readThroughB = async () => {
      const seen: Record<string, string | number | undefined> = {};
      for (const [name, [path, pick]] of Object.entries(reads)) {
        for (let round = 0; round < 2; round++) {
          const answer = await call(b, 'GET', path);
          assert.equal(answer.status, 200, `${name}: ${answer.text}`);
          const value = pick(answer);
          if (round === 1) assert.equal(value, seen[name], `${name}: the cached answer is the first one`);
          seen[name] = value;
        }
      }
      return seen;
    };
    const before = await readThroughB();
    assert.deepEqual(
      { ...before, total: undefined },
      { item: 'Before', list: 'Before', total: undefined, page: 'Before', feed: 'Before', changes: 'Before' },
    );

    await write(a, 'POST', `${NS}/events/${created.id}`, { title: 'After' });
    const more = await write(a, 'POST', `${NS}/events`, {
      title: 'One more',
      status: 'publish',
      start_date: inDays(11, 10),
      end_date: inDays(11, 11),
    });
    const after = await readThroughB();
    assert.deepEqual(after, {
      item: 'After',
      list: 'After',
      total: Number(before.total) + 1,
      page: 'After',
      feed: 'After',
      changes: 'After',
    });
    for (const id of [created.id, more.id]) await write(a, 'DELETE', `${NS}/events/${id}?force=true`, undefined);
  });

  it('an editor session made on A works on B, and a logout on A ends it on B', async () => {
    const onA = new Browser(a.url);
    const csrf = await onA.logIn('admin', ADMIN_PASSWORD);
    const onB = new Browser(b.url);
    for (const [name, value] of onA.cookies) onB.cookies.set(name, value);
    const dashboard = await onB.get('/admin/');
    assert.equal(dashboard.status, 200, dashboard.text);
    assert.match(dashboard.text, /admin/);
    assert.equal((await onA.post('/admin/logout', { csrf })).status, 303);
    const ended = await onB.get('/admin/');
    assert.equal(ended.status, 303, 'signed out on B too');
    assert.match(ended.headers.get('location') ?? '', /\/admin\/login/);
  });

  it('an API token made on A is taken by B, and refused by B once revoked on A', async () => {
    const onA = new Browser(a.url);
    const csrf = await onA.logIn('admin', ADMIN_PASSWORD);
    const id = /href="\/admin\/users\/(\d+)\/edit">admin</.exec((await onA.get('/admin/users/')).text)?.[1];
    assert.ok(id !== undefined, 'the administrator is listed');
    const created = await onA.post(`/admin/users/${id}/tokens`, { csrf, name: 'machine-b' });
    assert.equal(created.status, 200, created.text);
    const token = /<code class="secret">([^<]+)<\/code>/.exec(created.text)?.[1];
    assert.ok(token !== undefined, 'the new token is shown');
    const settings = async () => (await call(b, 'GET', '/wp/v2/settings', { auth: `Bearer ${token}` })).status;
    // Twice: the second request finds the token's owner in B's cache.
    assert.deepEqual([await settings(), await settings()], [200, 200]);
    const edit = await onA.get(`/admin/users/${id}/edit`);
    const revoke = /action="([^"]+\/revoke)"><input[^>]*><button[^>]*aria-label="Revoke: machine-b"/.exec(edit.text)?.[1];
    assert.ok(revoke !== undefined, 'the token has a revoke button');
    assert.equal((await onA.post(revoke, { csrf })).status, 303);
    assert.equal(await settings(), 401, 'refused on B at once');
  });

  it('a webhook subscribed on A gets each message of writes through B exactly once, though both processes deliver', async () => {
    const receiver = await Receiver.start();
    try {
      const webhook = await write(a, 'POST', `${NS}/webhooks`, { url: receiver.url, events: ['event.created', 'event.updated'] });
      const ids: number[] = [];
      for (let i = 0; i < 6; i++) {
        const event = await write(b, 'POST', `${NS}/events`, {
          title: `Hooked ${i}`,
          status: 'publish',
          start_date: inDays(20, 10),
          end_date: inDays(20, 11),
        });
        ids.push(event.id);
      }
      // Changes to an item not yet dispatched are one notice: the updates come once the creations are out.
      await receiver.waitFor(ids.length, 30_000);
      for (const [i, id] of ids.entries()) await write(b, 'POST', `${NS}/events/${id}`, { title: `Hooked ${i}, renamed` });
      await receiver.waitFor(2 * ids.length, 30_000);
      // Many polls of both processes later, nothing more arrives.
      await new Promise((resolve) => setTimeout(resolve, 600));
      const messages = receiver.received.map((entry) => `${entry.body.type} ${entry.body.data.id}`).sort();
      const expected = ids.flatMap((id) => [`event.created ${id}`, `event.updated ${id}`]).sort();
      assert.deepEqual(messages, expected, 'each message once');
      assert.equal(new Set(receiver.received.map((entry) => entry.headers['webhook-id'])).size, expected.length);
      const delivered = (server: ServerProcess) => (server.output().match(/"msg":"webhook delivered"/g) ?? []).length;
      assert.equal(delivered(a) + delivered(b), expected.length, 'each delivery logged by the one process that made it');
      await write(a, 'DELETE', `${NS}/webhooks/${webhook.id}`, undefined);
    } finally {
      await receiver.close();
    }
  });
});
