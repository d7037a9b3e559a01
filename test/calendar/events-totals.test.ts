import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EventListFilter } from '../../src/calendar/events/events.repository.ts';
import { EventTotals, TOTAL_TTL_MS } from '../../src/calendar/events/events.totals.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const base: EventListFilter = { visibility: { kind: 'published' }, nowUtc: '2030-01-01 00:00:00', endFrom: '2030-01-01 00:00:00' };

describe('event list totals', () => {
  it('reuses a total at one revision until it expires, whatever the clock second', async () => {
    let clock = 0;
    let counted = 0;
    const totals = new EventTotals(() => clock);
    const revision = async () => 7;
    const count = async () => ++counted;
    assert.equal(await totals.get(base, revision, count), 1);
    assert.equal(await totals.get({ ...base, nowUtc: '2030-01-01 00:00:01' }, revision, count), 1);
    clock += TOTAL_TTL_MS;
    assert.equal(await totals.get(base, revision, count), 2);
  });

  it('counts again once the revision moved, and a count that raced with a write is not reused', async () => {
    const totals = new EventTotals(() => 0);
    let revision = 1;
    const current = async () => revision;
    let counted = 0;
    assert.equal(await totals.get(base, current, async () => ++counted), 1);
    revision = 2;
    assert.equal(await totals.get(base, current, async () => ++counted), 2);
    const raced = await totals.get({ ...base, featured: true }, current, async () => {
      revision = 3;
      return 10;
    });
    assert.equal(raced, 10);
    assert.equal(await totals.get({ ...base, featured: true }, current, async () => 11), 11);
  });

  it('always counts filters on data other modules change', async () => {
    const totals = new EventTotals(() => 0);
    for (const extra of [{ venueIds: [1] }, { organizerIds: [1] }, { categoryIds: [1] }, { tagIds: [1] }, { search: { words: ['a'], languages: ['en'] } }, { nearVenueIds: [] }, { geolocated: true }]) {
      let counted = 0;
      const filter = { ...base, ...extra };
      await totals.get(filter, async () => 1, async () => ++counted);
      assert.equal(await totals.get(filter, async () => 1, async () => ++counted), 2, JSON.stringify(extra));
    }
  });
});

describe('event list totals across processes', () => {
  let first: TestServer;
  before(async () => {
    first = await startTestServer();
  });
  after(async () => first.close());

  it('a write through the database (as by another process) is counted at once', async () => {
    const admin = await first.admin();
    const list = async () => (await first.request('/calendar/events/v1/events')).body.total as number;
    const create = (title: string) =>
      first.request('/calendar/events/v1/events', {
        method: 'POST',
        auth: admin,
        body: { title, start_date: 'tomorrow 10:00', end_date: 'tomorrow 11:00' },
      });
    assert.equal((await create('One')).status, 201);
    assert.equal(await list(), 1);
    // Another process shares the database: it bumps the revision with its write, not this process's memory.
    const { insertEvent, reserveEventId } = await import('../../src/calendar/events/events.repository.ts');
    const db = first.server.store.db;
    const template = await db.selectFrom('events').selectAll().executeTakeFirstOrThrow();
    await db.transaction().execute(async (trx) => {
      const { duration_days: _derived, ...columns } = template as typeof template & { duration_days?: number };
      await insertEvent(trx, { ...columns, id: await reserveEventId(trx) });
    });
    assert.equal(await list(), 2);
  });
});
