import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EventListFilter } from '../../src/calendar/events/events.repository.ts';
import { eventTotal } from '../../src/calendar/events/events.totals.ts';
import { CalendarVersion } from '../../src/calendar/shared/calendar-version.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const base: EventListFilter = {
  visibility: { kind: 'published' },
  exposure: 'unprotected',
  nowUtc: '2030-01-01 00:00:00',
  endFrom: '2030-01-01 00:00:00',
};
const versionAt = (revision: number) => new CalendarVersion(revision, '2030-01-01 00:00:00', null);

describe('event list totals', () => {
  it('reuses a total for as long as its version is current, whatever the clock second or the filter', async () => {
    const version = versionAt(7);
    let counted = 0;
    const count = async () => ++counted;
    for (const extra of [
      {},
      { venueIds: [1] },
      { categoryIds: [2] },
      { search: { words: ['a'], languages: ['en'] } },
      { geolocated: true },
    ]) {
      const first = await eventTotal(version, { ...base, ...extra }, count);
      assert.equal(await eventTotal(version, { ...base, ...extra, nowUtc: '2030-01-01 00:00:09' }, count), first, JSON.stringify(extra));
    }
    assert.equal(counted, 5);
  });

  it('counts again in a new version, even one at the same revision (the clock ended the last one)', async () => {
    let counted = 0;
    const count = async () => ++counted;
    assert.equal(await eventTotal(versionAt(1), base, count), 1);
    assert.equal(await eventTotal(versionAt(2), base, count), 2);
    assert.equal(await eventTotal(versionAt(2), base, count), 3);
  });

  it('tells filters apart', async () => {
    const version = versionAt(1);
    assert.equal(await eventTotal(version, base, async () => 1), 1);
    assert.equal(await eventTotal(version, { ...base, featured: true }, async () => 2), 2);
    assert.equal(await eventTotal(version, { ...base, endFrom: '2030-01-02 00:00:00' }, async () => 3), 3);
    assert.equal(await eventTotal(version, base, async () => 4), 1);
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
    const { insertEvent } = await import('../../src/calendar/events/events.repository.ts');
    const { reservePostId } = await import('../../src/calendar/posts/posts.repository.ts');
    const db = first.server.store.db;
    const template = await db.selectFrom('events').selectAll().executeTakeFirstOrThrow();
    await db.transaction().execute(async (trx) => {
      const { duration_days: _derived, ...columns } = template as typeof template & { duration_days?: number };
      await insertEvent(trx, { ...columns, id: await reservePostId(trx, 'event') });
    });
    assert.equal(await list(), 2);
  });

  it('a venue link or a title written straight into the tables changes filtered totals at once', async () => {
    const admin = await first.admin();
    const venue = await first.request('/calendar/events/v1/venues', { method: 'POST', auth: admin, body: { venue: 'Filter Hall' } });
    assert.equal(venue.status, 201, venue.text);
    const event = await first.request('/calendar/events/v1/events', {
      method: 'POST',
      auth: admin,
      body: { title: 'Plain title', start_date: 'tomorrow 10:00', end_date: 'tomorrow 11:00' },
    });
    const total = async (query: string) => (await first.request(`/calendar/events/v1/events?${query}`)).body.total as number;
    assert.equal(await total(`venue=${venue.body.id}`), 0);
    assert.equal(await total('search=zanzibar'), 0);
    const db = first.server.store.db;
    await db.updateTable('events').set({ venue_id: venue.body.id }).where('id', '=', event.body.id).execute();
    await db
      .updateTable('translations')
      .set({ value: 'Zanzibar night' })
      .where('resource_type', '=', 'event')
      .where('resource_id', '=', event.body.id)
      .where('field', '=', 'title')
      .execute();
    assert.equal(await total(`venue=${venue.body.id}`), 1);
    assert.equal(await total('search=zanzibar'), 1);
  });
});
