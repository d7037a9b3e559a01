import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { saveAction } from '../../src/entity-management/actions/actions.repository.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { ACTIONS, ENTITIES, makeActionRow, makeCustomer, makeTodo, uniqueKey } from './factories.ts';

const SEEDED = ['CUSTOMERS_BY_CITY', 'ITEM_REPRICE', 'PROJECT_KICKOFF', 'PROJECT_SUMMARY', 'TODO_CLOSE'];

describe('entity-management actions', () => {
  let server: TestServer;
  let admin: Credentials;
  let editor: Credentials;
  let subscriber: Credentials;

  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
    editor = await server.createUser('editor');
    subscriber = await server.createUser('subscriber');
  });
  after(async () => server.close());

  const create = async (type: string, body: Record<string, unknown>) => {
    const response = await server.request(`${ENTITIES}/${type}`, { method: 'POST', body, auth: editor });
    assert.equal(response.status, 201, response.text);
    return response.body.payload;
  };
  const run = (code: string, body: unknown, auth: Credentials = editor) =>
    server.request(`${ACTIONS}/${code}/run`, { method: 'POST', body, auth });
  const get = async (type: string, key: string) => server.request(`${ENTITIES}/${type}/${encodeURIComponent(key)}`, { auth: editor });
  const reload = () => server.request(`${ACTIONS}/reload`, { method: 'POST', auth: admin });

  describe('list and get', () => {
    it('lists the seeded actions with their commands and required rights', async () => {
      const response = await server.request(ACTIONS, { auth: subscriber });
      assert.equal(response.status, 200);
      assert.equal(response.body.messages[0].code, 'OK');
      const codes = response.body.payload.map((action: { code: string }) => action.code);
      for (const code of SEEDED) assert.ok(codes.includes(code), code);
      const byCity = response.body.payload.find((action: { code: string }) => action.code === 'CUSTOMERS_BY_CITY');
      assert.deepEqual(byCity.params, [{ name: 'city', type: 'string', required: true, description: 'City, e.g. Brescia.' }]);
      assert.deepEqual(byCity.command.steps[0], { op: 'list', entity: 'CNCLI', filter: { 'D_I/57': '{{city}}' }, as: 'customers' });
      assert.equal(byCity.requires, 'entities_read');
      const close = response.body.payload.find((action: { code: string }) => action.code === 'TODO_CLOSE');
      assert.equal(close.requires, 'entities_write');
    });

    it('gets each seeded action with its command', async () => {
      for (const code of SEEDED) {
        const response = await server.request(`${ACTIONS}/${code}`, { auth: subscriber });
        assert.equal(response.status, 200, code);
        assert.equal(response.body.payload.code, code);
        assert.ok(Array.isArray(response.body.payload.command.steps));
      }
    });

    it('answers ACTION_NOT_FOUND 404 for an unknown action, on get and run', async () => {
      const got = await server.request(`${ACTIONS}/NOPE`, { auth: editor });
      assert.equal(got.status, 404);
      assert.equal(got.body.messages[0].code, 'ACTION_NOT_FOUND');
      const ran = await run('NOPE', {});
      assert.equal(ran.status, 404);
      assert.equal(ran.body.messages[0].code, 'ACTION_NOT_FOUND');
    });
  });

  describe('running the seeded actions', () => {
    it('CUSTOMERS_BY_CITY lists the customers of a city in readable names', async () => {
      const city = uniqueKey('Lecco');
      const a = await create('customers', makeCustomer({ key: `${city}-1`, CityCodeDescription: city }));
      const b = await create('customers', makeCustomer({ key: `${city}-2`, CityCodeDescription: city }));
      await create('customers', makeCustomer({ CityCodeDescription: 'Elsewhere' }));
      const response = await run('CUSTOMERS_BY_CITY', { city }, subscriber);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.messages[0].code, 'OK');
      assert.deepEqual(response.body.payload, { customers: [a, b] });
    });

    it('TODO_CLOSE marks a todo done', async () => {
      const todo = await create('todo', makeTodo());
      const response = await run('TODO_CLOSE', { key: todo.key });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body.payload, { todo: { ...todo, Status: 'DONE' } });
      assert.equal((await get('todo', todo.key)).body.payload.Status, 'DONE');
    });

    it('TODO_CLOSE of a missing todo is ACTION_FAILED 409 naming the step', async () => {
      const response = await run('TODO_CLOSE', { key: 'NO-SUCH-TODO' });
      assert.equal(response.status, 409);
      assert.equal(response.body.messages[0].code, 'ACTION_FAILED');
      assert.equal(response.body.messages[0].details.step, 1);
      assert.equal(response.body.payload, null);
    });

    it('PROJECT_SUMMARY returns the project and its open todos by priority', async () => {
      const project = await create('projects', { key: uniqueKey('PRJ'), Name: 'Portale clienti', Status: 'OPEN' });
      const low = await create('todo', makeTodo({ Project: project.key, Priority: 4 }));
      const high = await create('todo', makeTodo({ Project: project.key, Priority: 1 }));
      await create('todo', makeTodo({ Project: project.key, Status: 'DONE' }));
      await create('todo', makeTodo({ Project: 'OTHER', Priority: 1 }));
      const response = await run('PROJECT_SUMMARY', { project: project.key }, subscriber);
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body.payload, { project, open_todos: [high, low] });
    });

    it('ITEM_REPRICE sets the price of an item', async () => {
      const item = await create('items', { key: uniqueKey('ART'), Description: 'Dado M8', Price: 0.05 });
      const response = await run('ITEM_REPRICE', { item: item.key, price: 0.07 });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.payload.item.Price, 0.07);
    });

    it('PROJECT_KICKOFF creates a project and its kick-off todo in one go', async () => {
      const key = uniqueKey('PRJ');
      const response = await run('PROJECT_KICKOFF', { project: key, name: 'Magazzino', manager: 'COL001' });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body.payload.project, { key, Name: 'Magazzino', Status: 'OPEN', Manager: 'COL001' });
      assert.equal(response.body.payload.todo.key, `${key}-KICKOFF`);
      assert.equal(response.body.payload.todo.Title, 'Kick-off meeting: Magazzino');
      assert.equal(response.body.payload.todo.Priority, 1);
      assert.equal((await get('todo', `${key}-KICKOFF`)).status, 200);
    });

    it('rolls the whole command back when a later step fails', async () => {
      const key = uniqueKey('PRJ');
      await create('todo', makeTodo({ key: `${key}-KICKOFF` }));
      const response = await run('PROJECT_KICKOFF', { project: key, name: 'Doomed', manager: 'COL001', customer: 'C0001' });
      assert.equal(response.status, 409);
      assert.equal(response.body.messages[0].code, 'ACTION_FAILED');
      assert.equal(response.body.messages[0].details.step, 2);
      assert.match(response.body.messages[0].text, /nothing was changed/);
      assert.equal((await get('projects', key)).status, 404, 'the project of step 1 was rolled back');
    });
  });

  describe('parameter validation', () => {
    it('reports missing, wrong-type and extra parameters together with ACTION_PARAMS_INVALID 422', async () => {
      const response = await run('ITEM_REPRICE', { price: 'cheap', colour: 'red' });
      assert.equal(response.status, 422);
      const [message] = response.body.messages;
      assert.equal(message.code, 'ACTION_PARAMS_INVALID');
      assert.deepEqual(message.details, {
        item: 'is required',
        price: 'must be a number',
        colour: 'is not a parameter of this action',
      });
      assert.equal(response.body.payload, null);
    });

    it('rejects a body that is not a JSON object, and an empty body when parameters are required', async () => {
      for (const body of [[1, 2], 'text', 42]) {
        const response = await server.request(`${ACTIONS}/CUSTOMERS_BY_CITY/run`, {
          method: 'POST',
          body: JSON.stringify(body),
          headers: { 'content-type': 'application/json' },
          auth: editor,
        });
        assert.equal(response.status, 422, JSON.stringify(body));
        assert.equal(response.body.messages[0].code, 'ACTION_PARAMS_INVALID');
      }
      const empty = await server.request(`${ACTIONS}/CUSTOMERS_BY_CITY/run`, { method: 'POST', auth: editor });
      assert.equal(empty.status, 422);
      assert.deepEqual(empty.body.messages[0].details, { city: 'is required' });
    });

    it('does not run anything when the parameters are invalid', async () => {
      const key = uniqueKey('PRJ');
      const response = await run('PROJECT_KICKOFF', { project: key, name: 'X', manager: 7 });
      assert.equal(response.status, 422);
      assert.equal((await get('projects', key)).status, 404);
    });

    it('treats parameter values as data: placeholders and SQL in values are stored verbatim', async () => {
      const todo = await create('todo', makeTodo());
      const city = "'; DROP TABLE em_records; -- {{city}}";
      const response = await run('CUSTOMERS_BY_CITY', { city });
      assert.equal(response.status, 200);
      assert.deepEqual(response.body.payload, { customers: [] });
      const key = uniqueKey('PRJ');
      const kickoff = await run('PROJECT_KICKOFF', { project: key, name: '{{manager}} ${process.exit()}', manager: 'COL002' });
      assert.equal(kickoff.status, 200, kickoff.text);
      assert.equal(kickoff.body.payload.project.Name, '{{manager}} ${process.exit()}');
      assert.equal((await get('todo', todo.key)).status, 200);
    });
  });

  describe('rights', () => {
    it('lets a subscriber run read-only actions but not ones with write steps', async () => {
      const read = await run('CUSTOMERS_BY_CITY', { city: 'Brescia' }, subscriber);
      assert.equal(read.status, 200);
      const todo = await create('todo', makeTodo());
      const write = await run('TODO_CLOSE', { key: todo.key }, subscriber);
      assert.equal(write.status, 403);
      assert.equal(write.body.messages[0].code, 'FORBIDDEN');
      assert.equal((await get('todo', todo.key)).body.payload.Status, 'OPEN');
    });

    it('reserves reload to administrators', async () => {
      const response = await server.request(`${ACTIONS}/reload`, { method: 'POST', auth: editor });
      assert.equal(response.status, 403);
      assert.equal(response.body.messages[0].code, 'FORBIDDEN');
    });
  });

  describe('reload', () => {
    it('loads actions written to the back-end only when reloaded', async () => {
      await saveAction(
        server.server.store.db,
        makeActionRow('ITEMS_OF_TYPE', [{ name: 'type', type: 'string', required: true }], {
          steps: [{ op: 'list', entity: 'ARART', filter: { TIPAR: '{{type}}' }, sort: '-PREZZ', limit: 5, as: 'items' }],
        }),
      );
      assert.equal((await server.request(`${ACTIONS}/ITEMS_OF_TYPE`, { auth: editor })).status, 404);
      const response = await reload();
      assert.equal(response.status, 200);
      assert.equal(response.body.messages[0].code, 'OK');
      assert.deepEqual(response.body.payload.errors, []);
      assert.equal(response.body.payload.loaded, SEEDED.length + 1);
      const ran = await run('ITEMS_OF_TYPE', { type: 'SERVICE' });
      assert.equal(ran.status, 200, ran.text);
      assert.deepEqual(ran.body.payload, { items: [] });
    });

    it('reports each broken definition and keeps the old list', async () => {
      const before = (await server.request(ACTIONS, { auth: editor })).body.payload;
      const validParams = [{ name: 'key', type: 'string', required: true }];
      const broken: Array<[string, unknown, unknown, RegExp]> = [
        ['BROKEN_JSON', validParams, '{"steps": [', /not valid JSON/],
        ['BROKEN_ENTITY', validParams, { steps: [{ op: 'get', entity: 'NOPE', key: '{{key}}' }] }, /unknown entity code/],
        [
          'BROKEN_FIELD',
          validParams,
          { steps: [{ op: 'update', entity: 'H3£TDO', key: '{{key}}', values: { NOPE: 1 } }] },
          /unknown field/,
        ],
        ['BROKEN_PLACEHOLDER', validParams, { steps: [{ op: 'get', entity: 'CNCLI', key: '{{other}}' }] }, /not a declared parameter/],
        ['BROKEN_OP', validParams, { steps: [{ op: 'sql', entity: 'CNCLI', query: 'DROP TABLE x' }] }, /op must be one of/],
        [
          'BROKEN_TYPE',
          [{ name: 'n', type: 'number', required: true }],
          { steps: [{ op: 'list', entity: 'CNCLI', filter: { RAGSO: '{{n}}' } }] },
          /does not fit/,
        ],
        ['BROKEN_PARAMS', [{ name: 'x', type: 'date', required: true }], { steps: [{ op: 'get', entity: 'CNCLI', key: 'C1' }] }, /params/],
        ['BROKEN_EXTRA', validParams, { steps: [{ op: 'get', entity: 'CNCLI', key: '{{key}}', shell: 'rm -rf /' }] }, /step 1/],
      ];
      for (const [code, params, command] of broken) await saveAction(server.server.store.db, makeActionRow(code, params, command));

      const response = await reload();
      assert.equal(response.status, 200);
      assert.equal(response.body.messages[0].level, 'warning');
      assert.equal(response.body.messages[0].code, 'RELOAD_REFUSED');
      assert.equal(response.body.payload.loaded, before.length);
      const errors = new Map(response.body.payload.errors.map((error: { code: string; error: string }) => [error.code, error.error]));
      for (const [code, , , pattern] of broken) assert.match(String(errors.get(code)), pattern, code);

      const after = (await server.request(ACTIONS, { auth: editor })).body.payload;
      assert.deepEqual(after, before, 'the old list stays loaded');

      // Repair them (an operator's fix) and the next reload takes the whole new list.
      for (const [code] of broken) {
        await saveAction(
          server.server.store.db,
          makeActionRow(code, validParams, { steps: [{ op: 'get', entity: 'CNCLI', key: '{{key}}', as: 'customer' }] }),
        );
      }
      const repaired = await reload();
      assert.equal(repaired.body.messages[0].code, 'OK');
      assert.equal(repaired.body.payload.loaded, before.length + broken.length);
    });

    it('lets runs in flight finish on their definitions while reloads happen', async () => {
      const city = uniqueKey('Como');
      const customer = await create('customers', makeCustomer({ CityCodeDescription: city }));
      const items = await Promise.all(
        Array.from({ length: 5 }, (_, i) => create('items', { key: uniqueKey(`ART${i}`), Description: 'Vite', Price: 1 })),
      );
      const runs = [
        ...Array.from({ length: 15 }, () => run('CUSTOMERS_BY_CITY', { city })),
        ...items.map((item, i) => run('ITEM_REPRICE', { item: item.key, price: 2 + i })),
      ];
      const reloads = Array.from({ length: 3 }, () => reload());
      const results = await Promise.all(runs);
      for (const result of results) assert.equal(result.status, 200, result.text);
      for (const result of results.slice(0, 15)) assert.deepEqual(result.body.payload, { customers: [customer] });
      for (const result of await Promise.all(reloads)) assert.equal(result.body.messages[0].code, 'OK');
      for (const [i, item] of items.entries()) assert.equal((await get('items', item.key)).body.payload.Price, 2 + i);
    });
  });
});
