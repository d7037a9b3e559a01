import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { saveAction } from '../../src/entity-management/actions/actions.repository.ts';
import { createDb, migrateToLatest } from '../../src/platform/db/database.ts';
import { MIGRATION_FOLDERS } from '../../src/migrations.ts';
import type { RunningServer } from '../../src/server.ts';
import { freshDatabase, startSecondServer, startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { ACTIONS, ENTITIES, makeActionRow, makeCustomer } from './factories.ts';

const run = promisify(execFile);

/** Longer than the definitions poll interval, with room for a slow machine. */
const PROPAGATION_MS = 10_000;

describe('entity-management definitions across processes', () => {
  let first: TestServer;
  let second: RunningServer;
  let admin: Credentials;

  before(async () => {
    first = await startTestServer();
    second = await startSecondServer(first);
    admin = await first.admin();
  });
  after(async () => {
    await second.close();
    await first.close();
  });

  const onSecond = (path: string) => first.request(`${second.url}${path}`, { auth: admin });

  async function eventually(check: () => Promise<boolean>): Promise<boolean> {
    const deadline = Date.now() + PROPAGATION_MS;
    while (Date.now() < deadline) {
      if (await check()) return true;
      await sleep(200);
    }
    return false;
  }

  it('a reload in one process reaches the other through the version stamp', async () => {
    await saveAction(
      first.server.store.db,
      makeActionRow('OPEN_TODOS', [], { steps: [{ op: 'list', entity: 'H3£TDO', filter: { T$STAT: 'OPEN' }, as: 'todos' }] }),
    );
    assert.equal((await onSecond(`${ACTIONS}/OPEN_TODOS`)).status, 404);
    const reloaded = await first.request(`${ACTIONS}/reload`, { method: 'POST', auth: admin });
    assert.equal(reloaded.body.messages[0].code, 'OK');
    // The second process looks for newer definitions now rather than at its next poll.
    await second.background.drain();
    assert.ok(await eventually(async () => (await onSecond(`${ACTIONS}/OPEN_TODOS`)).status === 200));
    const ran = await first.request(`${second.url}${ACTIONS}/OPEN_TODOS/run`, { method: 'POST', body: {}, auth: admin });
    assert.equal(ran.status, 200, ran.text);
  });

  it('a record written through one process is read at once through the other, which had cached it', async () => {
    const customer = makeCustomer({ CityCodeDescription: 'Cremona' });
    assert.equal((await first.request(`${ENTITIES}/customers`, { method: 'POST', auth: admin, body: customer })).status, 201);
    const read = async () => (await onSecond(`${ENTITIES}/customers/${String(customer.key)}?fields=CompanyName`)).body.payload.CompanyName;
    const listed = async () => (await onSecond(`${ENTITIES}/customers?filter[CityCodeDescription]=Cremona`)).body.messages[0].meta.total;
    assert.equal(await read(), 'Meccanica Rossi S.p.A.');
    assert.equal(await read(), 'Meccanica Rossi S.p.A.');
    const before = await listed();
    const renamed = await first.request(`${ENTITIES}/customers/${String(customer.key)}`, {
      method: 'PUT',
      auth: admin,
      body: { CompanyName: 'Fonderia Bianchi' },
    });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(await read(), 'Fonderia Bianchi');
    await first.request(`${ENTITIES}/customers`, { method: 'POST', auth: admin, body: makeCustomer({ CityCodeDescription: 'Cremona' }) });
    assert.equal(await listed(), before + 1);
  });

  it('a refused reload leaves every process on its old list', async () => {
    await saveAction(first.server.store.db, makeActionRow('HALF_BAKED', [], '{"steps": [{"op": "get"'));
    const refused = await first.request(`${ACTIONS}/reload`, { method: 'POST', auth: admin });
    assert.equal(refused.body.messages[0].code, 'RELOAD_REFUSED');
    const before = (await onSecond(ACTIONS)).body.payload.length;
    // The second process has looked for newer definitions since the refused reload.
    await second.background.drain();
    assert.equal((await onSecond(ACTIONS)).body.payload.length, before);
    assert.equal((await onSecond(`${ACTIONS}/HALF_BAKED`)).status, 404);
  });

  it('seeds definitions and demo records once when two processes seed an empty database together', async () => {
    const database = await freshDatabase();
    const store = createDb(database.url);
    try {
      await migrateToLatest(store.db, MIGRATION_FOLDERS);
      const env = { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'silent' };
      const seed = () => run(process.execPath, ['bin/almanac.js', 'seed', '--demo'], { env });
      const outputs = await Promise.all([seed(), seed()]);
      const created = outputs.map(({ stdout }) => Number(/(\d+) created/.exec(stdout)?.[1]));
      assert.equal(created[0]! + created[1]!, 109, outputs.map(({ stdout }) => stdout).join(' | '));

      const types = await store.db.selectFrom('em_entity_types').select('code').execute();
      assert.deepEqual(types.map((type) => type.code).sort(), ['ARART', 'CNCLI', 'CNCOL', 'H3£TDO', 'TACPG']);
      assert.equal((await store.db.selectFrom('em_actions').select('code').execute()).length, 5);
      assert.equal((await store.db.selectFrom('em_records').select('id').execute()).length, 109);
      const cities = await store.db.selectFrom('em_record_values').select('text_value').where('field_code', '=', 'D_I/57').execute();
      assert.ok(cities.some((city) => city.text_value === 'Brescia'));
    } finally {
      await store.close();
      await database.drop();
    }
  });
});
