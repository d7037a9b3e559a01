import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { CalendarVersions } from '../../src/calendar/common/calendar-version.ts';
import { utcStamp } from '../../src/calendar/posts/posts.access.ts';
import { cacheBudgets, ReadCache } from '../../src/platform/cache/read-cache.ts';
import { readRevision } from '../../src/platform/db/revisions.ts';
import type { Database } from '../../src/platform/db/schema.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from './events.factories.ts';

/** Sets an event's title straight in the database, as another process would. */
async function retitle(db: Kysely<Database>, id: number, title: string): Promise<void> {
  await db
    .updateTable('translations')
    .set({ value: title })
    .where('resource_type', '=', 'event')
    .where('resource_id', '=', id)
    .where('field', '=', 'title')
    .execute();
}

/** Puts the calendar revision back: a write the revision does not tell about, to see what a server cached. */
async function setRevision(db: Kysely<Database>, value: number): Promise<void> {
  await db.updateTable('revisions').set({ value }).where('name', '=', 'calendar').execute();
}

describe('anonymous calendar answers cached per version', () => {
  let server: TestServer;
  let admin: Credentials;
  const db = () => server.server.store.db;

  before(async () => {
    // Its writes bypass the revision on purpose, which the representations cached per event rely on (event-representations.test.ts).
    server = await startTestServer({ EVENT_CACHE_MB: '0' });
    admin = await server.admin();
  });
  after(async () => server.close());

  it('serves a cached answer while the revision holds, and the fresh one as soon as it moves', async () => {
    const event = await makeEvent(server, admin, { title: 'Cached title' });
    const revision = await readRevision(db(), 'calendar');
    assert.equal((await server.request(`${EVENTS}/${event.id}`)).body.title, 'Cached title');
    await retitle(db(), event.id, 'Changed behind its back');
    await setRevision(db(), revision);
    const cached = await server.request(`${EVENTS}/${event.id}`);
    assert.equal(cached.body.title, 'Cached title', 'the answer came from the cache');
    assert.equal(cached.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(cached.headers.get('content-language'), 'en');
    assert.ok(cached.headers.get('x-request-id'));
    await setRevision(db(), revision + 1);
    assert.equal((await server.request(`${EVENTS}/${event.id}`)).body.title, 'Changed behind its back');
  });

  it('caches each language and each list query apart, with the list headers', async () => {
    const event = await makeEvent(server, admin, { title: 'Bilingual' });
    const italian = await server.request(`${EVENTS}/${event.id}?translation_language=it`, {
      method: 'POST',
      auth: admin,
      body: { title: 'Bilingue' },
    });
    assert.equal(italian.status, 200, italian.text);
    for (let round = 0; round < 2; round += 1) {
      assert.equal((await server.request(`${EVENTS}/${event.id}`)).body.title, 'Bilingual');
      const it = await server.request(`${EVENTS}/${event.id}?translation_language=it`);
      assert.equal(it.body.title, 'Bilingue');
      assert.equal(it.headers.get('content-language'), 'it');
      const list = await server.request(`${EVENTS}?per_page=1`);
      assert.equal(list.body.events.length, 1);
      assert.equal(list.headers.get('x-tec-total'), String(list.body.total));
      assert.equal(list.headers.get('x-tec-totalpages'), String(list.body.total_pages));
      assert.equal((await server.request(`${EVENTS}?per_page=2`)).body.events.length, 2);
    }
  });

  it('never serves what a signed-in caller sees to anonymous callers, nor the reverse', async () => {
    const venue = await server.request('/calendar/events/v1/venues', {
      method: 'POST',
      auth: admin,
      body: { venue: 'Back room', status: 'draft' },
    });
    const event = await makeEvent(server, admin, { title: 'Public with a draft venue', venue: venue.body.id });
    const draft = await makeEvent(server, admin, { title: 'Draft only', status: 'draft' });
    for (const order of [
      ['anonymous', 'admin'],
      ['admin', 'anonymous'],
    ] as const) {
      for (const who of order) {
        const auth = who === 'admin' ? admin : undefined;
        const single = await server.request(`${EVENTS}/${event.id}`, auth === undefined ? {} : { auth });
        const list = await server.request(`${EVENTS}?per_page=50`, auth === undefined ? {} : { auth });
        const listed = (list.body.events as { id: number }[]).map((item) => item.id);
        if (who === 'admin') {
          assert.equal(single.body.venue.id, venue.body.id);
          assert.ok(listed.includes(draft.id));
          assert.equal(single.headers.get('cache-control'), 'private, no-store');
        } else {
          assert.deepEqual(single.body.venue, []);
          assert.ok(!listed.includes(draft.id));
        }
      }
    }
  });

  it('never caches an answer unlocked by a password', async () => {
    const event = await makeEvent(server, admin, { title: 'Locked', description: 'Secret plans', password: 'sesame' });
    for (let round = 0; round < 2; round += 1) {
      assert.equal((await server.request(`${EVENTS}/${event.id}?password=sesame`)).body.description, '<p>Secret plans</p>');
      const locked = await server.request(`${EVENTS}/${event.id}`);
      assert.equal(locked.status, 403);
      assert.equal(locked.body.code, 'event-password-protected');
      const unlocked = (await server.request(`${EVENTS}?include=${event.id}&password=sesame`)).body.events[0];
      assert.equal(unlocked.description, '<p>Secret plans</p>');
      assert.equal((await server.request(`${EVENTS}?include=${event.id}`)).body.events[0].description, '');
    }
    // Not even under a key of its own: each request with a password is answered (and throttled) afresh.
    const revision = await readRevision(db(), 'calendar');
    await retitle(db(), event.id, 'Locked, renamed');
    await setRevision(db(), revision);
    assert.equal((await server.request(`${EVENTS}/${event.id}?password=sesame`)).body.title, 'Locked, renamed');
    assert.equal((await server.request(`${EVENTS}?include=${event.id}&password=sesame`)).body.events[0].title, 'Locked, renamed');
  });

  it('caches anonymous iCalendar feeds as text, and never what a signed-in caller or a password gets', async () => {
    const event = await makeEvent(server, admin, { title: 'Feed title', status: 'publish' });
    const feeds = [`${EVENTS}.ics`, `${EVENTS}/${event.id}.ics`];
    for (const feed of feeds) assert.match((await server.request(feed)).text, /SUMMARY[^:]*:Feed title\r\n/);
    const revision = await readRevision(db(), 'calendar');
    await retitle(db(), event.id, 'Feed renamed');
    await setRevision(db(), revision);
    for (const feed of feeds) {
      const cached = await server.request(feed);
      assert.match(cached.text, /SUMMARY[^:]*:Feed title\r\n/, `${feed} came from the cache`);
      assert.equal(cached.headers.get('content-type'), 'text/calendar; charset=utf-8');
      assert.match(cached.headers.get('cache-control') ?? '', /^public/);
      assert.match((await server.request(feed, { auth: admin })).text, /SUMMARY[^:]*:Feed renamed\r\n/, 'signed in: computed afresh');
    }
    await setRevision(db(), revision + 1);
    for (const feed of feeds) assert.match((await server.request(feed)).text, /SUMMARY[^:]*:Feed renamed\r\n/);
  });

  it('shows a scheduled event the second its date passes, with no write', async () => {
    const soon = new Date(Date.now() + 2000);
    const event = await makeEvent(server, admin, { title: 'Scheduled', status: 'future', date_utc: utcStamp(soon) });
    const single = () => server.request(`${EVENTS}/${event.id}`);
    const listed = async () => ((await server.request(`${EVENTS}?include=${event.id}`)).body.events as unknown[]).length;
    assert.equal((await single()).status, 403);
    assert.equal(await listed(), 0);
    while (Date.now() < soon.getTime() + 1000) await sleep(100);
    const published = await single();
    assert.equal(published.status, 200);
    assert.equal(published.body.status, 'publish');
    assert.equal(await listed(), 1);
  });

  it('shares one revision read among the calls of one event-loop tick, and reads again in the next', async () => {
    const versions = new CalendarVersions(db(), new ReadCache(cacheBudgets(0)));
    const first = versions.of({ calendarVersion: null });
    assert.equal(versions.of({ calendarVersion: null }), first, 'one read for the requests of a tick');
    const version = await first;
    await setRevision(db(), version.revision + 1);
    await new Promise((resolve) => setImmediate(resolve));
    const next = versions.of({ calendarVersion: null });
    assert.notEqual(next, first);
    assert.equal((await next).revision, version.revision + 1);
  });
});

describe('nothing cached (RESPONSE_CACHE_MB=0, EVENT_CACHE_MB=0)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ RESPONSE_CACHE_MB: '0', EVENT_CACHE_MB: '0' });
  });
  after(async () => server.close());

  it('reads the database for every request', async () => {
    const admin = await server.admin();
    const event = await makeEvent(server, admin, { title: 'Never cached' });
    const db = server.server.store.db;
    const revision = await readRevision(db, 'calendar');
    assert.equal((await server.request(`${EVENTS}/${event.id}`)).body.title, 'Never cached');
    await retitle(db, event.id, 'Seen at once');
    await setRevision(db, revision);
    assert.equal((await server.request(`${EVENTS}/${event.id}`)).body.title, 'Seen at once');
  });
});
