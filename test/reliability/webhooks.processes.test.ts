/**
 * Webhooks across server processes (issue 24), as operators run them: each
 * `almanac serve` has a delivery worker, and they share one database. A
 * process killed while a receiver holds its request loses nothing: after a
 * restart the attempt is made again. Two processes share the deliveries and
 * never make the same attempt twice. A process with WEBHOOK_DELIVERY off
 * delivers nothing; another delivers what it recorded.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { freshDatabase } from '../helpers/server.ts';
import { Receiver, verifyWithReference } from '../calendar/webhook.receiver.ts';
import { send } from './support/client.ts';
import { bearerFor, startServerProcess, stopServerProcess, type ServerProcess } from './support/server-process.ts';

const NS = '/calendar/events/v1';
const database = await freshDatabase();
const env = {
  ...process.env,
  LOG_LEVEL: 'info',
  HOST: '127.0.0.1',
  PORT: '0',
  DATABASE_URL: database.url,
  ADMIN_USER: 'admin',
  ADMIN_PASSWORD: `hooks-${randomBytes(6).toString('hex')}`,
  WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
  WEBHOOK_POLL_MS: '30',
  WEBHOOK_RETRY_BASE_MS: '100',
  // A claimed attempt's lease is twice the timeout and a second: 5 s.
  WEBHOOK_TIMEOUT_MS: '2000',
};
const where = database.url.startsWith('sqlite:') ? 'SQLite' : 'PostgreSQL';

async function call(server: ServerProcess, auth: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await send({
    method,
    url: `${server.url}${path}`,
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${response.text}`);
  return response.json;
}

describe(`webhooks across processes on ${where}`, () => {
  const running = new Set<ServerProcess>();
  const receivers: Receiver[] = [];
  const start = async (extra: Record<string, string> = {}) => {
    const server = await startServerProcess({ ...env, ...extra });
    running.add(server);
    return server;
  };
  const stop = async (server: ServerProcess, signal: NodeJS.Signals) => {
    running.delete(server);
    return stopServerProcess(server, signal);
  };
  after(async () => {
    await Promise.all([...running].map((server) => stopServerProcess(server, 'SIGKILL')));
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await database.drop();
  });

  it('makes again, after a restart, the attempt a killed process was making', async () => {
    const receiver = await Receiver.start();
    receivers.push(receiver);
    receiver.script.push('hang');
    const first = await start();
    const auth = bearerFor(env, 'admin');
    const webhook = await call(first, auth, 'POST', `${NS}/webhooks`, { url: receiver.url });
    const event = await call(first, auth, 'POST', `${NS}/events`, {
      title: 'Survives a crash',
      status: 'publish',
      start_date: '2030-01-01 10:00:00',
      end_date: '2030-01-01 11:00:00',
    });
    await receiver.waitFor(1);
    assert.equal(await stop(first, 'SIGKILL'), null, 'killed while the receiver held the request');

    const second = await start();
    const [held, again] = await receiver.waitFor(2, 30_000);
    assert.equal(again!.headers['webhook-id'], held!.headers['webhook-id'], 'the same message');
    assert.equal(again!.body.data.id, event.id);
    assert.equal(again!.body.type, 'event.created');
    verifyWithReference(webhook.secret, again!);
    const [delivery] = await call(second, auth, 'GET', `${NS}/webhooks/${webhook.id}/deliveries`);
    assert.equal(delivery.status, 'succeeded');
    assert.equal(delivery.attempts, 2, 'the lost attempt counts');
    await call(second, auth, 'DELETE', `${NS}/webhooks/${webhook.id}`);
    assert.equal(await stop(second, 'SIGTERM'), 0, second.output());
  });

  it('shares deliveries between two processes, each attempt made once', async () => {
    const receiver = await Receiver.start();
    receivers.push(receiver);
    // Every message fails once, then succeeds: two attempts each, which either process may make.
    const seen = new Set<string>();
    receiver.decide = (entry) => {
      const id = String(entry.headers['webhook-id']);
      if (seen.has(id)) return 200;
      seen.add(id);
      return 500;
    };
    const [a, b] = [await start(), await start()];
    const auth = bearerFor(env, 'admin');
    const webhook = await call(a, auth, 'POST', `${NS}/webhooks`, { url: receiver.url, events: ['event.created'] });
    const EVENTS = 60;
    const created = await Promise.all(
      Array.from({ length: EVENTS }, (_, i) =>
        call(i % 2 === 0 ? a : b, auth, 'POST', `${NS}/events`, {
          title: `Shared ${i}`,
          status: 'publish',
          start_date: '2030-02-01 10:00:00',
          end_date: '2030-02-01 11:00:00',
        }),
      ),
    );
    await receiver.waitFor(2 * EVENTS, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const byMessage = new Map<string, number[]>();
    for (const entry of receiver.received) {
      const id = String(entry.headers['webhook-id']);
      byMessage.set(id, [...(byMessage.get(id) ?? []), entry.status]);
    }
    assert.equal(byMessage.size, EVENTS, 'one message per event');
    for (const [id, statuses] of byMessage) assert.deepEqual(statuses, [500, 200], `${id}: each attempt once`);
    assert.deepEqual(
      [...new Set(receiver.received.map((entry) => entry.body.data.id as number))].sort((x, y) => x - y),
      created.map((event) => event.id as number).sort((x, y) => x - y),
    );
    const attempts = (server: ServerProcess) => (server.output().match(/"msg":"webhook (delivered|attempt failed)"/g) ?? []).length;
    assert.equal(attempts(a) + attempts(b), 2 * EVENTS, 'every attempt is logged by the process that made it');
    assert.ok(attempts(a) > 0 && attempts(b) > 0, `both processes delivered (${attempts(a)} and ${attempts(b)})`);
    const log = await call(b, auth, 'GET', `${NS}/webhooks/${webhook.id}/deliveries?per_page=100&status=succeeded`);
    assert.equal(log.length, EVENTS);
    assert.ok(log.every((delivery: any) => delivery.attempts === 2));
    console.log(`webhooks: ${EVENTS} messages, ${2 * EVENTS} attempts, ${attempts(a)} by one process and ${attempts(b)} by the other`);
    await Promise.all([stop(a, 'SIGTERM'), stop(b, 'SIGTERM')]);
  });

  it('delivers nothing from a process with WEBHOOK_DELIVERY off; a delivering process sends what it recorded', async () => {
    const receiver = await Receiver.start();
    receivers.push(receiver);
    const quiet = await start({ WEBHOOK_DELIVERY: 'false' });
    const auth = bearerFor(env, 'admin');
    const webhook = await call(quiet, auth, 'POST', `${NS}/webhooks`, { url: receiver.url, events: ['event.created'] });
    const event = await call(quiet, auth, 'POST', `${NS}/events`, {
      title: 'Recorded here, delivered there',
      status: 'publish',
      start_date: '2030-03-01 10:00:00',
      end_date: '2030-03-01 11:00:00',
    });
    // Thirty of the other processes' polls.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.equal(receiver.received.length, 0, 'nothing sent while no process delivers');
    assert.deepEqual(await call(quiet, auth, 'GET', `${NS}/webhooks/${webhook.id}/deliveries`), [], 'nothing dispatched either');

    const delivering = await start();
    const [entry] = await receiver.waitFor(1, 30_000);
    assert.equal(entry!.body.data.id, event.id);
    verifyWithReference(webhook.secret, entry!);
    assert.doesNotMatch(quiet.output(), /"msg":"webhook (delivered|attempt failed)"/);
    await stop(delivering, 'SIGTERM');
    await stop(quiet, 'SIGTERM');
  });
});
