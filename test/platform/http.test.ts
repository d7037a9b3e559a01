import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { ConflictError, InternalError } from '../../src/platform/errors.ts';
import { classifyError } from '../../src/platform/http/classify-error.ts';

describe('HTTP platform', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ CORS_ORIGINS: 'https://app.example' });
  });
  after(async () => server.close());

  it('answers liveness and readiness', async () => {
    assert.deepEqual((await server.request('/healthz')).body, { status: 'ok' });
    const ready = await server.request('/readyz');
    assert.equal(ready.status, 200);
    assert.equal(ready.body.status, 'ok');
  });

  it('echoes a well-formed X-Request-Id and mints one otherwise', async () => {
    const echoed = await server.request('/healthz', { headers: { 'x-request-id': 'trace-123' } });
    assert.equal(echoed.headers.get('x-request-id'), 'trace-123');
    const minted = await server.request('/healthz', { headers: { 'x-request-id': 'bad id with spaces <>' } });
    assert.match(minted.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const refused = await server.request('/calendar/events/v1/events/%E0%A4%A', { headers: { 'x-request-id': 'trace-bad-url' } });
    assert.equal(refused.status, 400);
    assert.equal(refused.headers.get('x-request-id'), 'trace-bad-url');
  });

  it('sends security headers suitable for an API, on answers and refusals alike', async () => {
    // The last is refused by the router (a malformed percent-escape), before any hook runs.
    for (const path of ['/', '/nope', '/calendar/events/v1/events/%E0%A4%A']) {
      const response = await server.request(path);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(response.headers.get('content-security-policy'), "default-src 'none'; frame-ancestors 'none'");
      assert.equal(response.headers.get('x-frame-options'), 'SAMEORIGIN');
      assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
      assert.match(response.headers.get('strict-transport-security') ?? '', /^max-age=\d+/);
    }
  });

  it('allows the configured CORS origin with credentials and exposes the total headers', async () => {
    const allowed = await server.request('/calendar/events/v1', { headers: { origin: 'https://app.example' } });
    assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://app.example');
    assert.equal(allowed.headers.get('access-control-allow-credentials'), 'true');
    assert.match(allowed.headers.get('access-control-expose-headers') ?? '', /X-TEC-Total/);
    const other = await server.request('/calendar/events/v1', { headers: { origin: 'https://evil.example' } });
    assert.equal(other.headers.get('access-control-allow-origin'), null);
  });

  it('answers a CORS preflight with the security headers too', async () => {
    const preflight = await server.request('/calendar/events/v1/events', {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://app.example');
    assert.equal(preflight.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(preflight.headers.get('x-frame-options'), 'SAMEORIGIN');
  });

  for (const path of ['/nope', '/calendar/events/v1/nope', '/calendar/events/v1/events/foo', '/calendar/events/v1/doc/extra']) {
    it(`answers an unknown path (${path}) with 404 rest_no_route`, async () => {
      const response = await server.request(path);
      assert.equal(response.status, 404);
      assert.deepEqual(response.body, {
        code: 'rest_no_route',
        message: 'No route was found matching the URL and request method.',
        data: { status: 404 },
      });
    });
  }

  it('answers an unknown method on a known path with 404 rest_no_route', async () => {
    const response = await server.request('/calendar/events/v1/doc', { method: 'DELETE' });
    assert.equal(response.status, 404);
    assert.equal(response.body.code, 'rest_no_route');
  });

  it('rejects invalid JSON with 400 rest_invalid_json', async () => {
    const admin = await server.admin();
    const response = await server.request('/calendar/events/v1/events', {
      method: 'POST',
      auth: admin,
      body: '{"title": "broken',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(response.status, 400);
    assert.equal(response.body.code, 'rest_invalid_json');
  });

  it('rejects a body over 1 MiB with 413 rest_payload_too_large', async () => {
    const admin = await server.admin();
    const response = await server.request('/calendar/events/v1/events', {
      method: 'POST',
      auth: admin,
      body: { title: 'x'.repeat(1024 * 1024 + 10) },
    });
    assert.equal(response.status, 413);
    assert.equal(response.body.code, 'rest_payload_too_large');
  });

  it('marks calendar responses with their language: refusals too, and a language given in a write body', async () => {
    for (const path of [
      '/calendar/events/v1/nope',
      '/calendar/events/v1/events?per_page=0',
      '/calendar/events/v1/events?translation_language=it&per_page=0',
    ]) {
      const refused = await server.request(path);
      assert.ok(refused.status === 400 || refused.status === 404, path);
      assert.equal(refused.headers.get('content-language'), path.includes('=it') ? 'it' : 'en', path);
    }
    const created = await server.request('/calendar/events/v1/organizers', {
      method: 'POST',
      auth: await server.admin(),
      body: { organizer: 'Coro della Valle', translation_language: 'it' },
    });
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('content-language'), 'it');
  });

  it('rejects a bad translation_language on the namespace root with rest_invalid_param naming it', async () => {
    const response = await server.request('/calendar/events/v1?translation_language=de');
    assert.equal(response.status, 400);
    assert.equal(response.body.code, 'rest_invalid_param');
    assert.ok('translation_language' in response.body.data.params);
  });
});

describe('discovery and OpenAPI documents', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  it('lists every registered calendar route in the namespace index, with _links.up to the API index', async () => {
    const response = await server.request('/calendar/events/v1');
    assert.equal(response.status, 200);
    assert.equal(response.body.namespace, 'calendar/events/v1');
    assert.deepEqual(response.body._links.up, [{ href: `${server.url}/` }]);
    const registered = server.server.app.printRoutes({ commonPrefix: false }).includes('calendar/events/v1');
    assert.ok(registered);
    const whole = await server.request('/docs/openapi.json');
    const calendarPaths = Object.keys(whole.body.paths).filter((path) => path.startsWith('/calendar/events/v1'));
    const wpKeys = Object.keys(response.body.routes);
    assert.equal(wpKeys.length, new Set(calendarPaths.map((path) => path.replace(/\/$/, ''))).size);
    for (const key of ['/calendar/events/v1', '/calendar/events/v1/doc']) assert.ok(wpKeys.includes(key), key);
    assert.deepEqual(response.body.routes['/calendar/events/v1/doc'].endpoints[0].methods, ['GET']);
  });

  it('serves a valid OpenAPI 3.1 document of the namespace at /doc, rooted at the namespace', async () => {
    const response = await server.request('/calendar/events/v1/doc');
    assert.equal(response.status, 200);
    assert.equal(response.body.openapi, '3.1.0');
    assert.equal(response.body.servers[0].url, `${server.url}/calendar/events/v1/`, "the reference's REST root, with its trailing slash");
    assert.ok(response.body.paths['/doc']);
    await SwaggerParser.validate(structuredClone(response.body));
    const text = JSON.stringify(response.body);
    assert.doesNotMatch(text, /"[^"]* ":/, 'no key with a trailing space');
  });

  it('serves a valid whole-service OpenAPI document with Basic and Bearer security schemes', async () => {
    const response = await server.request('/docs/openapi.json');
    assert.equal(response.status, 200);
    await SwaggerParser.validate(structuredClone(response.body));
    assert.deepEqual(Object.keys(response.body.components.securitySchemes).sort(), ['basicAuth', 'bearerAuth']);
    const ui = await server.request('/docs/');
    assert.equal(ui.status, 200);
    assert.match(ui.text, /swagger/i);
    // The UI's page keeps a policy of its own (scripts and styles of the UI), not the API's `default-src 'none'`.
    assert.match(ui.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  });

  it('without CORS_ORIGINS, adds no CORS headers: a preflight is a plain OPTIONS (the route description)', async () => {
    const read = await server.request('/calendar/events/v1', { headers: { origin: 'https://app.example' } });
    assert.equal(read.status, 200);
    assert.equal(read.headers.get('access-control-allow-origin'), null);
    const preflight = await server.request('/calendar/events/v1/events', {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.status, 200);
    assert.deepEqual(preflight.body.methods, ['GET', 'POST']);
    assert.equal(preflight.headers.get('access-control-allow-origin'), null);
    assert.equal(preflight.headers.get('access-control-allow-methods'), null);
    assert.equal(preflight.headers.get('x-content-type-options'), 'nosniff');
  });
});

describe('constraint errors', () => {
  it('are a 409 Conflict (a concurrent write), never a 500: a constraint only a concurrent change can break', () => {
    const sqlite = Object.assign(new Error('FOREIGN KEY constraint failed'), { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    const postgres = Object.assign(new Error('duplicate key value violates unique constraint "slugs_pkey"'), {
      code: '23505',
      constraint: 'slugs_pkey',
    });
    for (const error of [sqlite, postgres]) {
      const classified = classifyError(error);
      assert.ok(classified instanceof ConflictError);
      assert.equal(classified.status, 409);
      assert.equal(classified.reason, 'concurrent_write');
    }
    const unexpected = classifyError(new Error('boom'));
    assert.ok(unexpected instanceof InternalError);
    assert.equal(unexpected.status, 500);
  });
});
