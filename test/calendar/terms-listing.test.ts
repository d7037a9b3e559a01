import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';

const NS = '/calendar/events/v1';

/** `YYYY-MM-DD HH:MM` some days from now (inside the events list's default window). */
function daysAhead(days: number, hour = 10): string {
  const date = new Date(Date.now() + days * 86_400_000);
  return `${date.toISOString().slice(0, 10)} ${String(hour).padStart(2, '0')}:00`;
}

/**
 * A list of one category walks that category's entries of `event_terms_listing`, which the database keeps beside
 * each link (migration 2026-12-09T0100); a list of two categories probes each event's links. After every kind of
 * write the two must list the same events in the same order, and the entries must be exactly the links.
 */
describe('a category’s list, walked from its own entries', () => {
  let server: TestServer;
  let admin: Credentials;
  let listed: number;
  let empty: number;
  let other: number;

  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
    const category = async (name: string) => {
      const response = await server.request(`${NS}/categories`, { method: 'POST', auth: admin, body: { name } });
      assert.equal(response.status, 201, response.text);
      return response.body.id as number;
    };
    listed = await category('Walked');
    empty = await category('Never used');
    other = await category('Elsewhere');
  });
  after(async () => server.close());

  const write = async (path: string, body: Record<string, unknown>, method = 'POST') => {
    const response = await server.request(`${NS}/events${path}`, { method, auth: admin, body });
    assert.ok(response.status === 200 || response.status === 201, `${method} ${path}: ${response.status} ${response.text}`);
    return response.body;
  };
  const create = (days: number, hour: number, body: Record<string, unknown> = {}) =>
    write('', { title: `Walk ${days}/${hour}`, start_date: daysAhead(days, hour), end_date: daysAhead(days, hour + 1), ...body });

  /** Every page of a list, two events a page, with its total: as anonymous readers and as the administrator. */
  const pages = async (query: string, auth?: Credentials) => {
    const ids: number[] = [];
    let total: string | undefined;
    for (let page = 1; ; page += 1) {
      const response = await server.request(`${NS}/events?${query}&per_page=2&page=${page}`, { auth });
      if (response.status === 404 && page > 1) break; // past the last page
      assert.equal(response.status, 200, response.text);
      total = response.headers.get('x-wp-total') ?? undefined;
      ids.push(...response.body.events.map((event: { id: number }) => event.id));
      if (response.body.events.length < 2) break;
    }
    return { ids, total };
  };

  const assertSameLists = async (step: string) => {
    const db = server.server.store.db;
    const entries = await db
      .selectFrom('event_terms_listing')
      .select(['term_id', 'start_local', 'date', 'event_id'])
      .orderBy('term_id')
      .orderBy('event_id')
      .execute();
    const links = await db
      .selectFrom('event_terms as et')
      .innerJoin('events as e', 'e.id', 'et.event_id')
      .select(['et.term_id', 'e.start_local', 'e.date', 'et.event_id'])
      .orderBy('et.term_id')
      .orderBy('et.event_id')
      .execute();
    assert.deepEqual(entries, links, `${step}: the entries are the links, with their events' order`);
    for (const [auth, extra] of [
      [undefined, ''],
      [admin, '&status=any'],
    ] as const) {
      const walked = await pages(`categories=${listed}${extra}`, auth);
      const probed = await pages(`categories=${listed},${empty}${extra}`, auth);
      assert.deepEqual(walked, probed, `${step}, ${auth === undefined ? 'anonymous' : 'administrator'}`);
    }
    return (await pages(`categories=${listed}`)).ids;
  };

  it('lists what the links say, in list order, through every kind of write', async () => {
    const a = await create(5, 10, { categories: [listed] });
    const b = await create(3, 10, { categories: [listed] });
    const c = await create(3, 10, { categories: [listed, other], date: '2020-01-01 00:00:00' });
    const d = await create(8, 9, { categories: [listed], status: 'draft' });
    const e = await create(4, 10);
    // Same start: the earlier publication date first.
    assert.deepEqual(await assertSameLists('created'), [c.id, b.id, a.id]);

    await write(`/${a.id}`, { start_date: daysAhead(1, 10), end_date: daysAhead(1, 11) });
    assert.deepEqual(await assertSameLists('rescheduled'), [a.id, c.id, b.id]);
    await write(`/${b.id}`, { date: '2019-06-01 00:00:00' });
    assert.deepEqual(await assertSameLists('publication date changed'), [a.id, b.id, c.id]);
    await write(`/${e.id}`, { categories: [listed] });
    await write(`/${c.id}`, { categories: [other] });
    assert.deepEqual(await assertSameLists('links changed'), [a.id, b.id, e.id]);
    await write(`/${d.id}`, { status: 'publish' });
    await write(`/${b.id}`, {}, 'DELETE');
    assert.deepEqual(await assertSameLists('published and trashed'), [a.id, e.id, d.id]);
    await write(`/${a.id}?force=true`, {}, 'DELETE');
    assert.deepEqual(await assertSameLists('deleted'), [e.id, d.id]);

    const series = await create(2, 18, { categories: [listed], recurrence: ['RRULE:FREQ=DAILY;COUNT=3'] });
    const withSeries = await assertSameLists('a series created');
    assert.equal(withSeries.length, 5, 'its three occurrences are listed');
    assert.ok(!withSeries.includes(series.id), 'a series is listed as its occurrences');
    await write(`/${series.id}`, { categories: [other] });
    assert.deepEqual(await assertSameLists('the series moved to another category'), [e.id, d.id]);

    const categoryDeleted = await server.request(`${NS}/categories/${other}?force=true`, { method: 'DELETE', auth: admin });
    assert.equal(categoryDeleted.status, 200, categoryDeleted.text);
    await assertSameLists('a category deleted');
  });
});
