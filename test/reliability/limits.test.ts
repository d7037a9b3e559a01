/**
 * Limits and abuse: rate limiting (headers, 429 per credential and per
 * address, on every surface), password lockout across surfaces, body and
 * field sizes, `per_page` caps, slow clients cut off by the server timeouts,
 * header floods refused without harm.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { BODY_LIMIT_BYTES } from '../../src/app.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { isSoapFault, send } from './support/client.ts';
import { operationsOf, surfacesOf, type Surfaces } from './support/openapi.ts';
import { CALENDAR, calendarBody, createCalendarItem, ENTITIES } from './support/seed.ts';

const SOAP_PING =
  '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>' +
  '<p:pingStringInput xmlns:p="http://com/ibm/was/wssample/sei/ping/"><pingInput>PING</pingInput></p:pingStringInput>' +
  '</soap:Body></soap:Envelope>';

async function surfacesOfServer(server: TestServer): Promise<Surfaces> {
  return surfacesOf(operationsOf((await server.request('/docs/openapi.json')).body), CALENDAR);
}

describe('rate limiting (RATE_LIMIT_PER_MINUTE)', () => {
  const LIMIT = 4;
  let server: TestServer;
  let surfaces: Surfaces;
  before(async () => {
    server = await startTestServer({ RATE_LIMIT_PER_MINUTE: String(LIMIT), TRUST_PROXY: 'true' });
    surfaces = await surfacesOfServer(server);
  });
  after(async () => server.close());

  const from = (address: string, path: string, auth?: Credentials) =>
    send({
      method: 'GET',
      url: `${server.url}${path}`,
      headers: { 'x-forwarded-for': address, ...(auth ? { authorization: auth.bearer } : {}) },
    });

  it('announces the budget in RateLimit-* headers, counting down, then answers 429 with Retry-After', async () => {
    const remaining: string[] = [];
    for (let i = 0; i < LIMIT; i += 1) {
      const response = await from('10.9.0.1', `${CALENDAR}`);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('ratelimit-limit'), String(LIMIT));
      const reset = Number(response.headers.get('ratelimit-reset'));
      assert.ok(reset >= 1 && reset <= 60, `RateLimit-Reset ${reset}`);
      remaining.push(response.headers.get('ratelimit-remaining') ?? '');
    }
    assert.deepEqual(remaining, ['3', '2', '1', '0']);
    const limited = await from('10.9.0.1', `${CALENDAR}`);
    assert.equal(limited.status, 429);
    assert.equal((limited.json as { code: string }).code, 'rest_too_many_requests');
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal(limited.headers.get('ratelimit-remaining'), '0');
  });

  it('limits each address on its own, and a signed-in caller by credential whatever the address', async () => {
    for (let i = 0; i < LIMIT; i += 1) await from('10.9.1.1', '/healthz');
    assert.equal((await from('10.9.1.1', '/healthz')).status, 429);
    assert.equal((await from('10.9.1.2', '/healthz')).status, 200, 'another address has its own budget');

    const editor = await server.createUser('editor');
    const author = await server.createUser('author');
    for (let i = 0; i < LIMIT; i += 1) assert.equal((await from(`10.9.2.${i}`, '/', editor)).status, 200);
    assert.equal((await from('10.9.2.99', '/', editor)).status, 429, 'a new address does not reset a credential');
    assert.equal((await from('10.9.2.99', '/', author)).status, 200, 'another credential on the same address has its own budget');
  });

  it('answers 429 in each surface’s own shape', async () => {
    assert.ok(surfaces.entities, 'entity-management routes are missing from /docs/openapi.json');
    const user = await server.createUser('subscriber');
    for (let i = 0; i < LIMIT; i += 1) await from('10.9.3.1', `${ENTITIES}/customers`, user);
    const entityLimited = await from('10.9.3.1', `${ENTITIES}/customers`, user);
    assert.equal(entityLimited.status, 429);
    assert.ok(Number(entityLimited.headers.get('retry-after')) >= 1);
    assert.equal((entityLimited.json as { messages: { code: string }[] }).messages[0]?.code, 'TOO_MANY_REQUESTS');
    const ping = () =>
      send({
        method: 'POST',
        url: `${server.url}/soap/PingService`,
        headers: { 'content-type': 'text/xml', 'x-forwarded-for': '10.9.4.1' },
        body: SOAP_PING,
      });
    for (let i = 0; i < LIMIT; i += 1) assert.equal((await ping()).status, 202);
    // SOAP answers with a soap:Client fault (HTTP 500, the binding's status for faults) that still carries Retry-After.
    const limited = await ping();
    assert.ok(
      limited.status === 429 || (isSoapFault(limited) && /faultcode>[^<]*Client</.test(limited.text)),
      `${limited.status} ${limited.text}`,
    );
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  });
});

describe('password lockout (AUTH_MAX_FAILURES)', () => {
  let server: TestServer;
  let surfaces: Surfaces;
  before(async () => {
    server = await startTestServer({
      AUTH_MAX_FAILURES: '3',
      AUTH_MAX_FAILURES_PER_ADDRESS: '6',
      AUTH_LOCKOUT_SECONDS: '60',
      TRUST_PROXY: 'true',
    });
    surfaces = await surfacesOfServer(server);
  });
  after(async () => server.close());

  const basic = (username: string, password: string) => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

  it('locks the (username, address) pair on every surface after the failures, even with the right password, with Retry-After', async () => {
    const editor = await server.createUser('editor');
    const at = (address: string, password: string, path = '/') =>
      send({
        method: 'GET',
        url: `${server.url}${path}`,
        headers: { 'x-forwarded-for': address, authorization: basic(editor.username, password) },
      });
    for (let i = 0; i < 3; i += 1) assert.equal((await at('10.8.0.1', 'wrong')).status, 401);
    const locked = await at('10.8.0.1', editor.password);
    assert.equal(locked.status, 429);
    assert.ok(Number(locked.headers.get('retry-after')) > 1);
    if (surfaces.entities) assert.equal((await at('10.8.0.1', editor.password, `${ENTITIES}/customers`)).status, 429);
    const soap = await send({
      method: 'POST',
      url: `${server.url}/soap/PingService`,
      headers: { 'content-type': 'text/xml', 'x-forwarded-for': '10.8.0.1', authorization: basic(editor.username, editor.password) },
      body: SOAP_PING,
    });
    assert.ok(
      soap.status === 429 || (isSoapFault(soap) && soap.headers.get('retry-after') !== null),
      `SOAP while locked: ${soap.status} ${soap.text}`,
    );
    assert.doesNotMatch(soap.text, /PING/);
    assert.equal((await at('10.8.0.2', editor.password)).status, 200, 'another address is not locked');
  });

  it('locks an address after failures across usernames (password spraying)', async () => {
    const victim = await server.createUser('author');
    const spray = (username: string) =>
      send({
        method: 'GET',
        url: `${server.url}/`,
        headers: { 'x-forwarded-for': '10.8.1.1', authorization: basic(username, 'Summer2026!') },
      });
    for (let i = 0; i < 6; i += 1) assert.equal((await spray(`nobody-${i}`)).status, 401);
    const blocked = await send({
      method: 'GET',
      url: `${server.url}/`,
      headers: { 'x-forwarded-for': '10.8.1.1', authorization: victim.basic },
    });
    assert.equal(blocked.status, 429);
  });
});

describe('sizes, page caps, slow clients, header floods', () => {
  let server: TestServer;
  let admin: Credentials;
  let surfaces: Surfaces;
  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
    surfaces = await surfacesOfServer(server);
  });
  after(async () => server.close());

  const post = (path: string, body: string, contentType = 'application/json') =>
    send({ method: 'POST', url: `${server.url}${path}`, headers: { authorization: admin.bearer, 'content-type': contentType }, body });

  it('refuses bodies over 1 MiB with 413 on every surface, and stores nothing', async () => {
    const big = JSON.stringify({ title: 'x'.repeat(BODY_LIMIT_BYTES), start_date: '2031-01-01 10:00:00', end_date: '2031-01-01 11:00:00' });
    const calendar = await post(`${CALENDAR}/events`, big);
    assert.equal(calendar.status, 413);
    assert.equal((calendar.json as { code: string }).code, 'rest_payload_too_large');
    if (surfaces.entities) {
      const entities = await post(`${ENTITIES}/customers`, JSON.stringify({ key: 'BIG', CompanyName: 'x'.repeat(BODY_LIMIT_BYTES) }));
      assert.equal(entities.status, 413);
      assert.equal((entities.json as { messages: { code: string }[] }).messages[0]?.code, 'PAYLOAD_TOO_LARGE');
      assert.equal((await server.request(`${ENTITIES}/customers/BIG`, { auth: admin })).status, 404);
    }
    // SOAP's own limit is 64 KiB, answered with a soap:Client fault and HTTP 413.
    const soap = await send({
      method: 'POST',
      url: `${server.url}/soap/PingService`,
      headers: { 'content-type': 'text/xml' },
      body: SOAP_PING.replace('PING', 'p'.repeat(70 * 1024)),
    });
    assert.equal(soap.status, 413);
    assert.match(soap.text, /faultcode>[^<]*Client</);
  });

  it('takes large fields intact or refuses them with a 400, never a 5xx', async () => {
    assert.ok(surfaces.events, 'event routes are missing from /docs/openapi.json');
    for (const size of [64 * 1024, 512 * 1024]) {
      const title = `T${'é'.repeat(size / 4)}`;
      const response = await post(`${CALENDAR}/events`, JSON.stringify(calendarBody('events', title, { description: 'd'.repeat(size) })));
      assert.ok(response.status === 201 || response.status === 400, `${size}: ${response.status}`);
      if (response.status === 201) {
        const read = await server.request(`${CALENDAR}/events/${(response.json as { id: number }).id}`, { auth: admin });
        assert.equal(read.body.title, title, 'a stored title comes back unchanged');
      }
    }
  });

  it('caps per_page at 50 on calendar lists and refuses more than 100 on entity management', async () => {
    const lists = ['events', 'venues', 'organizers', 'categories', 'tags'] as const;
    assert.deepEqual(
      lists.filter((r) => !surfaces[r]),
      [],
      'calendar lists missing from /docs/openapi.json',
    );
    for (const resource of lists) {
      await Promise.all(
        Array.from({ length: 52 }, () =>
          createCalendarItem(server, resource, admin, resource === 'categories' || resource === 'tags' ? {} : { status: 'publish' }),
        ),
      );
      const window = resource === 'events' ? '&start_date=2030-01-01&end_date=2032-12-31' : '';
      const response = await server.request(`${CALENDAR}/${resource}?per_page=100&hide_empty=false${window}`, { auth: admin });
      assert.equal(response.status, 200, `${resource}: ${response.text.slice(0, 200)}`);
      assert.equal(response.body[resource].length, 50, `${resource} per_page=100 gives ${response.body[resource].length} items`);
    }
    if (surfaces.entities) {
      assert.equal((await server.request(`${ENTITIES}/customers?per_page=100`, { auth: admin })).status, 200);
      const over = await server.request(`${ENTITIES}/customers?per_page=101`, { auth: admin });
      assert.equal(over.status, 400);
      assert.equal(over.body.messages[0].code, 'INVALID_PARAMETER');
    }
    if (surfaces.soapPings) assert.equal((await server.request('/soap/pings?per_page=101', { auth: admin })).status, 400);
  });

  it('refuses infinite and huge numbers as parameters (400, not a 500 from the database)', async () => {
    for (const value of ['1e309', '-1e309', 'NaN', 'Infinity']) {
      const response = await server.request(`/soap/pings?page=${value}`, { auth: admin });
      assert.equal(response.status, 400, `page=${value}`);
    }
  });

  /** Opens a raw connection, writes `chunks`, and resolves when the server closes it (or rejects after `limitMs`). */
  function closedWithin(chunks: string[], limitMs: number): Promise<{ ms: number; response: string }> {
    return new Promise((resolve, reject) => {
      const { port } = new URL(server.url);
      const started = Date.now();
      let response = '';
      const socket: Socket = connect(Number(port), '127.0.0.1', () => {
        for (const chunk of chunks) socket.write(chunk);
      });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`the server kept a stalled connection open for ${limitMs} ms`));
      }, limitMs);
      socket.on('data', (data: Buffer) => (response += data.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve({ ms: Date.now() - started, response });
      });
    });
  }

  it('cuts off a client that sends part of its headers and stalls, and one whose body never ends', async () => {
    const http = server.server.app.server;
    const defaults = { headersTimeout: http.headersTimeout, requestTimeout: http.requestTimeout };
    assert.ok(defaults.headersTimeout > 0 && defaults.headersTimeout <= 15_000, `headersTimeout ${defaults.headersTimeout}`);
    assert.ok(defaults.requestTimeout > 0 && defaults.requestTimeout <= 60_000, `requestTimeout ${defaults.requestTimeout}`);
    // Shorter timeouts for the test; Node re-reads them at every connection check.
    http.headersTimeout = 1_000;
    http.requestTimeout = 2_000;
    try {
      const headers = await closedWithin([`GET ${CALENDAR} HTTP/1.1\r\nHost: x\r\nX-Slow: `], 6_000);
      assert.ok(headers.ms < 6_000);
      assert.ok(headers.response === '' || /^HTTP\/1\.1 408/.test(headers.response), headers.response.slice(0, 80));
      const body = await closedWithin(
        [`POST ${CALENDAR}/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"title":`],
        8_000,
      );
      assert.ok(body.response === '' || /^HTTP\/1\.1 (408|400)/.test(body.response), body.response.slice(0, 80));
    } finally {
      http.headersTimeout = defaults.headersTimeout;
      http.requestTimeout = defaults.requestTimeout;
    }
    assert.equal((await server.request('/healthz')).status, 200);
  });

  it('refuses header floods (too many, too large) with 431 or a closed connection, and keeps serving', async () => {
    const many = Array.from({ length: 3000 }, (_, i) => `X-Flood-${i}: ${i}\r\n`).join('');
    const flood = await closedWithin([`GET / HTTP/1.1\r\nHost: x\r\n${many}\r\n`], 5_000);
    assert.ok(flood.response === '' || /^HTTP\/1\.1 431/.test(flood.response), flood.response.slice(0, 80));
    const huge = await send({ method: 'GET', url: `${server.url}/`, headers: { 'x-huge': 'h'.repeat(64 * 1024) } });
    assert.ok(huge.closed || huge.status === 431, `a 64 KB header: ${huge.status}`);
    const hugeAuth = await send({ method: 'GET', url: `${server.url}/`, headers: { authorization: `Bearer ${'t'.repeat(12 * 1024)}` } });
    assert.ok(hugeAuth.status === 401 || hugeAuth.status === 431, `a 12 KB Authorization: ${hugeAuth.status}`);
    const parallel = await Promise.all(Array.from({ length: 20 }, () => closedWithin([`GET / HTTP/1.1\r\nHost: x\r\n${many}\r\n`], 5_000)));
    assert.equal(parallel.length, 20);
    assert.equal((await server.request('/healthz')).status, 200);
  });
});
