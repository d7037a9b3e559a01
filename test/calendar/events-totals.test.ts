import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EventListFilter } from '../../src/calendar/events/events.repository.ts';
import { EventListing } from '../../src/calendar/events/events.listing.ts';
import { ReadCache, cacheBudgets } from '../../src/platform/cache/read-cache.ts';
import { readRevision } from '../../src/platform/db/revisions.ts';
import { countingStatements } from '../helpers/statements.ts';
import { CalendarVersion, CalendarVersions } from '../../src/calendar/common/calendar-version.ts';
import { EventsService } from '../../src/calendar/events/events.service.ts';
import { PostPasswords } from '../../src/calendar/posts/posts.passwords.ts';
import { contextFor } from './context.helper.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';

const base: EventListFilter = {
  visibility: { kind: 'published' },
  exposure: 'unprotected',
  nowUtc: '2030-01-01 00:00:00',
  endFrom: '2030-01-01 00:00:00',
};

describe('event list totals', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
    for (const [title, featured] of [
      ['Featured one', true],
      ['Plain one', false],
      ['Plain two', false],
    ] as const) {
      const made = await server.request('/calendar/events/v1/events', {
        method: 'POST',
        auth: admin,
        body: { title, featured, status: 'publish', start_date: '2030-06-01 10:00:00', end_date: '2030-06-01 11:00:00' },
      });
      assert.equal(made.status, 201, made.text);
    }
  });
  after(async () => server.close());

  /** Listings over a handle that counts statements, and versions at the database's revision sharing one cache. */
  const counted = async (versionBytes = 1024 * 1024, itemBytes = 0) => {
    const counting = countingStatements(server.server.store.db);
    const revision = await readRevision(server.server.store.db, 'calendar');
    const cache = new ReadCache({ versionBytes, itemBytes });
    return {
      counting,
      cache,
      total: (version: CalendarVersion, filter: EventListFilter) => new EventListing(counting.db, version, filter).total(),
      versionAt: (from = '2030-01-01 00:00:00', until: string | null = null, at = revision) => new CalendarVersion(cache, at, from, until),
    };
  };

  /** A statement that counts a list, or reads all its ids (up to a limit): not a total maintained from the log. */
  const readsWhole = (text: string) => /count\(\*\)|^select "events"\."id" from "events" .*\blimit\b/s.test(text);

  it('reads a total once for as long as its version is current, whatever the clock second, and tells filters apart', async () => {
    const { counting, total, versionAt } = await counted();
    const version = versionAt();
    assert.equal(await total(version, base), 3);
    assert.equal(await total(version, { ...base, featured: true }), 1);
    assert.equal(await total(version, { ...base, endFrom: '2030-06-02 00:00:00' }), 0);
    assert.equal(counting.count(), 3);
    assert.equal(await total(version, { ...base, nowUtc: '2030-01-01 00:00:09' }), 3);
    assert.equal(await total(version, { ...base, featured: true, nowUtc: '2030-01-01 00:00:09' }), 1);
    assert.equal(counting.count(), 3, 'nothing counted twice in a version');
    const [again] = await Promise.all([total(versionAt(), base), total(versionAt(), base)]);
    assert.equal(again, 3);
  });

  it('counts again in a new version, once however many requests ask at the same time', async () => {
    const { counting, total, versionAt } = await counted();
    assert.equal(await total(versionAt(), base), 3);
    counting.reset();
    const next = versionAt('2030-01-01 10:00:00');
    assert.deepEqual(await Promise.all([total(next, base), total(next, base), total(next, base)]), [3, 3, 3]);
    assert.equal(counting.count(), 1, 'one count shared by the version');
  });

  it('caches what its bytes allow, however many distinct filters are asked (a search of new words each time)', async () => {
    const { counting, total, versionAt } = await counted(4096);
    const version = versionAt();
    const first = { ...base, search: { words: ['first'], languages: ['en'] } };
    assert.equal(await total(version, first), 0);
    for (let index = 0; index < 500; index += 1) await total(version, { ...base, search: { words: [`w${index}`], languages: ['en'] } });
    counting.reset();
    assert.equal(await total(version, first), 0);
    assert.equal(counting.count(), 1, 'the oldest total was evicted, and is counted afresh');
  });

  it('maintains a public total into later versions from the change log, re-checking by id what changed, never counting again', async () => {
    const { counting, total, versionAt } = await counted(1024 * 1024, 1024 * 1024);
    const featured = { ...base, featured: true };
    assert.equal(await total(versionAt(), featured), 1);
    assert.equal(counting.count(), 1, 'its ids read once, their number the total');
    const made = await server.request('/calendar/events/v1/events', {
      method: 'POST',
      auth: admin,
      body: {
        title: 'Featured two',
        featured: true,
        status: 'publish',
        start_date: '2030-06-02 10:00:00',
        end_date: '2030-06-02 11:00:00',
      },
    });
    assert.equal(made.status, 201, made.text);
    const afterCreate = await readRevision(server.server.store.db, 'calendar');
    counting.reset();
    assert.equal(await total(versionAt(undefined, null, afterCreate), featured), 2);
    assert.equal(counting.statements().filter(readsWhole).length, 0, 'nothing counted');
    assert.equal(counting.count(), 2, 'the log since, and the events it names');
    const unfeatured = await server.request(`/calendar/events/v1/events/${made.body.id}`, {
      method: 'POST',
      auth: admin,
      body: { featured: false },
    });
    assert.equal(unfeatured.status, 200, unfeatured.text);
    assert.equal(await total(versionAt(undefined, null, await readRevision(server.server.store.db, 'calendar')), featured), 1);
    const deleted = await server.request(`/calendar/events/v1/events/${made.body.id}?force=true`, { method: 'DELETE', auth: admin });
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(await total(versionAt(undefined, null, await readRevision(server.server.store.db, 'calendar')), base), 3);
  });

  it('counts again past a scheduled publication, even when a count of the version before it finishes later', async () => {
    const { counting, total, versionAt, cache } = await counted(1024 * 1024, 1024 * 1024);
    const featured = { ...base, featured: true };
    const counts = () => counting.statements().filter(readsWhole).length;
    const before = versionAt('2030-01-01 09:00:00', '2030-01-01 10:00:00');
    const past = versionAt('2030-01-01 10:00:00');
    // The publication passed and everything was invalidated; then a request of the version before it counts.
    cache.invalidateItems(undefined, past);
    assert.equal(await total(before, featured), 1);
    counting.reset();
    assert.equal(await total(past, featured), 1);
    assert.equal(counts(), 1, 'the count of the version before the publication was not kept for the one after it');
    // Kept in a version that ends at a publication, a total is not carried past it, invalidated or not.
    const another = { ...base, featured: false };
    assert.equal(await total(before, another), 2);
    counting.reset();
    assert.equal(await total(versionAt('2030-01-01 10:00:01'), another), 2);
    assert.equal(counts(), 1, 'counted again past the publication');
    counting.reset();
    assert.equal(await total(before, another), 2, 'a request of the older version counts for itself');
    assert.equal(await total(versionAt('2030-01-01 10:00:02'), another), 2);
    assert.equal(counts(), 1, 'and leaves the total kept for the newer one');
  });

  it('keeps signed-in lists apart from public ones', async () => {
    const { total, versionAt } = await counted();
    const version = versionAt();
    const editors: EventListFilter = { ...base, visibility: { kind: 'all-but-trash' }, statuses: ['draft'] };
    assert.equal(await total(version, base), 3);
    assert.equal(await total(version, editors), 0);
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

describe('lists asked for just before a scheduled publication, answered in a version just after it', () => {
  let server: TestServer;
  let service: EventsService;
  let versions: CalendarVersions;
  const window = { start_date: '2030-01-15', end_date: '2030-03-01' };
  const event = async (title: string, fields: Record<string, unknown>) => {
    const made = await server.request('/calendar/events/v1/events', {
      method: 'POST',
      auth: await server.admin(),
      body: { title, start_date: '2030-02-01 10:00:00', end_date: '2030-02-01 11:00:00', ...fields },
    });
    assert.equal(made.status, 201, made.text);
  };

  before(async () => {
    server = await startTestServer();
    const db = server.server.store.db;
    await event('Published', { status: 'publish' });
    await event('Scheduled', { status: 'future', date_utc: '2030-01-01 10:00:00' });
    service = new EventsService({ db, config: server.config, passwords: new PostPasswords(db, server.config) });
    // A clock of its own for the versions: a request's clock reads 09:59:59.900, its version is read at 10:00:00.100.
    versions = new CalendarVersions(db, new ReadCache(cacheBudgets(0)), () => new Date('2030-01-01T10:00:00.100Z'));
  });
  after(async () => server.close());

  const caller = () => contextFor(server, null, { versions });

  it('counts the event published in between, in that version and the ones after it (issue 37)', async () => {
    const list = async (asked: string) => {
      const answer = await service.listEvents(window, caller(), new Date(asked));
      return { total: answer.total, titles: answer.events.map((shown) => shown.title) };
    };
    const both = { total: 2, titles: ['Published', 'Scheduled'] };
    assert.deepEqual(await list('2030-01-01T09:59:59.900Z'), both, 'the version has it published');
    assert.deepEqual(await list('2030-01-01T10:00:00.200Z'), both, 'as every later request of the version');
    // Another write: the next version reads the total and the page again.
    await event('Unrelated', { status: 'publish', start_date: '2031-01-01 10:00:00', end_date: '2031-01-01 11:00:00' });
    assert.deepEqual(await list('2030-01-01T10:00:00.300Z'), both, 'and the versions after it');
  });

  it('shows it in what a feed is made of, which is kept for its version and day', async () => {
    const shown = await service.listEventsWithRows(window, caller(), new Date('2030-01-01T09:59:59.900Z'), 10);
    assert.deepEqual(
      shown.map(({ event }) => event.title),
      ['Published', 'Scheduled'],
    );
  });
});
