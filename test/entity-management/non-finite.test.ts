/**
 * Non-finite numbers (issue 19): `1e309` reads as Infinity, which a record
 * stored as null while the filter and sort index kept Inf. Every way a
 * number reaches this surface refuses it by name and writes nothing; large
 * finite numbers stay numbers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { saveAction } from '../../src/entity-management/actions/actions.repository.ts';
import { startTestServer, type Credentials, type TestServer, type TestResponse } from '../helpers/server.ts';
import { ACTIONS, ENTITIES, makeActionRow, makeCustomer, uniqueKey } from './factories.ts';

/** JSON number literals that parse to ±Infinity (JSON has no NaN). */
const JSON_LITERALS = ['1e309', '-1e309'];
/** Text a form, a query string or a JSON string carries. */
const TEXTS = ['1e309', '-1e309', 'Infinity', '-Infinity', 'NaN'];

describe('non-finite numbers on the entity-management surface', () => {
  let server: TestServer;
  let editor: Credentials;

  before(async () => {
    server = await startTestServer();
    editor = await server.createUser('editor');
  });
  after(async () => server.close());

  const sendJson = (method: string, path: string, text: string) =>
    server.request(path, { method, body: text, auth: editor, headers: { 'content-type': 'application/json' } });
  const sendForm = (method: string, path: string, form: Record<string, string>) => server.request(path, { method, form, auth: editor });
  const read = (type: string, key: string) => server.request(`${ENTITIES}/${type}/${encodeURIComponent(key)}`, { auth: editor });

  async function create(type: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const response = await server.request(`${ENTITIES}/${type}`, { method: 'POST', body, auth: editor });
    assert.equal(response.status, 201, response.text);
    return response.body.payload;
  }

  /** A 400 INVALID_PARAMETER whose details name `name` (and the value it was sent as, in the failure message). */
  function assertRefused(response: TestResponse, name: string, sent: string): void {
    assert.equal(response.status, 400, `${name}=${sent}: ${response.text}`);
    assert.equal(response.body.payload, null);
    assert.equal(response.body.messages[0].code, 'INVALID_PARAMETER', sent);
    assert.ok(name in response.body.messages[0].details, `${name} in ${JSON.stringify(response.body.messages[0].details)}`);
  }

  /** The index never holds a number past the largest finite double. */
  async function assertIndexFinite(): Promise<void> {
    const { rows } = await sql<{ count: number | string }>`
      select count(*) as count from em_record_values where number_value > 1.7976931348623157e308 or number_value < -1.7976931348623157e308
    `.execute(server.server.store.db);
    assert.equal(Number(rows[0]?.count), 0);
  }

  it('refuses a JSON number that overflows to Infinity on create, naming the field, and stores nothing', async () => {
    for (const literal of JSON_LITERALS) {
      const key = uniqueKey('INF');
      assertRefused(
        await sendJson('POST', `${ENTITIES}/customers`, `{"key":"${key}","CompanyName":"Overflow","CreditLimit":${literal}}`),
        'CreditLimit',
        literal,
      );
      assert.equal((await read('customers', key)).status, 404);
      // In an unmapped or text field too: nothing would ever turn it back into a number.
      assertRefused(await sendJson('POST', `${ENTITIES}/customers`, `{"key":"${key}","CompanyName":${literal}}`), 'CompanyName', literal);
      assert.equal((await read('customers', key)).status, 404);
    }
    await assertIndexFinite();
  });

  it('refuses non-finite text in a number field on create, from a form or a JSON string, and stores nothing', async () => {
    for (const text of TEXTS) {
      const formKey = uniqueKey('INF');
      assertRefused(await sendForm('POST', `${ENTITIES}/customers`, { key: formKey, CreditLimit: text }), 'CreditLimit', text);
      assert.equal((await read('customers', formKey)).status, 404);
      const jsonKey = uniqueKey('INF');
      assertRefused(
        await server.request(`${ENTITIES}/todo`, { method: 'POST', body: { key: jsonKey, Priority: text }, auth: editor }),
        'Priority',
        text,
      );
      assert.equal((await read('todo', jsonKey)).status, 404);
    }
    await assertIndexFinite();
  });

  it('refuses non-finite values on both update routes and keeps the stored number', async () => {
    const customer = await create('customers', makeCustomer({ CreditLimit: 1500 }));
    const key = String(customer.key);
    for (const literal of JSON_LITERALS) {
      assertRefused(await sendJson('PUT', `${ENTITIES}/customers/${key}`, `{"CreditLimit":${literal}}`), 'CreditLimit', literal);
      assertRefused(await sendJson('PUT', `${ENTITIES}/customers`, `{"key":"${key}","CreditLimit":${literal}}`), 'CreditLimit', literal);
    }
    for (const text of TEXTS) {
      assertRefused(await sendForm('PUT', `${ENTITIES}/customers/${key}`, { CreditLimit: text }), 'CreditLimit', text);
      assertRefused(await sendForm('PUT', `${ENTITIES}/customers`, { key, CreditLimit: text }), 'CreditLimit', text);
      assertRefused(
        await server.request(`${ENTITIES}/customers/${key}`, { method: 'PUT', body: { CreditLimit: text }, auth: editor }),
        'CreditLimit',
        text,
      );
    }
    assert.equal((await read('customers', key)).body.payload.CreditLimit, 1500);
    await assertIndexFinite();
  });

  it('refuses non-finite filter values, page and per_page by name', async () => {
    for (const text of TEXTS) {
      const value = encodeURIComponent(text);
      assertRefused(
        await server.request(`${ENTITIES}/customers?filter%5BCreditLimit%5D=${value}`, { auth: editor }),
        'filter[CreditLimit]',
        text,
      );
      assertRefused(
        await server.request(`${ENTITIES}/todo?filter%5BPriority%5D=${value}&sort=-Priority`, { auth: editor }),
        'filter[Priority]',
        text,
      );
      assertRefused(await server.request(`${ENTITIES}/customers?page=${value}`, { auth: editor }), 'page', text);
      assertRefused(await server.request(`${ENTITIES}/customers?per_page=${value}`, { auth: editor }), 'per_page', text);
    }
  });

  it('refuses a non-finite number given to an action, and changes nothing', async () => {
    const item = await create('items', { key: uniqueKey('ART'), Description: 'Bullone M8', Price: 0.12 });
    for (const literal of JSON_LITERALS) {
      assertRefused(
        await sendJson('POST', `${ACTIONS}/ITEM_REPRICE/run`, `{"item":"${String(item.key)}","price":${literal}}`),
        'price',
        literal,
      );
    }
    for (const text of TEXTS) {
      const response = await sendForm('POST', `${ACTIONS}/ITEM_REPRICE/run`, { item: String(item.key), price: text });
      assert.equal(response.status, 422, response.text);
      assert.deepEqual(Object.keys(response.body.messages[0].details), ['price']);
    }
    assert.equal((await read('items', String(item.key))).body.payload.Price, 0.12);
  });

  it('refuses to load a stored action whose literal number is not finite', async () => {
    const params = [{ name: 'item', type: 'string', required: true }];
    const command = `{"steps":[{"op":"update","entity":"ARART","key":"{{item}}","values":{"PREZZ":1e309},"as":"item"}]}`;
    await saveAction(server.server.store.db, makeActionRow('INFINITE_PRICE', params, command));
    const response = await server.request(`${ACTIONS}/reload`, { method: 'POST', auth: await server.admin() });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.messages[0].code, 'RELOAD_REFUSED');
    assert.deepEqual(
      response.body.payload.errors.map((error: { code: string }) => error.code),
      ['INFINITE_PRICE'],
    );
    assert.equal((await server.request(`${ACTIONS}/INFINITE_PRICE`, { auth: editor })).status, 404);
  });

  it('keeps large finite numbers: stored, read, filtered and sorted as numbers', async () => {
    const json = await create('customers', makeCustomer({ CreditLimit: 1e308 }));
    const form = await sendForm('POST', `${ENTITIES}/customers`, { key: uniqueKey('BIG'), CreditLimit: '-1.5e308' });
    assert.equal(form.status, 201, form.text);
    assert.equal(json.CreditLimit, 1e308);
    assert.equal(form.body.payload.CreditLimit, -1.5e308);
    const filtered = await server.request(`${ENTITIES}/customers?filter%5BCreditLimit%5D=1e308`, { auth: editor });
    assert.equal(filtered.status, 200, filtered.text);
    assert.deepEqual(
      filtered.body.payload.map((record: { key: string }) => record.key),
      [json.key],
    );
    const sorted = await server.request(`${ENTITIES}/customers?sort=-CreditLimit&per_page=100`, { auth: editor });
    assert.equal(sorted.body.payload[0].key, json.key);
    assert.equal(sorted.body.payload.at(-1).key, form.body.payload.key);
    await assertIndexFinite();
  });
});
