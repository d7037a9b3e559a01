import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { batchesInFlight, PingBatches } from '../../src/soap/ping-batches.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { countingStatements } from '../helpers/statements.ts';
import { envelope, listPings, pingBody, postSoap } from './soap-fixtures.ts';

const ping = (input: string) => ({ received_at: new Date().toISOString(), ping_input: input, username: null, client_address: '127.0.0.1' });

describe('group commit of pings', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  it('acknowledges every one of many concurrent pings, each stored once', async () => {
    const inputs = Array.from({ length: 40 }, (_, index) => `burst-${index}`);
    const responses = await Promise.all(inputs.map((input) => postSoap(server, envelope({ body: pingBody(input) }))));
    assert.ok(responses.every((response) => response.status === 202));
    const logged = (await listPings(server, '?per_page=100')).pings.map((entry) => entry.ping_input);
    assert.deepEqual([...logged].sort(), [...inputs].sort());
  });

  it('writes the pings of one tick with one statement, in arrival order', async () => {
    const counting = countingStatements(server.server.store.db);
    const batches = new PingBatches(counting.db);
    await Promise.all(['one', 'two', 'three'].map((input) => batches.write(ping(`ordered-${input}`))));
    assert.equal(counting.count(), 1);
    const ids = await server.server.store.db
      .selectFrom('soap_pings')
      .select(['id', 'ping_input'])
      .where('ping_input', 'like', 'ordered-%')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      ids.map((row) => row.ping_input),
      ['ordered-one', 'ordered-two', 'ordered-three'],
    );
  });

  it('stores each column of each ping of a batch as sent', async () => {
    const batches = new PingBatches(server.server.store.db);
    const sent = [
      { received_at: '2030-01-01T10:00:00.000Z', ping_input: 'columns-a', username: 'alice', client_address: '192.0.2.1' },
      { received_at: '2030-01-01T11:00:00.000Z', ping_input: 'columns-b', username: null, client_address: '2001:db8::2' },
    ];
    await Promise.all(sent.map((row) => batches.write(row)));
    const stored = await server.server.store.db
      .selectFrom('soap_pings')
      .select(['received_at', 'ping_input', 'username', 'client_address'])
      .where('ping_input', 'like', 'columns-%')
      .orderBy('id')
      .execute();
    assert.deepEqual(stored, sent);
  });

  it('while as many batches as it commits at once are being committed, gathers every ping that arrives into the next one', async () => {
    let statements = 0;
    // A slow database: each statement's answer takes 50 ms to come back, as over a network.
    const slow = server.server.store.db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        statements += 1;
        await sleep(50);
        return args.result;
      },
    });
    const inFlight = batchesInFlight(slow);
    const batches = new PingBatches(slow);
    const written: Promise<void>[] = [];
    for (let index = 0; index < inFlight + 4; index += 1) {
      written.push(batches.write(ping(`gathered-${index}`)));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(written);
    assert.equal(statements, inFlight + 1, 'a statement for each ping that found a batch free, one for the four that came after');
  });

  it('writes a batch larger than one statement holds, all or nothing', async () => {
    const db = server.server.store.db;
    const before = (await listPings(server)).total;
    const inputs = Array.from({ length: 1200 }, (_, index) => `large-${index}`);
    const batches = new PingBatches(db);
    await Promise.all(inputs.map((input) => batches.write(ping(input))));
    assert.equal((await listPings(server)).total, before + 1200);

    // One bad row in the second statement of such a batch: the first statement's rows go too.
    const failed = await Promise.allSettled(
      inputs.map((input, index) => batches.write(index === 700 ? { ...ping(input), ping_input: null as unknown as string } : ping(input))),
    );
    assert.ok(failed.every((result) => result.status === 'rejected'));
    assert.equal((await listPings(server)).total, before + 1200);
  });

  it('fails every ping of a batch that could not be committed, and stores none of them', async () => {
    const db = server.server.store.db;
    const before = (await listPings(server)).total;
    await sql`alter table soap_pings rename to soap_pings_away`.execute(db);
    try {
      const batches = new PingBatches(db);
      const results = await Promise.allSettled(['a', 'b', 'c'].map((input) => batches.write(ping(`lost-${input}`))));
      assert.deepEqual(
        results.map((result) => result.status),
        ['rejected', 'rejected', 'rejected'],
      );
    } finally {
      await sql`alter table soap_pings_away rename to soap_pings`.execute(db);
    }
    assert.equal((await listPings(server)).total, before);
  });
});
