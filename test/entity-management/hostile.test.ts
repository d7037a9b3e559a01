import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { ACTIONS, ENTITIES, makeCustomer, uniqueKey } from './factories.ts';

/** JSON text nested `depth` levels deep: {"a":{"a":…}}. */
function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

describe('entity-management hostile input', () => {
  let server: TestServer;
  let editor: Credentials;

  before(async () => {
    server = await startTestServer();
    editor = await server.createUser('editor');
  });
  after(async () => server.close());

  const raw = (method: string, path: string, body: string) =>
    server.request(path, { method, body, headers: { 'content-type': 'application/json' }, auth: editor });
  const count = async () => (await server.request(`${ENTITIES}/customers?per_page=1`, { auth: editor })).body.messages[0].meta.total;

  it('refuses bodies over 1 MiB with PAYLOAD_TOO_LARGE 413 and writes nothing', async () => {
    const before = await count();
    const huge = JSON.stringify(makeCustomer({ CompanyName: 'x'.repeat(1024 * 1024 + 10) }));
    for (const [method, path] of [
      ['POST', `${ENTITIES}/customers`],
      ['PUT', `${ENTITIES}/customers`],
      ['POST', `${ACTIONS}/CUSTOMERS_BY_CITY/run`],
    ] as const) {
      const response = await raw(method, path, huge);
      assert.equal(response.status, 413, `${method} ${path}`);
      assert.equal(response.body.messages[0].code, 'PAYLOAD_TOO_LARGE');
      assert.equal(response.body.payload, null);
    }
    assert.equal(await count(), before);
  });

  it('answers deeply nested JSON with a 4xx, never a 500', async () => {
    const deep = nested(20_000);
    // Past the JSON depth limit (test/platform/nesting-depth.test.ts), wherever the nesting is.
    const asField = await raw('POST', `${ENTITIES}/customers`, `{"key":"DEEP","CompanyName":${deep}}`);
    assert.equal(asField.status, 400);
    assert.deepEqual(asField.body.messages[0].details, { max_depth: 32 });
    const asBody = await raw('POST', `${ENTITIES}/customers`, deep);
    assert.equal(asBody.status, 400);
    const asParams = await raw('POST', `${ACTIONS}/CUSTOMERS_BY_CITY/run`, `{"city":${deep}}`);
    assert.equal(asParams.status, 400);
    const arrays = await raw('POST', `${ACTIONS}/CUSTOMERS_BY_CITY/run`, `${'['.repeat(50_000)}${']'.repeat(50_000)}`);
    assert.ok(arrays.status >= 400 && arrays.status < 500, String(arrays.status));
  });

  it('refuses prototype-pollution keys in bodies and pollutes nothing', async () => {
    const bodies = [
      '{"key":"PP1","__proto__":{"polluted":true}}',
      '{"key":"PP2","constructor":{"prototype":{"polluted":true}}}',
      '{"key":"PP3","CompanyName":"x","__proto__":{"isAdmin":true}}',
    ];
    for (const body of bodies) {
      const response = await raw('POST', `${ENTITIES}/customers`, body);
      assert.equal(response.status, 400, body);
      assert.equal(response.body.messages[0].code, 'INVALID_PARAMETER');
    }
    const run = await raw('POST', `${ACTIONS}/CUSTOMERS_BY_CITY/run`, '{"city":"Brescia","__proto__":{"polluted":true}}');
    assert.equal(run.status, 400);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(({} as Record<string, unknown>).isAdmin, undefined);
  });

  it('treats __proto__ and constructor in names as unknown fields and in keys as plain keys', async () => {
    for (const query of ['filter[__proto__]=x', 'filter[constructor]=x', 'fields=__proto__', 'sort=constructor', 'sort=-__proto__']) {
      const response = await server.request(`${ENTITIES}/customers?${query}`, { auth: editor });
      assert.equal(response.status, 400, query);
      assert.equal(response.body.messages[0].code, 'FIELD_UNKNOWN', query);
    }
    const type = await server.request(`${ENTITIES}/__proto__`, { auth: editor });
    assert.equal(type.status, 404);
    assert.equal(type.body.messages[0].code, 'ENTITY_TYPE_UNKNOWN');
    const action = await server.request(`${ACTIONS}/__proto__/run`, { method: 'POST', body: {}, auth: editor });
    assert.equal(action.status, 404);
    assert.equal(action.body.messages[0].code, 'ACTION_NOT_FOUND');
    const form = await server.request(`${ENTITIES}/customers`, { method: 'POST', form: { key: 'FORM-PP', __proto__: 'x' }, auth: editor });
    assert.ok(form.status === 400 || form.status === 201, String(form.status));

    for (const key of ['__proto__', 'constructor', 'toString']) {
      const created = await server.request(`${ENTITIES}/customers`, { method: 'POST', body: makeCustomer({ key }), auth: editor });
      assert.equal(created.status, 201, key);
      const got = await server.request(`${ENTITIES}/customers/${key}`, { auth: editor });
      assert.equal(got.body.payload.key, key);
    }
  });

  it('treats injection strings in filters, search, keys and values as plain data', async () => {
    const injections = [
      "' OR '1'='1",
      "'; DROP TABLE em_records; --",
      '" OR 1=1 --',
      '%',
      '_',
      '\\',
      '$(rm -rf /)',
      '`id`',
      '{{city}}',
      '${process.exit(1)}',
      '<script>alert(1)</script>',
      "Robert'); DELETE FROM em_record_values; --",
    ];
    const city = uniqueKey('Inj');
    const victim = await server.request(`${ENTITIES}/customers`, {
      method: 'POST',
      body: makeCustomer({ CityCodeDescription: city }),
      auth: editor,
    });
    assert.equal(victim.status, 201);
    for (const text of injections) {
      const encoded = encodeURIComponent(text);
      const filtered = await server.request(`${ENTITIES}/customers?filter[CompanyName]=${encoded}&filter[CDPAG]=${encoded}`, {
        auth: editor,
      });
      assert.equal(filtered.status, 200, text);
      assert.deepEqual(filtered.body.payload, [], text);
      const searched = await server.request(`${ENTITIES}/customers?q=${encoded}&filter[CityCodeDescription]=${city}`, { auth: editor });
      assert.equal(searched.status, 200, text);
      assert.deepEqual(searched.body.payload, [], text);
      const byKey = await server.request(`${ENTITIES}/customers/${encoded}`, { auth: editor });
      assert.equal(byKey.status, 404, text);

      const key = `${uniqueKey('K')}${text}`;
      const created = await server.request(`${ENTITIES}/customers`, {
        method: 'POST',
        body: makeCustomer({ key, CompanyName: text, CDPAG: text }),
        auth: editor,
      });
      assert.equal(created.status, 201, text);
      const got = await server.request(`${ENTITIES}/customers/${encodeURIComponent(key)}`, { auth: editor });
      assert.equal(got.body.payload.CompanyName, text);
      const exact = await server.request(`${ENTITIES}/customers?filter[key]=${encodeURIComponent(key)}&filter[CompanyName]=${encoded}`, {
        auth: editor,
      });
      assert.equal(exact.body.payload.length, 1, text);
    }
    const still = await server.request(`${ENTITIES}/customers/${encodeURIComponent(String(victim.body.payload.key))}`, { auth: editor });
    assert.equal(still.status, 200, 'the tables are intact');
  });

  it('refuses NUL characters in keys, values, filters, search and action parameters with a 4xx', async () => {
    const nul = '\u0000';
    const responses = [
      await server.request(`${ENTITIES}/customers`, { method: 'POST', body: makeCustomer({ key: `A${nul}B` }), auth: editor }),
      await server.request(`${ENTITIES}/customers`, { method: 'POST', body: makeCustomer({ CompanyName: `A${nul}` }), auth: editor }),
      await server.request(`${ENTITIES}/customers/A%00B`, { auth: editor }),
      await server.request(`${ENTITIES}/customers?entity-key=A%00B`, { method: 'DELETE', auth: editor }),
      await server.request(`${ENTITIES}/customers?filter[CompanyName]=A%00B`, { auth: editor }),
      await server.request(`${ENTITIES}/customers?q=%00`, { auth: editor }),
      await server.request(`${ACTIONS}/CUSTOMERS_BY_CITY/run`, { method: 'POST', body: { city: `Bre${nul}scia` }, auth: editor }),
    ];
    for (const response of responses) {
      assert.ok(response.status === 400 || response.status === 422, `${response.status} ${response.text}`);
    }
  });

  it('answers malformed JSON, wrong content types and absurd parameters with 4xx', async () => {
    const malformed = await raw('POST', `${ENTITIES}/customers`, '{"key": "X",');
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.messages[0].code, 'INVALID_PARAMETER');
    const xml = await server.request(`${ENTITIES}/customers`, {
      method: 'POST',
      body: '<customer/>',
      headers: { 'content-type': 'application/xml' },
      auth: editor,
    });
    assert.equal(xml.status, 415);
    assert.equal(xml.body.messages[0].code, 'UNSUPPORTED_MEDIA_TYPE');
    const array = await raw('POST', `${ENTITIES}/customers`, '[{"key":"X"}]');
    assert.equal(array.status, 400);
    for (const query of [
      'page=99999999999999999999',
      'per_page=-1',
      'per_page=1e3',
      `q=${'x'.repeat(5000)}`,
      `fields=${'a,'.repeat(500)}`,
    ]) {
      const response = await server.request(`${ENTITIES}/customers?${query}`, { auth: editor });
      assert.equal(response.status, 400, query);
    }
    const longKey = await server.request(`${ENTITIES}/customers/${'k'.repeat(400)}`, { auth: editor });
    assert.equal(longKey.status, 400);
  });
});
