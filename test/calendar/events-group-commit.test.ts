import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EventsService } from '../../src/calendar/events/events.service.ts';
import { PostPasswords } from '../../src/calendar/posts/posts.passwords.ts';
import { AppError } from '../../src/platform/errors.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { contextFor } from './context.helper.ts';

/** Event writes asked for in one tick of the event loop share one commit (platform/db/group-commit.ts). */
describe('event writes sent together', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  it('are stored each as if alone: a refused one leaves nothing, even after its first rows, and the others everything', async () => {
    const admin = await server.admin();
    const db = server.server.store.db;
    const service = new EventsService({ db, config: server.config, passwords: new PostPasswords(db, server.config) });
    const editor = contextFor(server, { id: admin.id, username: 'admin', displayName: 'admin', role: 'administrator' });
    const create = (title: string, fields: Record<string, unknown> = {}) =>
      service.createEvent({ title, start_date: '2031-03-01 10:00:00', end_date: '2031-03-01 11:00:00', ...fields } as any, editor);
    const eventIds = async () => (await db.selectFrom('events').select('id').execute()).map((row) => row.id);
    const before = await eventIds();

    const outcomes = await Promise.allSettled([
      create('Together one', { categories: ['Together'] }),
      // Refused once its event row, slug and texts are written: the organizers are resolved last.
      create('Together refused late', { organizer: [99_999_999] }),
      create('Together two'),
      create('Together refused early', { venue: 99_999_999 }),
      create('Together three', { categories: ['Together'] }),
    ]);

    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled'],
    );
    for (const index of [1, 3]) {
      const { reason } = outcomes[index] as PromiseRejectedResult;
      assert.ok(reason instanceof AppError && reason.status === 400, String(reason));
    }
    const made = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value.item] : []));
    assert.deepEqual(
      made.map((event) => event.title),
      ['Together one', 'Together two', 'Together three'],
    );
    const added = (await eventIds()).filter((id) => !before.includes(id));
    assert.deepEqual(added.sort(), made.map((event) => event.id).sort());
    const leftovers = await db
      .selectFrom('translations')
      .select('value')
      .where('value', 'like', 'Together refused%')
      .union(db.selectFrom('slugs').select('slug as value').where('slug', 'like', 'together-refused%'))
      .execute();
    assert.deepEqual(leftovers, []);
    // The category made by the first create is the one the last found: each saw what the others before it wrote.
    assert.equal(made[0]?.categories[0]?.id, made[2]?.categories[0]?.id);
  });
});
