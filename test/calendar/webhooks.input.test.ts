/**
 * Webhooks against hostile and malformed input (issue 24): wrongly typed
 * and out-of-range arguments, form-encoded and query-string writes as
 * WordPress clients send them, callers who are not administrators, and
 * receivers that answer badly. Each bad request is a 4xx naming the problem
 * that changes nothing; none is a 500. Secrets are shown once and nowhere
 * else.
 */
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from './events.factories.ts';
import { NS } from './venues-organizers.factories.ts';
import { eventually, Receiver, signedBy, verifyWithReference } from './webhook.receiver.ts';

const WEBHOOKS = `${NS}/webhooks`;
const TIMEOUT_MS = 1500;
const FAST = { WEBHOOK_POLL_MS: '40', WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_DISABLE_AFTER: '3' };

/** A receiver speaking raw TCP: `answer` gets the socket once the request's first bytes are in. */
async function rawReceiver(answer: (socket: Socket) => void): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('data', () => answer(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('webhooks under hostile input', () => {
  let server: TestServer;
  let admin: Credentials;
  let receiver: Receiver;
  before(async () => {
    server = await startTestServer({ ...FAST, WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
    admin = await server.admin();
    receiver = await Receiver.start();
  });
  after(async () => {
    await server.close();
    await receiver.close();
  });

  const db = () => server.server.store.db;
  /** Everything stored about webhooks, to show a refused request changed nothing. */
  const snapshot = async () => ({
    webhooks: await db().selectFrom('calendar_webhooks').selectAll().orderBy('id').execute(),
    deliveries: await db().selectFrom('calendar_webhook_deliveries').selectAll().orderBy('id').execute(),
  });
  const create = async (body: Record<string, unknown> = {}) => {
    const created = await server.request(WEBHOOKS, { method: 'POST', auth: admin, body: { url: receiver.url, active: false, ...body } });
    assert.equal(created.status, 201, created.text);
    return created.body;
  };
  /** Asserts a 400 whose `params` name `param`. */
  const refused = (response: { status: number; text: string; body: any }, param: string, what: string) => {
    assert.equal(response.status, 400, `${what}: ${response.text}`);
    assert.equal(response.body.code, 'rest_invalid_param', what);
    assert.ok(Object.keys(response.body.data.params).includes(param), `${what} names ${param}: ${response.text}`);
  };

  it('refuses wrongly typed and malformed subscriptions with a 400 naming the argument, storing nothing', async () => {
    const existing = await create({ description: 'kept' });
    const before = await snapshot();
    const json: [unknown, string][] = [
      [{ url: 5 }, 'url'],
      [{ url: ['https://hooks.example.com/'] }, 'url'],
      [{ url: { href: 'https://hooks.example.com/' } }, 'url'],
      [{ url: null }, 'url'],
      [{ url: '' }, 'url'],
      [{ url: `https://hooks.example.com/${'a'.repeat(10_000)}` }, 'url'],
      [{ url: 'https://hooks.example.com/\u0000' }, 'url'],
      [{ url: 'https://hooks.exa\u0000mple.com/' }, 'url'],
      [{ url: 'https://hooks.example.com/a b' }, 'url'],
      [{ url: 'https://hooks.example.com/\tx\n' }, 'url'],
      [{ url: ' https://hooks.example.com/' }, 'url'],
      [{ url: 'https://hooks.example.com/#fragment' }, 'url'],
      [{ url: 'https://hooks.example.com:99999/' }, 'url'],
      [{ url: 'javascript:alert(1)' }, 'url'],
      [{ url: '//hooks.example.com/' }, 'url'],
      // IDNA maps these to loopback and private names and addresses before anything connects.
      [{ url: 'https://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/' }, 'url'],
      [{ url: 'https://１０.０.０.１/' }, 'url'],
      [{ url: 'https://10.1/' }, 'url'],
      [{ url: 'https://[::ffff:a9fe:a9fe]/' }, 'url'],
      [{ url: 'https://[::]/' }, 'url'],
      [{ url: 'http://localhost/' }, 'url'],
      [{ url: 'https://xn--/' }, 'url'],
      [{ url: 'https://hooks.example.com/', events: { a: 'event.created' } }, 'events'],
      [{ url: 'https://hooks.example.com/', events: 'event.created,event.exploded' }, 'events'],
      [{ url: 'https://hooks.example.com/', events: ',' }, 'events'],
      [{ url: 'https://hooks.example.com/', events: [''] }, 'events'],
      [{ url: 'https://hooks.example.com/', events: [['event.created']] }, 'events'],
      [{ url: 'https://hooks.example.com/', events: 5 }, 'events'],
      [{ url: 'https://hooks.example.com/', events: 'webhook.ping' }, 'events'],
      [{ url: 'https://hooks.example.com/', description: 'a\u0000b' }, 'description'],
      [{ url: 'https://hooks.example.com/', description: 'd'.repeat(501) }, 'description'],
      [{ url: 'https://hooks.example.com/', description: { text: 'x' } }, 'description'],
      [{ url: 'https://hooks.example.com/', active: 2 }, 'active'],
      [{ url: 'https://hooks.example.com/', active: 'yes' }, 'active'],
      [{ url: 'https://hooks.example.com/', active: [true] }, 'active'],
      [null, 'body'],
      [[], 'body'],
      ['"https://hooks.example.com/"', 'body'],
    ];
    for (const [body, param] of json) {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      const response = await server.request(WEBHOOKS, {
        method: 'POST',
        auth: admin,
        body: text,
        headers: { 'content-type': 'application/json' },
      });
      refused(response, param, `POST ${text.slice(0, 80)}`);
    }
    // PHP clients send forms; nested brackets make objects where a list or a string is wanted.
    const forms: [Record<string, string>, string][] = [
      [{ url: 'https://hooks.example.com/', 'events[a][b]': 'x' }, 'events'],
      [{ url: 'https://hooks.example.com/', 'events[0][0]': 'event.created' }, 'events'],
      [{ 'url[0]': 'https://hooks.example.com/' }, 'url'],
      [{ 'url[a]': 'https://hooks.example.com/' }, 'url'],
      [{ url: 'https://hooks.example.com/', 'active[]': '1' }, 'active'],
      [{ url: 'https://hooks.example.com/', description: 'a\u0000b' }, 'description'],
    ];
    for (const [form, param] of forms) {
      refused(await server.request(WEBHOOKS, { method: 'POST', auth: admin, form }), param, `form ${JSON.stringify(form)}`);
    }
    // The same through PUT on an existing subscription: nothing about it changes.
    for (const [body, param] of json.filter(([body]) => body !== null && typeof body === 'object' && !Array.isArray(body))) {
      const { url, ...rest } = body as Record<string, unknown>;
      const update = param === 'url' ? { url } : rest;
      const response = await server.request(`${WEBHOOKS}/${existing.id}`, { method: 'PUT', auth: admin, body: update });
      if (param === 'url' && typeof url === 'string' && url === 'https://hooks.example.com/') continue;
      refused(response, param, `PUT ${JSON.stringify(update).slice(0, 80)}`);
    }
    assert.deepEqual(await snapshot(), before, 'refused requests change nothing');
  });

  it('reads form-encoded and query-string-only writes as WordPress clients send them', async () => {
    const form = await server.request(WEBHOOKS, {
      method: 'POST',
      auth: admin,
      form: { url: receiver.url, 'events[]': 'venue.created', description: 'from PHP', active: '0' },
    });
    assert.equal(form.status, 201, form.text);
    assert.deepEqual([form.body.events, form.body.description, form.body.active], [['venue.created'], 'from PHP', false]);
    assert.match(form.body.secret, /^whsec_/);

    const query = await server.request(
      `${WEBHOOKS}?url=${encodeURIComponent(receiver.url)}&events[0]=tag.created&events[1]=tag.deleted&active=false`,
      {
        method: 'POST',
        auth: admin,
      },
    );
    assert.equal(query.status, 201, query.text);
    assert.deepEqual([query.body.url, query.body.events, query.body.active], [receiver.url, ['tag.created', 'tag.deleted'], false]);

    // The body wins over the query string, as in WordPress.
    const both = await server.request(`${WEBHOOKS}/${query.body.id}?description=query`, {
      method: 'PUT',
      auth: admin,
      form: { description: 'body' },
    });
    assert.equal(both.body.description, 'body');
    const queryOnly = await server.request(`${WEBHOOKS}/${query.body.id}?description=${encodeURIComponent('only the query')}&events=*`, {
      method: 'PUT',
      auth: admin,
    });
    assert.equal(queryOnly.status, 200, queryOnly.text);
    assert.deepEqual([queryOnly.body.description, queryOnly.body.events], ['only the query', ['*']]);

    const before = await snapshot();
    refused(
      await server.request(`${WEBHOOKS}/${query.body.id}?url=${encodeURIComponent('https://169.254.169.254/')}`, {
        method: 'PUT',
        auth: admin,
      }),
      'url',
      'a private address in the query string',
    );
    refused(
      await server.request(`${WEBHOOKS}/${query.body.id}/rotate-secret?overlap=abc`, { method: 'POST', auth: admin }),
      'overlap',
      'overlap=abc',
    );
    refused(
      await server.request(`${WEBHOOKS}?events[a][b]=x&url=${encodeURIComponent(receiver.url)}`, { method: 'POST', auth: admin }),
      'events',
      'query',
    );
    assert.deepEqual(await snapshot(), before);
  });

  it('takes a PUT with an empty body as no change, and a rotation with no body at all as the default overlap', async () => {
    const webhook = await create({ events: ['event.created'], description: 'as made' });
    for (const options of [{}, { body: '', headers: { 'content-type': 'application/json' } }, { form: {} }]) {
      const response = await server.request(`${WEBHOOKS}/${webhook.id}`, { method: 'PUT', auth: admin, ...options });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(
        [response.body.url, response.body.events, response.body.description, response.body.active],
        [webhook.url, ['event.created'], 'as made', false],
      );
      assert.equal(response.body.secret, undefined);
    }

    // No content-type, no body: fetch sends a bare POST.
    const rotated = await fetch(`${server.url}${WEBHOOKS}/${webhook.id}/rotate-secret`, {
      method: 'POST',
      headers: { authorization: admin.bearer },
    });
    const body = (await rotated.json()) as any;
    assert.equal(rotated.status, 200, JSON.stringify(body));
    assert.match(body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.notEqual(body.secret, webhook.secret);
    const overlap = Date.parse(body.previous_secret_expires) - Date.now();
    assert.ok(overlap > 86_300_000 && overlap <= 86_400_000, `a day by default: ${overlap} ms`);

    const before = await snapshot();
    const overlaps: [string, string][] = [
      ['"abc"', 'overlap'],
      ['1.5', 'overlap'],
      ['-1', 'overlap'],
      ['604801', 'overlap'],
      ['1e308', 'overlap'],
      ['99999999999999999999999', 'overlap'],
      ['[60]', 'overlap'],
      ['{"s":60}', 'overlap'],
    ];
    for (const [value, param] of overlaps) {
      const response = await server.request(`${WEBHOOKS}/${webhook.id}/rotate-secret`, {
        method: 'POST',
        auth: admin,
        body: `{"overlap":${value}}`,
        headers: { 'content-type': 'application/json' },
      });
      refused(response, param, `overlap ${value}`);
    }
    for (const raw of ['null', '[]', '"x"', '{"overlap":']) {
      const response = await server.request(`${WEBHOOKS}/${webhook.id}/rotate-secret`, {
        method: 'POST',
        auth: admin,
        body: raw,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(response.status, 400, `${raw}: ${response.text}`);
    }
    const plain = await server.request(`${WEBHOOKS}/${webhook.id}/rotate-secret`, {
      method: 'POST',
      auth: admin,
      body: 'overlap=60',
      headers: { 'content-type': 'text/plain' },
    });
    assert.ok(plain.status === 400 || plain.status === 415, plain.text);
    assert.deepEqual(await snapshot(), before, 'no refused rotation made a secret');
  });

  it('answers ids out of range or malformed on every path with a 4xx, never reaching storage with them', async () => {
    const webhook = await create();
    const before = await snapshot();
    const paths = (id: string): [string, string][] => [
      ['GET', `${WEBHOOKS}/${id}`],
      ['PUT', `${WEBHOOKS}/${id}`],
      ['DELETE', `${WEBHOOKS}/${id}`],
      ['POST', `${WEBHOOKS}/${id}/rotate-secret`],
      ['POST', `${WEBHOOKS}/${id}/ping`],
      ['GET', `${WEBHOOKS}/${id}/deliveries`],
      ['POST', `${WEBHOOKS}/${id}/deliveries/1/replay`],
      ['POST', `${WEBHOOKS}/${webhook.id}/deliveries/${id}/replay`],
    ];
    for (const id of ['0', '2147483648', '99999999999999999999999']) {
      for (const [method, path] of paths(id)) {
        const response = await server.request(path, { method, auth: admin, ...(method === 'PUT' ? { body: { active: true } } : {}) });
        refused(response, path.endsWith(`/deliveries/${id}/replay`) ? 'delivery_id' : 'id', `${method} ${path}`);
      }
    }
    for (const id of ['-1', 'abc', '1.5', '1e3', '%00', '1%20', '0x10']) {
      for (const [method, path] of paths(id)) {
        const response = await server.request(path, { method, auth: admin });
        assert.equal(response.status, 404, `${method} ${path}: ${response.text}`);
        assert.equal(response.body.code, 'rest_no_route', `${method} ${path}`);
      }
    }
    for (const [method, path] of paths('2147483647')) {
      const response = await server.request(path, { method, auth: admin });
      assert.equal(response.status, 404, `${method} ${path}: ${response.text}`);
      assert.match(response.body.code, /^rest_webhook(_delivery)?_invalid_id$/);
    }
    assert.deepEqual(await snapshot(), before);
  });

  it('refuses pages past what storage can count with a 400, and answers an empty page past the last', async () => {
    const webhook = await create();
    for (const path of [WEBHOOKS, `${WEBHOOKS}/${webhook.id}/deliveries`]) {
      for (const page of ['1e30', '99999999999999999999', '9007199254740993', '0', '-1', '1.5', 'abc']) {
        refused(await server.request(`${path}?page=${page}`, { auth: admin }), 'page', `${path}?page=${page}`);
      }
      for (const perPage of ['0', '101', '1e30', 'abc']) {
        refused(await server.request(`${path}?per_page=${perPage}`, { auth: admin }), 'per_page', `${path}?per_page=${perPage}`);
      }
      const past = await server.request(`${path}?page=1000000`, { auth: admin });
      assert.equal(past.status, 200, past.text);
      assert.deepEqual(past.body, []);
    }
    refused(await server.request(`${WEBHOOKS}/${webhook.id}/deliveries?status=lost`, { auth: admin }), 'status', 'status=lost');
  });

  it("does not replay a delivery through another subscription's path", async () => {
    const mine = await create({ active: true });
    const theirs = await create({ active: true });
    const ping = await server.request(`${WEBHOOKS}/${theirs.id}/ping`, { method: 'POST', auth: admin });
    assert.equal(ping.body.status, 'succeeded', ping.text);
    const before = await snapshot();
    const crossed = await server.request(`${WEBHOOKS}/${mine.id}/deliveries/${ping.body.id}/replay`, { method: 'POST', auth: admin });
    assert.equal(crossed.status, 404, crossed.text);
    assert.equal(crossed.body.code, 'rest_webhook_delivery_invalid_id');
    const listed = await server.request(`${WEBHOOKS}/${mine.id}/deliveries`, { auth: admin });
    assert.ok(!listed.body.some((delivery: any) => delivery.id === ping.body.id), 'nor lists it');
    assert.deepEqual(await snapshot(), before);
    const sent = receiver.received.length;
    await server.drain();
    assert.equal(receiver.received.length, sent, 'nothing was sent again');
  });

  it('is closed to every other role and to anonymous callers on every route, changing nothing', async () => {
    const webhook = await create();
    const ping = await server.request(`${WEBHOOKS}/${webhook.id}/ping`, { method: 'POST', auth: admin });
    const others = await Promise.all((['editor', 'author', 'contributor', 'subscriber'] as const).map((role) => server.createUser(role)));
    const routes: [string, string, Record<string, unknown>?][] = [
      ['GET', WEBHOOKS],
      ['POST', WEBHOOKS, { url: 'https://hooks.example.com/' }],
      ['GET', `${WEBHOOKS}/${webhook.id}`],
      ['PUT', `${WEBHOOKS}/${webhook.id}`, { url: 'https://attacker.example.com/', active: true }],
      ['DELETE', `${WEBHOOKS}/${webhook.id}`],
      ['POST', `${WEBHOOKS}/${webhook.id}/rotate-secret`, { overlap: 0 }],
      ['POST', `${WEBHOOKS}/${webhook.id}/ping`],
      ['GET', `${WEBHOOKS}/${webhook.id}/deliveries`],
      ['POST', `${WEBHOOKS}/${webhook.id}/deliveries/${ping.body.id}/replay`],
      // An id that does not exist says nothing more to those who may not ask. (An invalid one is a 400 for anyone:
      // WordPress checks arguments before permissions.)
      ['GET', `${WEBHOOKS}/2147483647`],
      ['POST', `${WEBHOOKS}/2147483647/ping`],
    ];
    const before = await snapshot();
    const sent = receiver.received.length;
    const callers: [string, string | undefined, number][] = [
      ['anonymous', undefined, 401],
      ...others.map((user): [string, string, number] => [user.username, user.basic, 403]),
      ...others.map((user): [string, string, number] => [`${user.username} (token)`, user.bearer, 403]),
    ];
    for (const [who, auth, status] of callers) {
      for (const [method, path, body] of routes) {
        const response = await server.request(path, { method, ...(auth === undefined ? {} : { auth }), ...(body ? { body } : {}) });
        assert.equal(response.status, status, `${who}: ${method} ${path}: ${response.text}`);
        assert.doesNotMatch(response.text, /whsec_|hooks\.example|127\.0\.0\.1/, `${who}: ${method} ${path} tells nothing`);
      }
      // WordPress clients also send writes as forms and through the query string.
      const form = await server.request(`${WEBHOOKS}/${webhook.id}?active=true`, {
        method: 'PUT',
        form: { url: 'https://attacker.example.com/' },
        ...(auth === undefined ? {} : { auth }),
      });
      assert.equal(form.status, status, `${who}: form PUT`);
    }
    // Failed logins are rate limited: one is enough.
    const wrong = `Basic ${Buffer.from(`${admin.username}:wrong`).toString('base64')}`;
    const guessed = await server.request(`${WEBHOOKS}/${webhook.id}`, { method: 'DELETE', auth: wrong });
    assert.equal(guessed.status, 401, guessed.text);
    assert.deepEqual(await snapshot(), before, 'no refused caller changed a subscription or made a delivery');
    await server.drain();
    assert.equal(receiver.received.length, sent, 'no refused caller made a request go out');
  });

  it('ignores fields clients may not set: the secret, the failure count, the id, the author', async () => {
    const chosen = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const created = await server.request(WEBHOOKS, {
      method: 'POST',
      auth: admin,
      body: {
        url: receiver.url,
        secret: chosen,
        failure_count: 99,
        disabled_reason: 'x',
        id: 424242,
        author_id: 0,
        created: '2000-01-01T00:00:00Z',
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.notEqual(created.body.secret, chosen);
    assert.notEqual(created.body.id, 424242);
    assert.deepEqual([created.body.failure_count, created.body.disabled_reason], [0, null]);
    const put = await server.request(`${WEBHOOKS}/${created.body.id}`, {
      method: 'PUT',
      auth: admin,
      body: { secret: chosen, previous_secret: chosen, previous_secret_until: '2999-01-01T00:00:00.000Z', failure_count: 5 },
    });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual([put.body.failure_count, put.body.previous_secret_expires], [0, null]);
    const ping = await server.request(`${WEBHOOKS}/${created.body.id}/ping`, { method: 'POST', auth: admin });
    assert.equal(ping.body.status, 'succeeded', ping.text);
    const entry = receiver.received.find((received) => received.headers['webhook-id'] === ping.body.message_id)!;
    verifyWithReference(created.body.secret, entry);
    assert.equal(String(entry.headers['webhook-signature']).split(' ').length, 1);
    assert.ok(!signedBy(chosen, entry), 'a secret a client sent never signs');
    await server.request(`${WEBHOOKS}/${created.body.id}`, { method: 'DELETE', auth: admin });
  });

  it('never shows a secret after it is made: not in reads, lists, the delivery log, errors or the server logs', async () => {
    const made = await create({ active: true, events: ['event.created'] });
    const secrets = [made.secret];
    for (const overlap of [3600, 600]) {
      const rotated = await server.request(`${WEBHOOKS}/${made.id}/rotate-secret`, { method: 'POST', auth: admin, body: { overlap } });
      secrets.push(rotated.body.secret);
    }
    await server.request(`${WEBHOOKS}/${made.id}/ping`, { method: 'POST', auth: admin });
    receiver.script.push(500);
    const event = await makeEvent(server, admin, { status: 'publish' });
    await eventually(
      () => (receiver.received.filter((entry) => entry.body?.data?.id === event.id && entry.status === 200).length > 0 ? true : undefined),
      'the retried delivery',
    );
    const signatures = receiver.received.flatMap((entry) =>
      String(entry.headers['webhook-signature'])
        .split(' ')
        .map((part) => part.slice(3)),
    );
    const answers = [
      await server.request(`${WEBHOOKS}/${made.id}`, { auth: admin }),
      await server.request(`${WEBHOOKS}?per_page=100`, { auth: admin }),
      await server.request(`${WEBHOOKS}/${made.id}/deliveries?per_page=100`, { auth: admin }),
      await server.request(`${WEBHOOKS}/${made.id}`, { method: 'PUT', auth: admin, body: { description: 'touched' } }),
      await server.request(`${WEBHOOKS}/${made.id}`, { method: 'PUT', auth: admin, body: { url: 'https://10.0.0.1/' } }),
      await server.request(`${WEBHOOKS}/${made.id}/rotate-secret`, { method: 'POST', auth: admin, body: { overlap: -1 } }),
    ];
    for (const answer of answers) {
      assert.doesNotMatch(answer.text, /whsec_/);
      for (const secret of [...secrets, ...secrets.map((secret) => secret.slice(6))]) assert.ok(!answer.text.includes(secret));
      for (const signature of signatures) assert.ok(!answer.text.includes(signature), 'nor a signature');
    }
    const logs = server.logs.join('\n');
    assert.doesNotMatch(logs, /whsec_/, 'no secret in the server logs');
    for (const secret of secrets) assert.ok(!logs.includes(secret.slice(6)));
    for (const signature of signatures) assert.ok(!logs.includes(signature), 'no signature in the server logs');
    await server.request(`${WEBHOOKS}/${made.id}`, { method: 'DELETE', auth: admin });
  });

  it('records receivers that answer badly as failures, within the timeout, without a 500', async () => {
    const webhook = await create();
    const cases: [string, (socket: Socket) => void, { status: string; response: number | null; error?: RegExp; slow?: boolean }][] = [
      [
        'a huge body',
        (socket) => {
          socket.write('HTTP/1.1 200 OK\r\nContent-Length: 104857600\r\n\r\n');
          const chunk = Buffer.alloc(1 << 20, 'a');
          const pump = () => {
            while (!socket.destroyed && socket.write(chunk));
          };
          socket.on('drain', pump);
          pump();
        },
        { status: 'succeeded', response: 200 },
      ],
      [
        'a body that never ends',
        (socket) => {
          socket.write('HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nabc');
        },
        { status: 'succeeded', response: 200, slow: true },
      ],
      [
        'no answer at all',
        () => undefined,
        { status: 'failed', response: null, error: new RegExp(`timeout after ${TIMEOUT_MS} ms`), slow: true },
      ],
      [
        'a connection closed before the answer',
        (socket) => socket.destroy(),
        { status: 'failed', response: null, error: /hang up|reset|closed/i },
      ],
      [
        'a connection closed in the body',
        (socket) => {
          socket.end('HTTP/1.1 500 Oops\r\nContent-Length: 100\r\n\r\nabc');
        },
        { status: 'failed', response: 500, error: /status 500/ },
      ],
      ['garbage instead of HTTP', (socket) => socket.end('SMTP READY\r\n\r\n'), { status: 'failed', response: null, error: /./ }],
      [
        'headers too large',
        (socket) => {
          socket.end(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(100_000)}\r\nContent-Length: 0\r\n\r\n`);
        },
        { status: 'failed', response: null, error: /./ },
      ],
      [
        'a status no one defined',
        (socket) => socket.end('HTTP/1.1 999 Odd\r\nContent-Length: 0\r\n\r\n'),
        { status: 'failed', response: 999, error: /999/ },
      ],
      [
        'a redirect to a private address',
        (socket) => {
          socket.end('HTTP/1.1 307 Temporary Redirect\r\nLocation: http://169.254.169.254/latest/\r\nContent-Length: 0\r\n\r\n');
        },
        { status: 'failed', response: 307, error: /redirect \(307\)/ },
      ],
    ];
    for (const [what, answer, expected] of cases) {
      const raw = await rawReceiver(answer);
      try {
        const moved = await server.request(`${WEBHOOKS}/${webhook.id}`, { method: 'PUT', auth: admin, body: { url: raw.url } });
        assert.equal(moved.status, 200, moved.text);
        const started = Date.now();
        const ping = await server.request(`${WEBHOOKS}/${webhook.id}/ping`, { method: 'POST', auth: admin });
        const took = Date.now() - started;
        assert.equal(ping.status, 200, `${what}: ${ping.text}`);
        assert.equal(ping.body.status, expected.status, `${what}: ${ping.text}`);
        assert.equal(ping.body.response_status, expected.response, `${what}: ${ping.text}`);
        if (expected.error) assert.match(ping.body.error ?? '', expected.error, what);
        else assert.equal(ping.body.error, null, what);
        assert.doesNotMatch(ping.body.error ?? '', /v1,|whsec_/, `${what}: the error quotes no signature`);
        assert.ok(took < TIMEOUT_MS + 1500, `${what}: bounded by the timeout (${took} ms)`);
        if (!expected.slow) assert.ok(took < TIMEOUT_MS, `${what}: does not wait for the timeout (${took} ms)`);
      } finally {
        await raw.close();
      }
    }
    const read = await server.request(`${WEBHOOKS}/${webhook.id}`, { auth: admin });
    assert.deepEqual([read.body.failure_count, read.body.active], [0, false], 'pings count no failure');
  });
});

describe('webhooks made after items were published', () => {
  let server: TestServer;
  let admin: Credentials;
  let receiver: Receiver;
  before(async () => {
    server = await startTestServer({ ...FAST, WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
    admin = await server.admin();
    receiver = await Receiver.start();
  });
  after(async () => {
    await server.close();
    await receiver.close();
  });

  it('announces the removal of an item published while no subscription was active', async () => {
    // Published while nobody listens: the dispatcher skips these changes.
    const early = await makeEvent(server, admin, { status: 'publish' });
    const renamed = await makeEvent(server, admin, { status: 'publish' });
    await server.drain();
    const created = await server.request(WEBHOOKS, { method: 'POST', auth: admin, body: { url: receiver.url } });
    assert.equal(created.status, 201, created.text);
    const trashed = await server.request(`${EVENTS}/${early.id}`, { method: 'DELETE', auth: admin });
    assert.equal(trashed.status, 200, trashed.text);
    const changed = await server.request(`${EVENTS}/${renamed.id}`, { method: 'POST', auth: admin, body: { title: 'Renamed later' } });
    assert.equal(changed.status, 200, changed.text);
    const marker = await makeEvent(server, admin, { status: 'publish' });
    await eventually(() => (receiver.received.some((entry) => entry.body?.data?.id === marker.id) ? true : undefined), 'the marker');
    await server.drain();
    const heard = receiver.events();
    assert.ok(heard.includes(`event.deleted ${early.id}`), `a subscriber hears that a public event left: ${JSON.stringify(heard)}`);
    assert.ok(heard.includes(`event.updated ${renamed.id}`), `and that a public event changed: ${JSON.stringify(heard)}`);
  });
});
