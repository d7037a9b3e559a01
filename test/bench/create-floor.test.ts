import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { measureCreateFloor, removeFloorCreates } from '../../bench/create-floor.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';

/** Every table a create of the floor writes a row to (translations: three). */
const TABLES = ['events', 'post_ids', 'slugs', 'translations', 'event_terms'] as const;

async function countRows(server: TestServer): Promise<Record<(typeof TABLES)[number], number>> {
  const counts = await Promise.all(
    TABLES.map(async (table) => {
      const row = await server.server.store.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return [table, Number(row.n)] as const;
    }),
  );
  return Object.fromEntries(counts) as Record<(typeof TABLES)[number], number>;
}

// The floor is only a floor if it writes what a create writes: events that read back whole through the API.
describe('the create floor of the benchmark', () => {
  let server: TestServer;
  let admin: Credentials;
  let venue: number;
  let category: { id: number; slug: string };

  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
    venue = (await server.request('/calendar/events/v1/venues', { method: 'POST', auth: admin, body: { venue: 'Floor Hall' } })).body.id;
    category = (await server.request('/calendar/events/v1/categories', { method: 'POST', auth: admin, body: { name: 'Floor music' } }))
      .body;
  });
  after(() => server.close());

  for (const batch of [1, 4]) {
    it(`writes published events with their texts, slug, venue and category, ${batch} per commit`, async () => {
      const before = (await server.request(`/calendar/events/v1/categories/${category.id}`)).body.count as number;
      const result = await measureCreateFloor(server.server.store, {
        seconds: 0.2,
        batch,
        concurrency: 2,
        venueId: venue,
        categorySlug: category.slug,
      });
      assert.ok(result.requests > 0, `${result.requests} creates`);
      assert.ok(result.p50Ms > 0 && result.p99Ms >= result.p50Ms);

      const counted = (await server.request(`/calendar/events/v1/categories/${category.id}`)).body.count;
      assert.equal(counted, before + result.requests, 'the term count triggers fired');
      const list = await server.request(`/calendar/events/v1/events?categories=${category.slug}&start_date=2027-06-01&per_page=1`);
      assert.equal(list.status, 200);
      assert.equal(list.body.total, before + result.requests);
      const [event] = list.body.events;
      assert.match(event.title, /^Floor create /);
      assert.equal(event.description, '<p>Created by npm run bench.</p>');
      assert.equal(event.author, String(admin.id));
      assert.equal(event.venue.id, venue);
      assert.deepEqual(
        event.categories.map((term: { id: number }) => term.id),
        [category.id],
      );
      const bySlug = await server.request(`/calendar/events/v1/events/by-slug/${event.slug}`);
      assert.equal(bySlug.status, 200);
      assert.equal(bySlug.body.id, event.id);
    });
  }

  it('removes every event it wrote, and their counts with them', async () => {
    const seeded = await server.request('/calendar/events/v1/events', {
      method: 'POST',
      auth: admin,
      body: {
        title: 'Not the floor',
        start_date: '2027-06-01 10:00:00',
        end_date: '2027-06-01 11:00:00',
        venue,
        categories: [category.id],
      },
    });
    assert.equal(seeded.status, 201);
    await measureCreateFloor(server.server.store, { seconds: 0.05, batch: 1, concurrency: 1, venueId: venue, categorySlug: category.slug });
    const written = (await server.request(`/calendar/events/v1/categories/${category.id}`)).body.count as number;
    const rowsBefore = await countRows(server);
    assert.equal(await removeFloorCreates(server.server.store), written - 1);
    const rowsAfter = await countRows(server);
    for (const table of TABLES)
      assert.equal(rowsBefore[table] - rowsAfter[table], table === 'translations' ? 3 * (written - 1) : written - 1, table);
    assert.equal((await server.request(`/calendar/events/v1/categories/${category.id}`)).body.count, 1);
    const list = await server.request(`/calendar/events/v1/events?categories=${category.slug}&start_date=2027-06-01`);
    assert.deepEqual(
      list.body.events.map((event: { id: number }) => event.id),
      [seeded.body.id],
    );
    assert.equal(await removeFloorCreates(server.server.store), 0);
  });

  it('refuses a category that does not exist', async () => {
    await assert.rejects(
      measureCreateFloor(server.server.store, {
        seconds: 0.05,
        batch: 1,
        concurrency: 1,
        venueId: venue,
        categorySlug: 'no-such-category',
      }),
      /no category with the slug no-such-category/,
    );
  });
});
