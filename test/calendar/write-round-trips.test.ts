import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CalendarVersions } from '../../src/calendar/common/calendar-version.ts';
import { EventRepresentations } from '../../src/calendar/events/events.representations.ts';
import { EventsService } from '../../src/calendar/events/events.service.ts';
import { PostPasswords } from '../../src/calendar/posts/posts.passwords.ts';
import { cacheBudgets, ReadCache } from '../../src/platform/cache/read-cache.ts';
import { createDb, type Store } from '../../src/platform/db/database.ts';
import { dialect, startTestServer, type TestServer } from '../helpers/server.ts';
import { contextFor } from './context.helper.ts';

/**
 * Every statement a plain event write sends, transaction control included: on PostgreSQL each is a round trip
 * over the network, which SQLite in the process does not pay (its counts are reported, not bounded).
 */
/**
 * Round trips on PostgreSQL per plain write (measured 13, 12, 10 and 12 with a statement each; the goal is 4): a
 * write that needs more should say why here. A create inserts its row (with `begin`) and claims its slug behind it,
 * writes its texts with its answer's reads behind them, and commits; an update, a trash and a delete read the event
 * before their transaction, hold it (with what they read along), write (with the answer's reads behind, or the
 * delete's statements together), and commit. A create naming a venue, organizers and a category by id checks the
 * venue with its insert, the organizers with its texts, links them and the category behind with its answer's reads,
 * and then reads the texts of what the answer embeds; were a link asked for late, the answer would lack it.
 */
const BUDGETS = { create: 3, update: 4, trash: 4, delete: 4, 'create naming a venue, two organizers and a category by id': 4 };

describe('round trips of a plain event write', () => {
  let server: TestServer;
  let store: Store;
  let sent: string[] = [];
  before(async () => {
    server = await startTestServer();
    // The server's database opened again, as the server opens it, recording every statement sent to it.
    store = createDb(server.config.databaseUrl, { onStatement: (text, pipelined) => sent.push(pipelined ? `  + ${text}` : text) });
  });
  after(async () => {
    await store.close();
    await server.close();
  });

  it('creates, updates, trashes and deletes a plain event within its round-trip budget', async (t) => {
    const admin = await server.admin();
    const cache = new ReadCache(cacheBudgets(0, 0));
    const service = new EventsService({
      db: store.db,
      config: server.config,
      passwords: new PostPasswords(store.db, server.config),
      representations: new EventRepresentations(cache),
    });
    const versions = new CalendarVersions(store.db, cache);
    const editor = contextFor(server, { id: admin.id, username: 'admin', displayName: 'admin', role: 'administrator' }, { versions });
    const statementsOf = async (write: () => Promise<unknown>) => {
      sent = [];
      await write();
      return [...sent];
    };
    const schedule = { start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' };
    await service.createEvent({ title: 'Plain', ...schedule } as any, editor);
    // A venue named by id is checked as the insert goes out; a new event's terms named by ids are linked in one statement.
    const venue = (await server.request('/calendar/events/v1/venues', { method: 'POST', auth: admin, body: { venue: 'Hall' } })).body.id;
    const category = (await server.request('/calendar/events/v1/categories', { method: 'POST', auth: admin, body: { name: 'Music' } })).body
      .id;
    const organizers = await Promise.all(
      ['One', 'Two'].map(
        async (name) =>
          (await server.request('/calendar/events/v1/organizers', { method: 'POST', auth: admin, body: { organizer: name } })).body.id,
      ),
    );
    const linked = { title: 'Linked', ...schedule, venue, organizer: organizers, categories: [category] };
    await service.createEvent(linked as any, editor);
    let id = 0;
    const writes = {
      create: await statementsOf(async () => {
        id = (await service.createEvent({ title: 'Plain', ...schedule } as any, editor)).item.id;
      }),
      update: await statementsOf(() => service.updateEvent({ id }, { title: 'Plain, renamed' } as any, editor)),
      trash: await statementsOf(() => service.deleteEvent({ id }, {} as any, editor)),
      delete: await statementsOf(() => service.deleteEvent({ id }, { force: 'true' } as any, editor)),
      'create naming a venue, two organizers and a category by id': await statementsOf(async () => {
        const { item } = await service.createEvent(linked as any, editor);
        assert.deepEqual(
          [
            (item.venue as { id: number }).id,
            (item.organizer as { id: number }[]).map(({ id }) => id),
            item.categories.map(({ id }: { id: number }) => id),
          ],
          [venue, organizers, [category]],
        );
      }),
    };
    const { item } = await service.createEvent({ title: 'Plain', ...schedule } as any, editor);
    assert.equal(item.slug, 'plain-2', 'the slug of the event deleted is free again');
    // Creates of one tick share a transaction, each in a savepoint that travels with its statements.
    const batch = await statementsOf(async () => {
      const created = await Promise.all([1, 2, 3].map(() => service.createEvent({ title: 'Batched', ...schedule } as any, editor)));
      assert.deepEqual(
        created.map(({ item: { slug } }) => slug),
        ['batched', 'batched-2', 'batched-3'],
      );
    });
    assert.equal(batch.filter((text) => /^(\s+\+ )?savepoint/.test(text)).length, 3, batch.join('\n'));
    // A title with nothing left for a slug: the event's id is its slug, claimed once the id is known.
    const unnamed = (await service.createEvent({ title: '¿¡!', ...schedule } as any, editor)).item;
    assert.equal(unnamed.slug, String(unnamed.id));
    // A statement pipelined behind another of its connection took no round trip of its own.
    const roundTrips = (statements: readonly string[]) => statements.filter((text) => !text.startsWith('  + ')).length;
    const counts = Object.fromEntries(
      Object.entries({ ...writes, batch }).map(([kind, statements]) => [
        kind,
        { statements: statements.length, roundTrips: roundTrips(statements) },
      ]),
    );
    t.diagnostic(`${dialect}: ${JSON.stringify(counts)}`);
    if (dialect !== 'postgres') return;
    for (const [kind, statements] of Object.entries(writes)) {
      const budget = BUDGETS[kind as keyof typeof BUDGETS];
      assert.ok(
        roundTrips(statements) <= budget,
        `${kind}: ${roundTrips(statements)} round trips, budget ${budget}\n${statements.join('\n')}`,
      );
    }
    // Three creates in a batch cost their own round trips and one commit: no savepoint or release takes one.
    const batchBudget = 3 * (BUDGETS.create - 1) + 1;
    assert.ok(roundTrips(batch) <= batchBudget, `batch: ${roundTrips(batch)} round trips, budget ${batchBudget}\n${batch.join('\n')}`);
  });
});
