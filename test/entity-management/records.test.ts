import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readRevision } from '../../src/platform/db/revisions.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { ACTIONS, ENTITIES, makeCustomer, makeTodo, uniqueKey } from './factories.ts';

describe('entity-management records', () => {
  let server: TestServer;
  let editor: Credentials;

  before(async () => {
    server = await startTestServer();
    editor = await server.createUser('editor');
  });
  after(async () => server.close());

  const create = async (type: string, body: Record<string, unknown>) => {
    const response = await server.request(`${ENTITIES}/${type}`, { method: 'POST', body, auth: editor });
    assert.equal(response.status, 201, response.text);
    return response.body.payload;
  };
  const list = (query: string) => server.request(`${ENTITIES}/customers?${query}`, { auth: editor });

  describe('cached reads', () => {
    it('serves a read from memory while the entities revision holds, and afresh once it moves', async () => {
      const db = server.server.store.db;
      const customer = await create('customers', makeCustomer());
      const read = async () =>
        (await server.request(`${ENTITIES}/customers/${String(customer.key)}`, { auth: editor })).body.payload.CompanyName;
      assert.equal(await read(), 'Meccanica Rossi S.p.A.');
      const revision = await readRevision(db, 'entities');
      const row = await db
        .selectFrom('em_records')
        .select(['id', 'data'])
        .where('record_key', '=', String(customer.key))
        .executeTakeFirstOrThrow();
      await db
        .updateTable('em_records')
        .set({ data: row.data.replace('Meccanica Rossi S.p.A.', 'Changed behind its back') })
        .where('id', '=', row.id)
        .execute();
      await db.updateTable('revisions').set({ value: revision }).where('name', '=', 'entities').execute();
      assert.equal(await read(), 'Meccanica Rossi S.p.A.', 'the answer came from memory');
      const anonymous = await server.request(`${ENTITIES}/customers/${String(customer.key)}`);
      assert.equal(anonymous.status, 401, 'who may not read is refused before any answer is looked up');
      await db
        .updateTable('revisions')
        .set({ value: revision + 1 })
        .where('name', '=', 'entities')
        .execute();
      assert.equal(await read(), 'Changed behind its back');
    });
  });

  describe('create', () => {
    it('creates a record with 201 and the CREATED envelope, returning readable names and unmapped codes', async () => {
      const body = makeCustomer({ ZONA: 'NORD' });
      const response = await server.request(`${ENTITIES}/customers`, { method: 'POST', body, auth: editor });
      assert.equal(response.status, 201);
      assert.deepEqual(response.body.messages, [{ level: 'info', code: 'CREATED', text: `Record ${String(body.key)} created` }]);
      assert.deepEqual(response.body.payload, body);
    });

    it('rejects a missing key with INVALID_PARAMETER and writes nothing', async () => {
      const response = await server.request(`${ENTITIES}/customers`, {
        method: 'POST',
        body: { CompanyName: 'No key' },
        auth: editor,
      });
      assert.equal(response.status, 400);
      assert.equal(response.body.messages[0].code, 'INVALID_PARAMETER');
      assert.deepEqual(response.body.messages[0].details, { key: 'is required' });
      assert.equal(response.body.payload, null);
      assert.equal((await list('q=No%20key')).body.messages[0].meta.total, 0);
    });

    it('answers KEY_CONFLICT 409 for a taken key and keeps the first record', async () => {
      const first = await create('customers', makeCustomer());
      const response = await server.request(`${ENTITIES}/customers`, {
        method: 'POST',
        body: makeCustomer({ key: first.key, CompanyName: 'Second' }),
        auth: editor,
      });
      assert.equal(response.status, 409);
      assert.equal(response.body.messages[0].code, 'KEY_CONFLICT');
      const stored = await server.request(`${ENTITIES}/customers/${first.key}`, { auth: editor });
      assert.equal(stored.body.payload.CompanyName, first.CompanyName);
    });

    it('allows one key in two different types', async () => {
      const key = uniqueKey('SHARED');
      await create('customers', makeCustomer({ key }));
      await create('items', { key, Description: 'Bullone M8', Price: 0.12 });
    });

    it('rejects an unknown field with FIELD_UNKNOWN naming it and the valid names', async () => {
      const response = await server.request(`${ENTITIES}/customers`, {
        method: 'POST',
        body: makeCustomer({ Town: 'Brescia' }),
        auth: editor,
      });
      assert.equal(response.status, 400);
      const [message] = response.body.messages;
      assert.equal(message.code, 'FIELD_UNKNOWN');
      assert.equal(message.details.field, 'Town');
      assert.ok(message.details.valid.includes('CityCodeDescription'));
      assert.ok(message.details.valid.includes('CDPAG'));
      assert.match(message.text, /Town/);
    });

    it('refuses a mapped field under its internal code: clients use readable names', async () => {
      const response = await server.request(`${ENTITIES}/customers`, {
        method: 'POST',
        body: { key: uniqueKey('C'), 'D_I/57': 'Brescia' },
        auth: editor,
      });
      assert.equal(response.status, 400);
      assert.equal(response.body.messages[0].code, 'FIELD_UNKNOWN');
    });

    it('rejects values of the wrong type naming each field', async () => {
      const response = await server.request(`${ENTITIES}/customers`, {
        method: 'POST',
        body: makeCustomer({ CreditLimit: 'lots', CompanyName: { nested: true } }),
        auth: editor,
      });
      assert.equal(response.status, 400);
      assert.equal(response.body.messages[0].code, 'INVALID_PARAMETER');
      assert.deepEqual(response.body.messages[0].details, { CreditLimit: 'must be a number', CompanyName: 'must be a string' });
    });

    it('accepts readable names case-insensitively and form bodies', async () => {
      const key = uniqueKey('C');
      const response = await server.request(`${ENTITIES}/CUSTOMERS`, {
        method: 'POST',
        form: { key, companyname: 'Tessile Bianchi S.r.l.', creditlimit: '2500.5' },
        auth: editor,
      });
      assert.equal(response.status, 201, response.text);
      assert.deepEqual(response.body.payload, { key, CompanyName: 'Tessile Bianchi S.r.l.', CreditLimit: 2500.5 });
    });
  });

  describe('get by key', () => {
    it('returns one record with the OK envelope', async () => {
      const customer = await create('customers', makeCustomer());
      const response = await server.request(`${ENTITIES}/customers/${customer.key}`, { auth: editor });
      assert.equal(response.status, 200);
      assert.deepEqual(response.body, { messages: [{ level: 'info', code: 'OK', text: '1 record' }], payload: customer });
    });

    it('projects mapped and unmapped fields with fields, comma-separated or repeated, always with key', async () => {
      const customer = await create('customers', makeCustomer({ ZONA: 'SUD' }));
      const commas = await server.request(`${ENTITIES}/customers/${customer.key}?fields=CityCodeDescription,CDPAG`, {
        auth: editor,
      });
      assert.deepEqual(commas.body.payload, { key: customer.key, CityCodeDescription: 'Brescia', CDPAG: 'RB30' });
      const repeated = await server.request(`${ENTITIES}/customers/${customer.key}?fields=cityCodeDescription&fields=ZONA`, {
        auth: editor,
      });
      assert.deepEqual(repeated.body.payload, { key: customer.key, CityCodeDescription: 'Brescia', ZONA: 'SUD' });
    });

    it('rejects an unknown projected field with FIELD_UNKNOWN', async () => {
      const customer = await create('customers', makeCustomer());
      const response = await server.request(`${ENTITIES}/customers/${customer.key}?fields=CompanyName,Nope`, { auth: editor });
      assert.equal(response.status, 400);
      assert.equal(response.body.messages[0].code, 'FIELD_UNKNOWN');
      assert.equal(response.body.messages[0].details.field, 'Nope');
      assert.equal(response.body.payload, null);
    });

    it('answers RECORD_NOT_FOUND 404 for a missing key', async () => {
      const response = await server.request(`${ENTITIES}/customers/NOPE-404`, { auth: editor });
      assert.equal(response.status, 404);
      assert.equal(response.body.messages[0].code, 'RECORD_NOT_FOUND');
      assert.equal(response.body.payload, null);
    });

    it('accepts the readable type name in any case', async () => {
      const customer = await create('customers', makeCustomer());
      const response = await server.request(`${ENTITIES}/cUsToMeRs/${customer.key}`, { auth: editor });
      assert.equal(response.status, 200);
    });

    it('answers ENTITY_TYPE_UNKNOWN 404 listing the five types', async () => {
      const response = await server.request(`${ENTITIES}/suppliers/X`, { auth: editor });
      assert.equal(response.status, 404);
      assert.equal(response.body.messages[0].code, 'ENTITY_TYPE_UNKNOWN');
      assert.deepEqual(response.body.messages[0].details.valid, ['collaborators', 'customers', 'items', 'projects', 'todo']);
      for (const type of ['collaborators', 'customers', 'items', 'projects', 'todo']) {
        assert.match(response.body.messages[0].text, new RegExp(type));
      }
    });

    it('never needs the internal code in a URL, and does not accept it as a type', async () => {
      const response = await server.request(`${ENTITIES}/${encodeURIComponent('H3£TDO')}`, { auth: editor });
      assert.equal(response.status, 404);
      assert.equal(response.body.messages[0].code, 'ENTITY_TYPE_UNKNOWN');
    });

    it('keys with slashes, spaces and non-ASCII characters round-trip through the path', async () => {
      const key = `C/${uniqueKey('città è')}`;
      await create('customers', makeCustomer({ key }));
      const response = await server.request(`${ENTITIES}/customers/${encodeURIComponent(key)}`, { auth: editor });
      assert.equal(response.status, 200);
      assert.equal(response.body.payload.key, key);
    });
  });

  describe('the Todo type (internal code H3£TDO)', () => {
    it('stores, lists, updates and deletes todos byte-exactly under their readable name', async () => {
      const todo = await create('todo', makeTodo({ T$NOTE: 'Sentire il cliente — “urgente”', Title: 'Perché? Ça va €' }));
      const got = await server.request(`${ENTITIES}/todo/${todo.key}`, { auth: editor });
      assert.deepEqual(got.body.payload, todo);
      assert.equal(got.body.payload.Title, 'Perché? Ça va €');
      assert.ok(!got.text.includes('H3£TDO'), 'the internal code does not leak into records');

      const listed = await server.request(`${ENTITIES}/Todo?filter[Title]=${encodeURIComponent('Perché? Ça va €')}`, { auth: editor });
      assert.deepEqual(listed.body.payload, [todo]);

      const updated = await server.request(`${ENTITIES}/todo/${todo.key}`, { method: 'PUT', body: { Status: 'DONE' }, auth: editor });
      assert.equal(updated.body.payload.Status, 'DONE');

      const deleted = await server.request(`${ENTITIES}/todo/${todo.key}`, { method: 'DELETE', auth: editor });
      assert.equal(deleted.status, 200);
    });

    it('keeps the code byte-exact in the database (UTF-8 C2 A3 for £)', async () => {
      const row = await server.server.store.db
        .selectFrom('em_entity_types')
        .select('code')
        .where('segment', '=', 'todo')
        .executeTakeFirstOrThrow();
      assert.equal(row.code, 'H3£TDO');
      assert.deepEqual([...Buffer.from(row.code, 'utf8')], [0x48, 0x33, 0xc2, 0xa3, 0x54, 0x44, 0x4f]);
      const action = await server.request(`${ACTIONS}/TODO_CLOSE`, { auth: editor });
      assert.equal(action.body.payload.command.steps[0].entity, 'H3£TDO');
    });
  });

  describe('update', () => {
    it('merges a PUT by path key: fields sent replace, fields omitted stay, null clears', async () => {
      const customer = await create('customers', makeCustomer({ ZONA: 'NORD' }));
      const response = await server.request(`${ENTITIES}/customers/${customer.key}`, {
        method: 'PUT',
        body: { CityCodeDescription: 'Bergamo', ZONA: null },
        auth: editor,
      });
      assert.equal(response.status, 200);
      assert.equal(response.body.messages[0].code, 'UPDATED');
      assert.deepEqual(response.body.payload, { ...customer, CityCodeDescription: 'Bergamo', ZONA: null });
      const stored = await server.request(`${ENTITIES}/customers/${customer.key}`, { auth: editor });
      assert.deepEqual(stored.body.payload, response.body.payload);
    });

    it('updates by the body key on PUT /{type}', async () => {
      const customer = await create('customers', makeCustomer());
      const response = await server.request(`${ENTITIES}/customers`, {
        method: 'PUT',
        body: { key: customer.key, CreditLimit: 99 },
        auth: editor,
      });
      assert.equal(response.status, 200);
      assert.equal(response.body.payload.CreditLimit, 99);
    });

    it('requires the body key on PUT /{type}', async () => {
      const response = await server.request(`${ENTITIES}/customers`, { method: 'PUT', body: { CreditLimit: 1 }, auth: editor });
      assert.equal(response.status, 400);
      assert.equal(response.body.messages[0].code, 'INVALID_PARAMETER');
    });

    it('answers KEY_MISMATCH when the body key differs from the path key, changing nothing', async () => {
      const customer = await create('customers', makeCustomer());
      const response = await server.request(`${ENTITIES}/customers/${customer.key}`, {
        method: 'PUT',
        body: { key: 'OTHER', CompanyName: 'Changed' },
        auth: editor,
      });
      assert.equal(response.status, 400);
      assert.equal(response.body.messages[0].code, 'KEY_MISMATCH');
      const stored = await server.request(`${ENTITIES}/customers/${customer.key}`, { auth: editor });
      assert.equal(stored.body.payload.CompanyName, customer.CompanyName);
    });

    it('accepts a body key equal to the path key', async () => {
      const customer = await create('customers', makeCustomer());
      const response = await server.request(`${ENTITIES}/customers/${customer.key}`, {
        method: 'PUT',
        body: { key: customer.key, Province: 'MI' },
        auth: editor,
      });
      assert.equal(response.status, 200);
    });

    it('answers RECORD_NOT_FOUND for a missing record, by path or body key', async () => {
      const byPath = await server.request(`${ENTITIES}/customers/MISSING`, { method: 'PUT', body: { Province: 'MI' }, auth: editor });
      assert.equal(byPath.status, 404);
      assert.equal(byPath.body.messages[0].code, 'RECORD_NOT_FOUND');
      const byBody = await server.request(`${ENTITIES}/customers`, { method: 'PUT', body: { key: 'MISSING' }, auth: editor });
      assert.equal(byBody.status, 404);
    });

    it('rejects an unknown field on update with FIELD_UNKNOWN and changes nothing', async () => {
      const customer = await create('customers', makeCustomer());
      const response = await server.request(`${ENTITIES}/customers/${customer.key}`, {
        method: 'PUT',
        body: { CompanyName: 'Changed', Nope: 1 },
        auth: editor,
      });
      assert.equal(response.status, 400);
      assert.equal(response.body.messages[0].code, 'FIELD_UNKNOWN');
      const stored = await server.request(`${ENTITIES}/customers/${customer.key}`, { auth: editor });
      assert.equal(stored.body.payload.CompanyName, customer.CompanyName);
    });
  });

  describe('delete', () => {
    it('deletes by query entity-key with DELETED and a null payload', async () => {
      const customer = await create('customers', makeCustomer());
      const response = await server.request(`${ENTITIES}/customers?entity-key=${customer.key}`, { method: 'DELETE', auth: editor });
      assert.equal(response.status, 200);
      assert.equal(response.body.messages[0].code, 'DELETED');
      assert.equal(response.body.payload, null);
      const gone = await server.request(`${ENTITIES}/customers/${customer.key}`, { auth: editor });
      assert.equal(gone.status, 404);
    });

    it('deletes by path key', async () => {
      const customer = await create('customers', makeCustomer());
      const response = await server.request(`${ENTITIES}/customers/${customer.key}`, { method: 'DELETE', auth: editor });
      assert.equal(response.status, 200);
      assert.equal(response.body.messages[0].code, 'DELETED');
    });

    it('requires entity-key on DELETE /{type}', async () => {
      const response = await server.request(`${ENTITIES}/customers`, { method: 'DELETE', auth: editor });
      assert.equal(response.status, 400);
      assert.equal(response.body.messages[0].code, 'INVALID_PARAMETER');
      assert.deepEqual(response.body.messages[0].details, { 'entity-key': 'is required' });
    });

    it('answers RECORD_NOT_FOUND for a missing record', async () => {
      const response = await server.request(`${ENTITIES}/customers/GONE`, { method: 'DELETE', auth: editor });
      assert.equal(response.status, 404);
      assert.equal(response.body.messages[0].code, 'RECORD_NOT_FOUND');
    });

    it('removes the record from filtered lists', async () => {
      const city = uniqueKey('Città');
      const customer = await create('customers', makeCustomer({ CityCodeDescription: city }));
      await server.request(`${ENTITIES}/customers/${customer.key}`, { method: 'DELETE', auth: editor });
      const listed = await list(`filter[CityCodeDescription]=${encodeURIComponent(city)}`);
      assert.deepEqual(listed.body.payload, []);
    });
  });

  describe('list', () => {
    it('pages in key order with meta, total_pages and X-Total-Count', async () => {
      const city = uniqueKey('Paging');
      const keys = ['P-05', 'P-01', 'P-04', 'P-02', 'P-03'].map((key) => `${city}-${key}`);
      for (const key of keys) await create('customers', makeCustomer({ key, CityCodeDescription: city }));
      const filter = `filter[CityCodeDescription]=${encodeURIComponent(city)}`;
      const first = await list(`${filter}&per_page=2`);
      assert.equal(first.status, 200);
      assert.deepEqual(
        first.body.payload.map((record: { key: string }) => record.key),
        [...keys].sort().slice(0, 2),
      );
      assert.deepEqual(first.body.messages[0], {
        level: 'info',
        code: 'OK',
        text: '2 of 5 records',
        meta: { page: 1, per_page: 2, total: 5, total_pages: 3 },
      });
      assert.equal(first.headers.get('x-total-count'), '5');
      const last = await list(`${filter}&per_page=2&page=3`);
      assert.deepEqual(
        last.body.payload.map((record: { key: string }) => record.key),
        [[...keys].sort()[4]],
      );
      const beyond = await list(`${filter}&per_page=2&page=9`);
      assert.deepEqual(beyond.body.payload, []);
      assert.equal(beyond.body.messages[0].meta.total, 5);
    });

    it('defaults to page 1 and 20 per page', async () => {
      const response = await list('');
      assert.equal(response.body.messages[0].meta.page, 1);
      assert.equal(response.body.messages[0].meta.per_page, 20);
    });

    it('rejects per_page above 100 and bad pages with INVALID_PARAMETER naming them', async () => {
      for (const [query, name] of [
        ['per_page=101', 'per_page'],
        ['per_page=0', 'per_page'],
        ['page=0', 'page'],
        ['page=abc', 'page'],
      ] as const) {
        const response = await list(query);
        assert.equal(response.status, 400, query);
        assert.equal(response.body.messages[0].code, 'INVALID_PARAMETER');
        assert.ok(name in response.body.messages[0].details, query);
      }
    });

    it('filters on mapped and unmapped fields, numbers and booleans, combined', async () => {
      const city = uniqueKey('Filtro');
      const a = await create('customers', makeCustomer({ CityCodeDescription: city, CDPAG: 'RB60', CreditLimit: 500 }));
      await create('customers', makeCustomer({ CityCodeDescription: city, CDPAG: 'RB30', CreditLimit: 500 }));
      await create('customers', makeCustomer({ CityCodeDescription: city, CDPAG: 'RB60', CreditLimit: 700 }));
      const cityFilter = `filter[CityCodeDescription]=${encodeURIComponent(city)}`;
      assert.equal((await list(cityFilter)).body.payload.length, 3);
      assert.equal((await list(`${cityFilter}&filter[CDPAG]=RB60`)).body.payload.length, 2);
      const both = await list(`${cityFilter}&filter[CDPAG]=RB60&filter[creditlimit]=500`);
      assert.deepEqual(both.body.payload, [a]);
      assert.deepEqual((await list(`filter[key]=${a.key}`)).body.payload, [a]);

      const collaborator = await create('collaborators', { key: uniqueKey('COL'), FullName: 'Sara Greco', Active: false });
      const inactive = await server.request(`${ENTITIES}/collaborators?filter[Active]=false`, { auth: editor });
      assert.deepEqual(inactive.body.payload, [collaborator]);
    });

    it('rejects a filter on an unknown field with FIELD_UNKNOWN and a bad filter value with INVALID_PARAMETER', async () => {
      const unknown = await list('filter[Town]=Brescia');
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.messages[0].code, 'FIELD_UNKNOWN');
      assert.equal(unknown.body.messages[0].details.field, 'Town');
      const bad = await list('filter[CreditLimit]=many');
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body.messages[0].details, { 'filter[CreditLimit]': 'must be a number' });
      const twice = await list('filter[CDPAG]=A&filter[CDPAG]=B');
      assert.equal(twice.status, 400);
      assert.deepEqual(twice.body.messages[0].details, { 'filter[CDPAG]': 'must be given once' });
    });

    it('sorts on mapped and unmapped fields, both ways, records without the field last', async () => {
      const city = uniqueKey('Sort');
      const make = (key: string, extra: Record<string, unknown>) =>
        create('customers', makeCustomer({ key: `${city}-${key}`, CityCodeDescription: city, ...extra }));
      await make('a', { CreditLimit: 300, ZONA: 'B' });
      await make('b', { CreditLimit: 1000, ZONA: 'A' });
      await make('c', { CreditLimit: 20, ZONA: 'C' });
      await make('d', { CreditLimit: null, ZONA: null });
      const keys = async (sort: string) =>
        (await list(`filter[CityCodeDescription]=${encodeURIComponent(city)}&sort=${sort}`)).body.payload.map((record: { key: string }) =>
          record.key.slice(-1),
        );
      assert.deepEqual(await keys('CreditLimit'), ['c', 'a', 'b', 'd'], 'numeric, not text, order');
      assert.deepEqual(await keys('-CreditLimit'), ['b', 'a', 'c', 'd']);
      assert.deepEqual(await keys('ZONA'), ['b', 'a', 'c', 'd']);
      assert.deepEqual(await keys('-ZONA'), ['c', 'a', 'b', 'd']);
      assert.deepEqual(await keys('-key'), ['d', 'c', 'b', 'a']);
      const unknown = await list('sort=-Nope');
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.messages[0].code, 'FIELD_UNKNOWN');
    });

    it('searches text fields case-insensitively with q, treating % and _ literally', async () => {
      const marker = uniqueKey('Zqx');
      const hit = await create('customers', makeCustomer({ CompanyName: `Officine ${marker.toUpperCase()} 100%_ok` }));
      await create('customers', makeCustomer({ CompanyName: 'Officine 100 ok' }));
      assert.deepEqual((await list(`q=${marker.toLowerCase()}`)).body.payload, [hit]);
      assert.deepEqual((await list(`q=${encodeURIComponent('100%_ok')}`)).body.payload, [hit]);
      assert.deepEqual((await list(`q=${encodeURIComponent('0%o')}`)).body.payload, []);
    });

    it('projects list records with fields', async () => {
      const city = uniqueKey('Proj');
      const customer = await create('customers', makeCustomer({ CityCodeDescription: city }));
      const response = await list(`filter[CityCodeDescription]=${encodeURIComponent(city)}&fields=CompanyName,CDPAG`);
      assert.deepEqual(response.body.payload, [{ key: customer.key, CompanyName: customer.CompanyName, CDPAG: 'RB30' }]);
      const unknown = await list('fields=CompanyName,Nope');
      assert.equal(unknown.body.messages[0].code, 'FIELD_UNKNOWN');
    });

    it('answers ENTITY_TYPE_UNKNOWN for an unknown type', async () => {
      const response = await server.request(`${ENTITIES}/widgets`, { auth: editor });
      assert.equal(response.status, 404);
      assert.equal(response.body.messages[0].code, 'ENTITY_TYPE_UNKNOWN');
    });
  });

  describe('routes outside the table', () => {
    it('answers ROUTE_NOT_FOUND in the envelope for unknown paths and methods', async () => {
      for (const [method, path] of [
        ['GET', `${ENTITIES}/customers/a/b`],
        ['PATCH', `${ENTITIES}/customers/a`],
        ['GET', '/apiservice/api/services/nothing'],
      ] as const) {
        const response = await server.request(path, { method, auth: editor });
        assert.equal(response.status, 404, `${method} ${path}`);
        assert.equal(response.body.messages[0].code, 'ROUTE_NOT_FOUND');
        assert.equal(response.body.payload, null);
      }
    });
  });
});
