import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DateTime } from 'luxon';
import { seedDemoEvents } from '../../src/calendar/seed/demo-events.ts';
import { UsersService } from '../../src/platform/auth/users.service.ts';
import { createDb, migrateToLatest, type Store } from '../../src/platform/db/database.ts';
import { MIGRATION_FOLDERS } from '../../src/migrations.ts';
import { freshDatabase, passwordHasher } from '../helpers/server.ts';

// The loader writes tables directly: a migrated database is all it needs, no HTTP server.
let store: Store;
let drop: () => Promise<void>;
let adminId: number;
before(async () => {
  const database = await freshDatabase();
  drop = database.drop;
  store = createDb(database.url);
  await migrateToLatest(store.db, MIGRATION_FOLDERS);
  adminId = (
    await new UsersService(store, passwordHasher()).add({ username: 'admin', password: 'admin-password-1', role: 'administrator' })
  ).id;
});
after(async () => {
  await store.close();
  await drop();
});

const count = async (table: 'events' | 'terms' | 'venues' | 'organizers') => {
  const row = await store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
};

test('seeds events with venues, organizers, terms, translations and slugs, and reuses them on a second run', async () => {
  const { db } = store;
  const first = await seedDemoEvents(store, { events: 200, siteTimezone: 'UTC', seed: 42 });
  assert.equal(first.events, 200);
  assert.equal(await count('events'), 200);
  assert.equal((await db.selectFrom('post_ids').select('id').where('type', '=', 'event').execute()).length, 200);

  const events = await db.selectFrom('events').selectAll().execute();
  assert.ok(events.every((event) => event.author_id === adminId));
  assert.ok(events.filter((event) => event.status === 'publish').length > 150, 'mostly published');
  assert.ok(new Set(events.map((event) => event.timezone)).size >= 2, 'several time zones');
  for (const event of events) {
    const start = DateTime.fromSQL(event.start_local, { zone: event.timezone });
    assert.equal(
      start.toUTC().toSQL({ includeOffset: false, includeZone: false })?.slice(0, 19),
      event.start_utc,
      `event ${event.id} start`,
    );
    assert.ok(event.end_local >= event.start_local, `event ${event.id} ends after it starts`);
  }

  const translations = await db.selectFrom('translations').selectAll().where('resource_type', '=', 'event').execute();
  const slugs = await db.selectFrom('slugs').selectAll().where('resource_type', '=', 'event').execute();
  const slugOwner = new Map(slugs.map((row) => [row.slug, row.resource_id]));
  for (const event of events) {
    const own = translations.filter((row) => row.resource_id === event.id);
    const english = new Map(own.filter((row) => row.language === 'en').map((row) => [row.field, row.value]));
    assert.deepEqual([...english.keys()].sort(), ['description', 'excerpt', 'slug', 'title']);
    for (const row of own.filter((candidate) => candidate.field === 'slug')) {
      assert.equal(slugOwner.get(row.value), event.id, `slug ${row.value} is registered to its event`);
    }
  }
  const italian = new Set(translations.filter((row) => row.language === 'it' && row.field === 'title').map((row) => row.resource_id));
  assert.ok(italian.size > 120 && italian.size < 200, `most but not all events are in Italian (${italian.size})`);

  const venues = await db.selectFrom('venues').selectAll().execute();
  assert.ok(venues.length >= 20 && venues.every((venue) => venue.geo_lat !== null && venue.geo_lng !== null));
  const terms = await db.selectFrom('terms').selectAll().execute();
  assert.ok(
    terms.some((term) => term.taxonomy === 'category' && term.parent_id !== null),
    'category hierarchy',
  );
  assert.ok(terms.some((term) => term.taxonomy === 'tag'));
  const links = await db.selectFrom('event_terms').select('event_id').execute();
  assert.equal(new Set(links.map((link) => link.event_id)).size, 200, 'every event has a category');

  const revision = await db.selectFrom('revisions').select('value').where('name', '=', 'calendar').executeTakeFirstOrThrow();
  assert.ok(Number(revision.value) > 0, 'the calendar revision is bumped, so running servers invalidate what they cached');

  const termsBefore = terms.length;
  const venuesBefore = venues.length;
  const second = await seedDemoEvents(store, { events: 50, siteTimezone: 'UTC' });
  assert.equal(second.totalEvents, 250);
  assert.equal(await count('events'), 250);
  assert.equal(await count('terms'), termsBefore, 'terms are reused');
  assert.equal(await count('venues'), venuesBefore, 'venues are reused');
  assert.ok((await count('organizers')) >= 10);
});
