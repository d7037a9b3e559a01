import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { CalendarVersions } from '../../src/calendar/common/calendar-version.ts';
import { cacheBudgets, ReadCache } from '../../src/platform/cache/read-cache.ts';
import { findNextPublication } from '../../src/calendar/common/publications.repository.ts';
import { readRevision } from '../../src/platform/db/revisions.ts';
import type { Database } from '../../src/platform/db/schema.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { envelope, postSoap } from '../soap/soap-fixtures.ts';

const NS = '/calendar/events/v1';

describe('the calendar revision and versions', () => {
  let server: TestServer;
  let admin: Credentials;
  const db = (): Kysely<Database> => server.server.store.db;

  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  /** The version a new request reads at `now`, in a later event-loop tick than any read before (versions are read once per tick). */
  let clock = new Date();
  let versions: CalendarVersions;
  const versionAt = async (now: Date = new Date()) => {
    await new Promise((resolve) => setImmediate(resolve));
    versions ??= new CalendarVersions(db(), new ReadCache(cacheBudgets(0)), () => clock);
    clock = now;
    return versions.of({ calendarVersion: null });
  };

  /** Runs `write` and tells whether the revision moved. */
  const bumps = async (write: () => Promise<unknown>): Promise<boolean> => {
    const before = await readRevision(db(), 'calendar');
    await write();
    return (await readRevision(db(), 'calendar')) > before;
  };

  it('is bumped by the database on every write to a calendar table, whoever writes', async () => {
    const event = await server.request(`${NS}/events`, {
      method: 'POST',
      auth: admin,
      body: {
        title: 'Revision probe',
        start_date: 'tomorrow 10:00',
        end_date: 'tomorrow 11:00',
        venue: { venue: 'Probe hall' },
        organizer: [{ organizer: 'Probe org' }],
        categories: ['probe'],
      },
    });
    assert.equal(event.status, 201, event.text);
    const id = event.body.id as number;
    const venueId = event.body.venue.id as number;
    const organizerId = event.body.organizer[0].id as number;
    const termId = event.body.categories[0].id as number;
    const writes: Record<string, () => Promise<unknown>> = {
      'events update': () => db().updateTable('events').set({ featured: 1 }).where('id', '=', id).execute(),
      'venues update': () => db().updateTable('venues').set({ city: 'Elsewhere' }).where('id', '=', venueId).execute(),
      'organizers update': () => db().updateTable('organizers').set({ phone: '1' }).where('id', '=', organizerId).execute(),
      'terms update': () => db().updateTable('terms').set({ parent_id: null }).where('id', '=', termId).execute(),
      'translations update': () =>
        db()
          .updateTable('translations')
          .set({ value: 'Renamed' })
          .where('resource_type', '=', 'event')
          .where('resource_id', '=', id)
          .where('field', '=', 'title')
          .execute(),
      'slugs insert': () => db().insertInto('slugs').values({ resource_type: 'event', slug: 'probe-alias', resource_id: id }).execute(),
      'event_terms delete': () => db().deleteFrom('event_terms').where('event_id', '=', id).execute(),
      'event_organizers delete': () => db().deleteFrom('event_organizers').where('event_id', '=', id).execute(),
      'images insert': async () => {
        const { id: imageId } = await db().insertInto('post_ids').values({ type: 'image' }).returning('id').executeTakeFirstOrThrow();
        await db()
          .insertInto('images')
          .values({ id: imageId, url: 'https://example.com/a.jpg', extension: 'jpg', author_id: null, created_at: '2026-01-01 00:00:00' })
          .execute();
      },
      'events delete (cascading to its links)': () => db().deleteFrom('events').where('id', '=', id).execute(),
    };
    for (const [name, write] of Object.entries(writes)) assert.ok(await bumps(write), name);
  });

  it('is not bumped by writes outside the calendar', async () => {
    assert.equal(await bumps(async () => assert.equal((await postSoap(server, envelope())).status, 202)), false);
    assert.equal(await bumps(() => server.createUser('author')), false);
  });

  it('keeps one version while nothing changes, and starts another after a write', async () => {
    const first = await versionAt();
    assert.equal(await versionAt(), first);
    await db()
      .updateTable('revisions')
      .set({ value: first.revision + 5 })
      .where('name', '=', 'calendar')
      .execute();
    const second = await versionAt();
    assert.notEqual(second, first);
    assert.equal(second.revision, first.revision + 5);
  });

  it('ends a version when a scheduled event, venue or organizer reaches its date', async () => {
    for (const collection of ['events', 'venues', 'organizers'] as const) {
      const body =
        collection === 'events'
          ? { title: 'Later', start_date: 'tomorrow 10:00', end_date: 'tomorrow 11:00' }
          : collection === 'venues'
            ? { venue: 'Later hall' }
            : { organizer: 'Later org' };
      const created = await server.request(`${NS}/${collection}`, {
        method: 'POST',
        auth: admin,
        body: { ...body, status: 'future', date: '2099-06-01 10:00:00' },
      });
      assert.equal(created.status, 201, created.text);
      const now = new Date('2099-05-01T00:00:00Z');
      assert.equal(await findNextPublication(db(), '2099-05-01 00:00:00'), '2099-06-01 10:00:00', collection);
      const version = await versionAt(now);
      assert.equal(version.until, '2099-06-01 10:00:00');
      assert.equal(await versionAt(new Date('2099-06-01T09:59:59Z')), version, 'still before the publication');
      const after = await versionAt(new Date('2099-06-01T10:00:00Z'));
      assert.notEqual(after, version, `${collection}: the publication ends the version`);
      assert.equal(after.until, null);
      assert.ok(await bumps(() => db().deleteFrom(collection).where('id', '=', created.body.id).execute()));
    }
  });

  it("invalidates everything when a version made alongside another starts past that one's scheduled publication", async () => {
    // What the cache is told: a list total kept across versions (events.listing.ts) is only dropped by `undefined`.
    const told: (readonly number[] | undefined)[] = [];
    const cache = new (class extends ReadCache {
      override invalidateItems(ids: Iterable<number> | undefined, at: unknown): void {
        told.push(ids === undefined ? undefined : [...ids]);
        super.invalidateItems(ids, at);
      }
    })(cacheBudgets(0, 1 << 20));
    // A database whose answers take 20 ms to come back, as PostgreSQL's do over a network: two ticks make versions at once.
    const slow = db().withPlugin({ transformQuery: (args) => args.node, transformResult: async (args) => (await sleep(20), args.result) });
    // The instants the ticks read, in turn (each reads the clock once its revision is in).
    const instants = ['2099-05-01T00:00:00Z', '2099-06-01T09:59:59Z', '2099-06-01T10:00:01Z'].map((instant) => new Date(instant));
    const slowVersions = new CalendarVersions(slow, cache, () => instants.shift()!);
    const tick = () => new Promise((resolve) => setImmediate(resolve));

    await tick();
    const start = await slowVersions.of({ calendarVersion: null });
    assert.equal(start.until, null, 'nothing scheduled yet');
    const scheduled = await server.request(`${NS}/events`, {
      method: 'POST',
      auth: admin,
      body: { title: 'Soon', start_date: 'tomorrow 10:00', end_date: 'tomorrow 11:00', status: 'future', date: '2099-06-01 10:00:00' },
    });
    assert.equal(scheduled.status, 201, scheduled.text);
    told.length = 0;

    await tick();
    const scheduledVersion = slowVersions.of({ calendarVersion: null });
    await tick();
    const publishedVersion = slowVersions.of({ calendarVersion: null });
    // Each tick reads the clock once its revision is in: the one answered first reads the earlier instant.
    const [first, second] = (await Promise.all([scheduledVersion, publishedVersion])).sort((a, b) => a.from.localeCompare(b.from));
    assert.equal(first.until, '2099-06-01 10:00:00');
    assert.equal(second.revision, first.revision);
    assert.equal(second.from, '2099-06-01 10:00:01');
    assert.deepEqual(told, [[scheduled.body.id], undefined], 'the scheduled event, then everything once it is published');
    assert.ok(await bumps(() => db().deleteFrom('events').where('id', '=', scheduled.body.id).execute()));
  });
});
