/**
 * Webhooks as an integration meets them (issue 24): an administrator
 * subscribes a real local receiver, changes the calendar, and the receiver
 * gets thin notifications signed per Standard Webhooks (verified with the
 * reference library and by hand), retried until it answers, in order per
 * item, never about what anonymous readers cannot see. Hostile subscribers
 * get refused: other roles, bad input, private addresses, redirects.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { blockedRangeOf } from '../../src/platform/http/outbound.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from './events.factories.ts';
import { makeVenue, NS } from './venues-organizers.factories.ts';
import { eventually, Receiver, signedBy, sleep, verifyWithReference, type Received } from './webhook.receiver.ts';

const WEBHOOKS = `${NS}/webhooks`;
const FAST = { WEBHOOK_POLL_MS: '40', WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_DISABLE_AFTER: '3' };

describe('webhooks', () => {
  let server: TestServer;
  let admin: Credentials;
  const receivers: Receiver[] = [];
  before(async () => {
    server = await startTestServer({ ...FAST, WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
    admin = await server.admin();
  });
  after(async () => {
    await server.close();
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });

  /** A receiver and a subscription to it, removed when the test ends. */
  const subscribe = async (t: { after: (fn: () => Promise<void>) => void }, body: Record<string, unknown> = {}) => {
    const receiver = await Receiver.start();
    receivers.push(receiver);
    const created = await server.request(WEBHOOKS, { method: 'POST', auth: admin, body: { url: receiver.url, ...body } });
    assert.equal(created.status, 201, created.text);
    t.after(async () => {
      await server.request(`${WEBHOOKS}/${created.body.id}`, { method: 'DELETE', auth: admin });
    });
    return { receiver, webhook: created.body };
  };
  const about = (receiver: Receiver, id: number) => receiver.received.filter((entry) => entry.body?.data?.id === id);
  const write = async (path: string, method: string, body?: unknown) => {
    const response = await server.request(path, { method, auth: admin, ...(body === undefined ? {} : { body }) });
    assert.ok(response.status < 300, response.text);
    return response.body;
  };
  const deliveries = async (webhookId: number) =>
    (await server.request(`${WEBHOOKS}/${webhookId}/deliveries?per_page=100`, { auth: admin })).body;

  it('is for administrators only, shows the secret once, and refuses what it cannot use', async () => {
    const editor = await server.createUser('editor');
    assert.equal((await server.request(WEBHOOKS)).status, 401);
    assert.equal((await server.request(WEBHOOKS, { auth: editor })).status, 403);
    const denied = await server.request(WEBHOOKS, { method: 'POST', auth: editor, body: { url: 'https://hooks.example.com/' } });
    assert.equal(denied.status, 403);

    const created = await server.request(WEBHOOKS, {
      method: 'POST',
      auth: admin,
      body: { url: 'https://hooks.example.com/almanac', events: ['event.created', 'venue.deleted'], description: 'Newsletter' },
    });
    assert.equal(created.status, 201, created.text);
    assert.match(created.body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(created.body.events, ['event.created', 'venue.deleted']);
    assert.equal(created.body.active, true);
    const item = `${WEBHOOKS}/${created.body.id}`;
    const read = await server.request(item, { auth: admin });
    assert.equal(read.body.secret, undefined, 'the secret is shown only when made');
    assert.equal(read.headers.get('cache-control'), 'private, no-store');
    const listed = await server.request(WEBHOOKS, { auth: admin });
    assert.ok(listed.body.some((webhook: any) => webhook.id === created.body.id && webhook.secret === undefined));
    assert.equal(listed.headers.get('x-wp-total'), String(listed.body.length));

    // PHP and jQuery clients send lists as brackets.
    const bracketed = await server.request(`${item}?events[0]=tag.created&events[1]=tag.updated`, { method: 'PUT', auth: admin });
    assert.equal(bracketed.status, 200, bracketed.text);
    assert.deepEqual(bracketed.body.events, ['tag.created', 'tag.updated']);
    const paused = await server.request(item, { method: 'PUT', auth: admin, body: { active: 'false' } });
    assert.equal(paused.body.active, false);
    assert.deepEqual(paused.body.events, ['tag.created', 'tag.updated'], 'fields not sent are kept');

    const bad: [Record<string, unknown>, string][] = [
      [{ url: 'ftp://hooks.example.com/' }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: 'http://hooks.example.com/' }, 'url'],
      [{ url: 'https://user:secret@hooks.example.com/' }, 'url'],
      [{ url: 'https://10.1.2.3/' }, 'url'],
      [{ url: 'https://hooks.example.com/', events: ['event.exploded'] }, 'events'],
      [{ url: 'https://hooks.example.com/', events: [] }, 'events'],
      [{ url: 'https://hooks.example.com/', active: 'maybe' }, 'active'],
      [{ events: '*' }, 'url'],
    ];
    for (const [body, param] of bad) {
      const response = await server.request(WEBHOOKS, { method: 'POST', auth: admin, body });
      assert.equal(response.status, 400, `${JSON.stringify(body)}: ${response.text}`);
      assert.ok(JSON.stringify(response.body).includes(param), `${JSON.stringify(body)} names ${param}: ${response.text}`);
    }
    const badUpdate = await server.request(item, {
      method: 'PUT',
      auth: admin,
      body: { url: 'https://169.254.169.254/latest/meta-data/' },
    });
    assert.equal(badUpdate.status, 400, badUpdate.text);
    assert.equal(
      (await server.request(item, { auth: admin })).body.url,
      'https://hooks.example.com/almanac',
      'a refused update changes nothing',
    );

    const gone = await server.request(item, { method: 'DELETE', auth: admin });
    assert.equal(gone.status, 200);
    assert.equal(gone.body.deleted, true);
    assert.equal(gone.body.previous.id, created.body.id);
    for (const [path, method] of [
      [item, 'GET'],
      [item, 'PUT'],
      [item, 'DELETE'],
      [`${item}/ping`, 'POST'],
      [`${item}/deliveries`, 'GET'],
      [`${item}/deliveries/1/replay`, 'POST'],
      [`${item}/rotate-secret`, 'POST'],
    ] as const) {
      const response = await server.request(path, { method, auth: admin, body: method === 'PUT' ? { active: true } : undefined });
      assert.equal(response.status, 404, `${method} ${path}: ${response.text}`);
      assert.equal(response.body.code, 'rest_webhook_invalid_id');
    }
  });

  it('announces what anonymous readers see, signed per Standard Webhooks, with a sync token to read it', async (t) => {
    const { receiver, webhook } = await subscribe(t);
    const draft = await makeEvent(server, admin, { status: 'draft', title: 'Secret draft' });
    await server.drain();
    assert.deepEqual(about(receiver, draft.id), [], 'a draft is not announced');

    await write(`${EVENTS}/${draft.id}`, 'POST', { status: 'publish' });
    await eventually(() => (about(receiver, draft.id).length === 1 ? true : undefined), 'the publication');
    await write(`${EVENTS}/${draft.id}`, 'POST', { title: 'Renamed' });
    await eventually(() => (about(receiver, draft.id).length === 2 ? true : undefined), 'the update');
    const trashed = await server.request(`${EVENTS}/${draft.id}`, { method: 'DELETE', auth: admin });
    assert.equal(trashed.status, 200, trashed.text);
    await eventually(() => (about(receiver, draft.id).length === 3 ? true : undefined), 'the removal');
    assert.deepEqual(
      about(receiver, draft.id).map((entry) => entry.body.type),
      ['event.created', 'event.updated', 'event.deleted'],
    );

    const entries = about(receiver, draft.id);
    for (const entry of entries) {
      assert.deepEqual(Object.keys(entry.body), ['type', 'timestamp', 'data']);
      assert.deepEqual(Object.keys(entry.body.data), ['id', 'type', 'sync_token']);
      assert.equal(entry.body.data.type, 'event');
      assert.match(entry.body.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.match(String(entry.headers['webhook-id']), /^msg_[0-9a-f]{32}$/);
      assert.ok(Math.abs(Number(entry.headers['webhook-timestamp']) - Date.now() / 1000) < 60);
      assert.equal(entry.headers['content-type'], 'application/json');
      assert.deepEqual(verifyWithReference(webhook.secret, entry), entry.body, 'the reference implementation verifies it');
      assert.ok(signedBy(webhook.secret, entry), 'HMAC-SHA256 of id.timestamp.body, as the specification says');
      assert.doesNotMatch(entry.text, /Secret draft|Renamed/, 'thin: no content');
    }
    assert.equal(new Set(entries.map((entry) => entry.headers['webhook-id'])).size, 3, 'one message id per notice');
    assert.throws(() => verifyWithReference(webhook.secret, { ...entries[0]!, text: entries[0]!.text.replace('created', 'updated') }));

    // The token reads the change it announces, and what came after.
    const created = entries[0]!;
    const sync = await server.request(`${NS}/changes?sync_token=${created.body.data.sync_token}`);
    assert.equal(sync.status, 200, sync.text);
    assert.ok(sync.body.changes.some((change: any) => change.type === 'event' && change.id === draft.id));

    // A protected event is announced by id only; its text and password never travel.
    const locked = await makeEvent(server, admin, { status: 'publish', title: 'Members night', password: 'letmein-42' });
    const [notice] = await eventually(() => (about(receiver, locked.id).length > 0 ? about(receiver, locked.id) : undefined), 'locked');
    assert.equal(notice!.body.type, 'event.created');
    assert.doesNotMatch(notice!.text, /Members night|letmein/);
  });

  it('sends only the events a subscription asked for', async (t) => {
    const { receiver } = await subscribe(t, { events: ['venue.created'] });
    const venue = await makeVenue(server, admin, { status: 'publish' });
    const event = await makeEvent(server, admin, { status: 'publish', venue: venue.id });
    await write(`${NS}/venues/${venue.id}`, 'POST', { venue: 'Renamed hall' });
    await eventually(() => (about(receiver, venue.id).length > 0 ? true : undefined), 'venue.created');
    await server.drain();
    assert.deepEqual(receiver.events(), [`venue.created ${venue.id}`], `not the event ${event.id} nor the venue's update`);
  });

  it('retries a failing receiver with backoff until it answers, then delivers exactly once', async (t) => {
    const { receiver, webhook } = await subscribe(t);
    receiver.script.push(500, { status: 503, headers: { 'retry-after': '1' } });
    const event = await makeEvent(server, admin, { status: 'publish' });
    await eventually(() => (about(receiver, event.id).length >= 3 ? true : undefined), 'three attempts');
    await server.drain();
    const attempts = about(receiver, event.id);
    assert.deepEqual(
      attempts.map((entry) => entry.status),
      [500, 503, 200],
    );
    assert.equal(new Set(attempts.map((entry) => entry.headers['webhook-id'])).size, 1, 'every attempt is the same message');
    assert.ok(attempts[2]!.at - attempts[1]!.at >= 50 && attempts[1]!.at - attempts[0]!.at >= 25, 'it waited between attempts');
    const delivery = (await deliveries(webhook.id)).find((entry: any) => entry.item?.id === event.id);
    assert.equal(delivery.status, 'succeeded');
    assert.equal(delivery.attempts, 3);
    assert.equal(delivery.response_status, 200);
    assert.equal(delivery.next_attempt, null);
    assert.equal(typeof delivery.response_time_ms, 'number');
    assert.equal((await server.request(`${WEBHOOKS}/${webhook.id}`, { auth: admin })).body.failure_count, 0, 'a success ends the streak');
  });

  it("delivers an item's changes in order, even when the first must be retried", async (t) => {
    const { receiver } = await subscribe(t);
    receiver.script.push(500, 500);
    const event = await makeEvent(server, admin, { status: 'publish' });
    await eventually(() => (about(receiver, event.id).length >= 1 ? true : undefined), 'first attempt');
    await write(`${EVENTS}/${event.id}`, 'POST', { title: 'Changed while the receiver was failing' });
    await eventually(() => (about(receiver, event.id).filter((entry) => entry.status === 200).length === 2 ? true : undefined), 'both');
    assert.deepEqual(
      about(receiver, event.id).map((entry) => `${entry.body.type} ${entry.status}`),
      ['event.created 500', 'event.created 500', 'event.created 200', 'event.updated 200'],
    );
  });

  it('keeps delivering to others while one receiver hangs', async (t) => {
    const slow = await subscribe(t);
    slow.receiver.otherwise = 'hang';
    // Not held until the timeout after the test: the next tests wait for the attempts under way.
    t.after(() => slow.receiver.release());
    const fast = await subscribe(t);
    const first = await makeEvent(server, admin, { status: 'publish' });
    await eventually(
      () => (about(fast.receiver, first.id).length > 0 && about(slow.receiver, first.id).length > 0 ? true : undefined),
      'both',
    );
    // The slow receiver holds its request until the timeout (2 s): the next change still reaches the other at once.
    const createdAt = Date.now();
    const second = await makeEvent(server, admin, { status: 'publish' });
    const [entry] = await eventually(
      () => (about(fast.receiver, second.id).length > 0 ? about(fast.receiver, second.id) : undefined),
      'next',
    );
    assert.ok(entry!.at - createdAt < 1500, `delivered after ${entry!.at - createdAt} ms`);
  });

  it('is disabled by a 410, or after failures in a row, with the reason shown; enabling it again resumes', async (t) => {
    const gone = await subscribe(t);
    gone.receiver.otherwise = 410;
    const first = await makeEvent(server, admin, { status: 'publish' });
    const disabledOf = (id: number, why: string) =>
      eventually(async () => {
        const read = (await server.request(`${WEBHOOKS}/${id}`, { auth: admin })).body;
        return read.active ? undefined : read;
      }, why);
    const disabled = await disabledOf(gone.webhook.id, 'disabled by 410');
    assert.match(disabled.disabled_reason, /410/);
    assert.equal(about(gone.receiver, first.id).length, 1, 'a 410 is not retried');
    await server.request(`${WEBHOOKS}/${gone.webhook.id}`, { method: 'DELETE', auth: admin });

    const failing = await subscribe(t);
    failing.receiver.otherwise = 500;
    const second = await makeEvent(server, admin, { status: 'publish' });
    const stopped = await disabledOf(failing.webhook.id, 'disabled after 3 failures');
    assert.match(stopped.disabled_reason, /^3 failed attempts in a row; the last at .*: status 500/);
    assert.equal(stopped.failure_count, 3);
    const pendingOf = async () => (await deliveries(failing.webhook.id)).find((entry: any) => entry.item?.id === second.id);
    // Past the time its retry would have been made, had the subscription stayed active.
    await sleep(Date.parse((await pendingOf()).next_attempt) - Date.now());
    await server.drain();
    assert.equal(about(failing.receiver, second.id).length, 3, 'nothing is sent while disabled');
    const pending = await pendingOf();
    assert.equal(pending.status, 'pending', 'kept for when it is enabled again');

    failing.receiver.otherwise = 200;
    const enabled = await server.request(`${WEBHOOKS}/${failing.webhook.id}`, { method: 'PUT', auth: admin, body: { active: true } });
    assert.equal(enabled.body.active, true);
    assert.equal(enabled.body.disabled_reason, null);
    assert.equal(enabled.body.failure_count, 0);
    await eventually(() => (about(failing.receiver, second.id).some((entry) => entry.status === 200) ? true : undefined), 'resumed');
  });

  it('rotates the secret with an overlap in which both sign', async (t) => {
    const { receiver, webhook } = await subscribe(t);
    const rotated = await server.request(`${WEBHOOKS}/${webhook.id}/rotate-secret`, {
      method: 'POST',
      auth: admin,
      body: { overlap: 3600 },
    });
    assert.equal(rotated.status, 200, rotated.text);
    assert.match(rotated.body.secret, /^whsec_/);
    assert.notEqual(rotated.body.secret, webhook.secret);
    assert.ok(Date.parse(rotated.body.previous_secret_expires) > Date.now() + 3_500_000);
    const during = await makeEvent(server, admin, { status: 'publish' });
    const [overlapping] = await eventually(
      () => (about(receiver, during.id).length > 0 ? about(receiver, during.id) : undefined),
      'during',
    );
    assert.equal(String(overlapping!.headers['webhook-signature']).split(' ').length, 2);
    assert.ok(signedBy(rotated.body.secret, overlapping!) && signedBy(webhook.secret, overlapping!));
    verifyWithReference(rotated.body.secret, overlapping!);
    verifyWithReference(webhook.secret, overlapping!);

    const again = await server.request(`${WEBHOOKS}/${webhook.id}/rotate-secret`, { method: 'POST', auth: admin, body: { overlap: 0 } });
    assert.equal(again.body.previous_secret_expires, null);
    const afterwards = await makeEvent(server, admin, { status: 'publish' });
    const [single] = await eventually(
      () => (about(receiver, afterwards.id).length > 0 ? about(receiver, afterwards.id) : undefined),
      'after',
    );
    assert.equal(String(single!.headers['webhook-signature']).split(' ').length, 1);
    verifyWithReference(again.body.secret, single!);
    assert.throws(() => verifyWithReference(rotated.body.secret, single!), 'the old secret no longer signs');
    const bad = await server.request(`${WEBHOOKS}/${webhook.id}/rotate-secret`, { method: 'POST', auth: admin, body: { overlap: -1 } });
    assert.equal(bad.status, 400);
  });

  it('replays a delivery as the same message, and pings on demand without retrying', async (t) => {
    const { receiver, webhook } = await subscribe(t);
    const event = await makeEvent(server, admin, { status: 'publish' });
    const [original] = await eventually(() => (about(receiver, event.id).length > 0 ? about(receiver, event.id) : undefined), 'sent');
    const delivery = (await deliveries(webhook.id)).find((entry: any) => entry.item?.id === event.id);
    const replay = await server.request(`${WEBHOOKS}/${webhook.id}/deliveries/${delivery.id}/replay`, { method: 'POST', auth: admin });
    assert.equal(replay.status, 202, replay.text);
    assert.equal(replay.body.message_id, delivery.message_id);
    assert.notEqual(replay.body.id, delivery.id);
    const [, replayed] = await eventually(() => (about(receiver, event.id).length > 1 ? about(receiver, event.id) : undefined), 'replayed');
    assert.equal(replayed!.headers['webhook-id'], original!.headers['webhook-id']);
    assert.equal(replayed!.text, original!.text);
    const unknown = await server.request(`${WEBHOOKS}/${webhook.id}/deliveries/999999/replay`, { method: 'POST', auth: admin });
    assert.equal(unknown.status, 404);

    const ping = await server.request(`${WEBHOOKS}/${webhook.id}/ping`, { method: 'POST', auth: admin });
    assert.equal(ping.status, 200, ping.text);
    assert.equal(ping.body.event, 'webhook.ping');
    assert.equal(ping.body.status, 'succeeded');
    assert.equal(ping.body.response_status, 200);
    assert.ok(receiver.received.some((entry: Received) => entry.body?.type === 'webhook.ping' && signedBy(webhook.secret, entry)));
    receiver.otherwise = 500;
    const failed = await server.request(`${WEBHOOKS}/${webhook.id}/ping`, { method: 'POST', auth: admin });
    assert.equal(failed.body.status, 'failed');
    assert.equal(failed.body.response_status, 500);
    const count = receiver.received.length;
    // Past the first retry's wait (at most WEBHOOK_RETRY_BASE_MS), had it been one.
    await sleep(Number(FAST.WEBHOOK_RETRY_BASE_MS));
    await server.drain();
    assert.equal(receiver.received.length, count, 'a ping is not retried');
    assert.equal((await server.request(`${WEBHOOKS}/${webhook.id}`, { auth: admin })).body.active, true);
  });

  it('does not follow redirects', async (t) => {
    const { receiver, webhook } = await subscribe(t);
    const elsewhere = await Receiver.start();
    receivers.push(elsewhere);
    receiver.otherwise = { status: 302, headers: { location: elsewhere.url } };
    const ping = await server.request(`${WEBHOOKS}/${webhook.id}/ping`, { method: 'POST', auth: admin });
    assert.equal(ping.body.status, 'failed');
    assert.equal(ping.body.response_status, 302);
    assert.match(ping.body.error, /redirect/i);
    assert.equal(elsewhere.received.length, 0);
  });
});

describe('webhooks refuse private addresses unless allowed', () => {
  let server: TestServer;
  let admin: Credentials;
  let receiver: Receiver;
  before(async () => {
    server = await startTestServer(FAST);
    admin = await server.admin();
    receiver = await Receiver.start();
  });
  after(async () => {
    await server.close();
    await receiver.close();
  });

  it('refuses private, loopback and link-local targets when made, and names resolving to them when connecting', async () => {
    const port = new URL(receiver.url).port;
    for (const url of [
      receiver.url,
      `https://127.0.0.1:${port}/hook`,
      `https://[::1]:${port}/hook`,
      `https://[::ffff:127.0.0.1]:${port}/hook`,
      'https://169.254.169.254/latest/meta-data/',
      'https://10.0.0.1/',
      'https://192.168.1.1/',
      'https://0.0.0.0/',
      'https://2130706433/',
      'https://0x7f.1/',
      'https://[fd00::1]/',
    ]) {
      const response = await server.request(WEBHOOKS, { method: 'POST', auth: admin, body: { url } });
      assert.equal(response.status, 400, `${url}: ${response.text}`);
      assert.ok(response.body.data.params.url, url);
    }
    const local = await server.request(WEBHOOKS, { method: 'POST', auth: admin, body: { url: `https://localhost:${port}/hook` } });
    assert.equal(local.status, 400, 'localhost is loopback by name (RFC 6761)');
  });

  it('checks where a host name resolves when it connects, every time (DNS rebinding gains nothing)', async (t) => {
    // This machine's own name resolves to a private or loopback address (/etc/hosts): nothing at create time says so.
    const name = hostname().toLowerCase();
    const { address } = await lookup(name);
    if (blockedRangeOf(address) === undefined) return t.skip(`${name} resolves to the public address ${address} here`);
    const port = new URL(receiver.url).port;
    const named = await server.request(WEBHOOKS, { method: 'POST', auth: admin, body: { url: `https://${name}:${port}/hook` } });
    assert.equal(named.status, 201, named.text);
    const ping = await server.request(`${WEBHOOKS}/${named.body.id}/ping`, { method: 'POST', auth: admin });
    assert.equal(ping.body.status, 'failed');
    assert.equal(ping.body.response_status, null);
    assert.ok(ping.body.error.startsWith(`refused: ${name} resolves to ${address}`), ping.body.error);
    await makeEvent(server, admin, { status: 'publish' });
    await server.drain();
    assert.equal(receiver.received.length, 0, 'nothing reached the private address');
    const logged = (await server.request(`${WEBHOOKS}/${named.body.id}/deliveries`, { auth: admin })).body;
    assert.ok(
      logged.some((entry: any) => entry.event === 'event.created' && /refused/.test(entry.error ?? '')),
      JSON.stringify(logged),
    );
  });
});
