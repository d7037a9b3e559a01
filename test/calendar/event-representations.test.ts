/**
 * Events cached per event and language (events.representations.ts).
 * The reading server caches no answers (RESPONSE_CACHE_MB=0), so what it
 * shows comes from its cached representations; every write goes through a second
 * server on the same database, as another process of the deployment, so the
 * reader learns of it only from the database's change log.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { utcStamp } from '../../src/calendar/posts/posts.access.ts';
import { EventRepresentations } from '../../src/calendar/events/events.representations.ts';
import { CalendarVersion, CalendarVersions } from '../../src/calendar/common/calendar-version.ts';
import { ReadCache } from '../../src/platform/cache/read-cache.ts';
import type { EventResponse } from '../../src/calendar/events/events.schemas.ts';
import type { EventRow } from '../../src/calendar/events/events.repository.ts';
import { readRevision } from '../../src/platform/db/revisions.ts';
import { versionOfEtag } from '../../src/platform/http/entity-tags.ts';
import type { RunningServer } from '../../src/server.ts';
import { startSecondServer, startTestServer, writeThrough, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from './events.factories.ts';
import { NS, VENUES } from './venues-organizers.factories.ts';

describe('event representations cached per event, across processes', () => {
  let reader: TestServer;
  let writer: RunningServer;
  let admin: Credentials;

  before(async () => {
    reader = await startTestServer({ RESPONSE_CACHE_MB: '0' });
    writer = await startSecondServer(reader);
    admin = await reader.admin();
  });
  after(async () => {
    await writer.close();
    await reader.close();
  });

  /** A write made by the other process. */
  const write = (method: string, path: string, body: Record<string, unknown>) => writeThrough(writer, admin, method, path, body);
  const read = async (path: string) => {
    const response = await reader.request(path);
    assert.equal(response.status, 200, response.text);
    return response.body;
  };
  const listed = async (id: number, language = '') =>
    ((await read(`${EVENTS}?include=${id}${language}`)).events as any[]).find((event) => event.id === id);

  async function publishedEvent(fields: Record<string, unknown> = {}): Promise<any> {
    return write('POST', EVENTS, {
      title: 'Cached concert',
      status: 'publish',
      start_date: '2031-03-01 20:00:00',
      end_date: '2031-03-01 22:00:00',
      ...fields,
    });
  }

  it("shows another process's edits of the event, its venue and its category at the next read", async () => {
    const venue = await write('POST', VENUES, { venue: 'Old hall', status: 'publish' });
    const category = await write('POST', `${NS}/categories`, { name: 'Old kind' });
    const event = await publishedEvent({ venue: venue.id, categories: [category.id] });
    assert.equal((await read(`${EVENTS}/${event.id}`)).title, 'Cached concert');
    assert.equal((await listed(event.id)).title, 'Cached concert');

    await write('POST', `${EVENTS}/${event.id}`, { title: 'Renamed concert' });
    assert.equal((await read(`${EVENTS}/${event.id}`)).title, 'Renamed concert');
    assert.equal((await listed(event.id)).title, 'Renamed concert');

    await write('POST', `${VENUES}/${venue.id}`, { venue: 'New hall' });
    assert.equal((await read(`${EVENTS}/${event.id}`)).venue.venue, 'New hall');
    assert.equal((await listed(event.id)).venue.venue, 'New hall');

    await write('POST', `${NS}/categories/${category.id}`, { name: 'New kind' });
    assert.equal((await read(`${EVENTS}/${event.id}`)).categories[0].name, 'New kind');
  });

  it('tags a cached single read by its bytes alone, and a write in another process moves both', async () => {
    const event = await publishedEvent({ title: 'Tagged concert' });
    const tagOf = async () => {
      const response = await reader.request(`${EVENTS}/${event.id}`);
      assert.equal(response.status, 200, response.text);
      return { tag: response.headers.get('etag') ?? '', title: response.body.title, jsonLd: response.body.json_ld };
    };
    const first = await tagOf();
    const again = await tagOf();
    assert.deepEqual(again, first, 'the cached read answers the same bytes');
    assert.equal(again.jsonLd.name, 'Tagged concert');
    assert.equal(versionOfEtag(first.tag), undefined, 'an anonymous caller edits nothing: no version');
    await write('POST', `${EVENTS}/${event.id}`, { title: 'Retagged concert' });
    const after = await tagOf();
    assert.equal(after.title, 'Retagged concert');
    assert.equal(after.jsonLd.name, 'Retagged concert');
    assert.notEqual(after.tag, first.tag);
  });

  it('filters by a category as another process last named it, children included', async () => {
    const parent = await write('POST', `${NS}/categories`, { name: 'Filtered parent' });
    const inParent = await publishedEvent({ title: 'In the parent', categories: [parent.id] });
    const ids = async (query: string) => {
      const response = await reader.request(`${EVENTS}?start_date=2031-01-01&end_date=2031-12-31&${query}`);
      return response.status === 200 ? (response.body.events as any[]).map((event) => event.id).sort() : response.status;
    };
    assert.deepEqual(await ids(`categories=${parent.slug}`), [inParent.id]);
    const child = await write('POST', `${NS}/categories`, { name: 'Filtered child', parent: parent.id });
    const inChild = await publishedEvent({ title: 'In the child', categories: [child.id] });
    assert.deepEqual(await ids(`categories=${parent.slug}`), [inParent.id, inChild.id].sort(), 'the new child counts');
    await write('POST', `${NS}/categories/${parent.id}`, { slug: 'filtered-renamed' });
    assert.equal(await ids(`categories=${parent.slug}`), 400, 'the old slug names nothing');
    assert.deepEqual(await ids('categories=filtered-renamed'), [inParent.id, inChild.id].sort());
  });

  it('counts the embedded terms again when another event joins them, the cached event unchanged', async () => {
    const category = await write('POST', `${NS}/categories`, { name: 'Counted kind' });
    const event = await publishedEvent({ categories: [category.id] });
    assert.equal((await read(`${EVENTS}/${event.id}`)).categories[0].count, 1);
    await publishedEvent({ title: 'Another', categories: [category.id] });
    assert.equal((await read(`${EVENTS}/${event.id}`)).categories[0].count, 2);
    assert.equal((await listed(event.id)).categories[0].count, 2);
  });

  it('keeps each language apart', async () => {
    const event = await publishedEvent({ title: 'Evening concert' });
    await write('POST', `${EVENTS}/${event.id}`, { title: 'Concerto serale', translation_language: 'it' });
    assert.equal((await read(`${EVENTS}/${event.id}`)).title, 'Evening concert');
    assert.equal((await read(`${EVENTS}/${event.id}?translation_language=it`)).title, 'Concerto serale');
    assert.equal((await listed(event.id, '&translation_language=it')).title, 'Concerto serale');
    assert.equal((await listed(event.id)).title, 'Evening concert');
  });

  it('hides what another process protects, drafts or trashes', async () => {
    const protectedOne = await publishedEvent({ description: 'The secret programme' });
    const drafted = await publishedEvent();
    const trashed = await publishedEvent();
    for (const event of [protectedOne, drafted, trashed]) await read(`${EVENTS}/${event.id}`);
    assert.equal((await listed(protectedOne.id)).description, '<p>The secret programme</p>');

    await write('POST', `${EVENTS}/${protectedOne.id}`, { password: 'open sesame' });
    await write('POST', `${EVENTS}/${drafted.id}`, { status: 'draft' });
    await write('DELETE', `${EVENTS}/${trashed.id}`, {});
    const protectedRead = await reader.request(`${EVENTS}/${protectedOne.id}`);
    assert.equal(protectedRead.status, 403);
    assert.equal(protectedRead.body.code, 'event-password-protected');
    assert.equal((await listed(protectedOne.id)).description, '', 'stripped in the list');
    assert.doesNotMatch((await reader.request(`${EVENTS}?search=secret`)).text, /secret programme/);
    const draftRead = await reader.request(`${EVENTS}/${drafted.id}`);
    assert.equal(draftRead.status, 403);
    assert.equal(draftRead.body.code, 'event-not-accessible');
    assert.equal(await listed(drafted.id), undefined);
    assert.equal((await reader.request(`${EVENTS}/${trashed.id}`)).status, 403);
    assert.equal(await listed(trashed.id), undefined);
  });

  it('shows a scheduled venue on its events the moment its date passes, with no write', async () => {
    const soon = new Date(Date.now() + 2000);
    const venue = await write('POST', VENUES, { venue: 'Opening soon', status: 'future', date_utc: utcStamp(soon) });
    const event = await publishedEvent({ venue: venue.id });
    assert.deepEqual((await read(`${EVENTS}/${event.id}`)).venue, [], 'not public yet');
    while (Date.now() < soon.getTime() + 1000) await sleep(100);
    assert.equal((await read(`${EVENTS}/${event.id}`)).venue.venue, 'Opening soon');
  });
});

describe('EventRepresentations and the invalidation of calendar versions', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  const event = (title: string) => ({ id: 1, title, categories: [], tags: [] }) as unknown as EventResponse;
  const row = { id: 1 } as EventRow;
  const fresh = () => {
    const cache = new ReadCache({ versionBytes: 1024 * 1024, itemBytes: 1024 * 1024 });
    return { cache, representations: new EventRepresentations(cache) };
  };
  /** The version a request in a later event-loop tick reads at (versions are read once per tick). */
  const nextTick = async (versions: CalendarVersions) => {
    await new Promise((resolve) => setImmediate(resolve));
    return versions.of({ calendarVersion: null });
  };

  it('does not cache what was computed at a version older than the one invalidated up to', () => {
    const { cache, representations } = fresh();
    const from = utcStamp(new Date());
    const older = new CalendarVersion(cache, 1, from, null);
    const newer = new CalendarVersion(cache, 2, from, null);
    cache.invalidateItems([], newer.revision);
    representations.set(row, 'en', older, event('stale'));
    assert.equal(representations.get(1, 'en'), undefined, 'a change between the two versions would already have been invalidated');
    representations.set(row, 'en', newer, event('current'));
    assert.equal(representations.get(1, 'en')?.event.title, 'current');
    assert.equal(representations.get(1, 'it'), undefined);
  });

  it('shows newer term counts, and caches them in the entry only at the newest version invalidated up to', () => {
    const { cache, representations } = fresh();
    const from = utcStamp(new Date());
    const [older, newer] = [new CalendarVersion(cache, 1, from, null), new CalendarVersion(cache, 2, from, null)];
    const counted = { ...event('counted'), categories: [{ id: 7, count: 1 }] } as unknown as EventResponse;
    representations.set(row, 'en', older, counted);
    const entry = representations.get(1, 'en')!;
    assert.equal(representations.recounted(entry, 'en', new Map([[7, 1]]), older), entry.event, 'counts that hold: the same object');
    cache.invalidateItems([], newer.revision);
    const atOlder = representations.recounted(entry, 'en', new Map([[7, 2]]), older);
    assert.equal(atOlder.categories[0]!.count, 2);
    assert.equal(representations.get(1, 'en'), entry, 'a read at an older version does not replace the entry');
    const atNewer = representations.recounted(entry, 'en', new Map([[7, 3]]), newer);
    assert.equal(atNewer.categories[0]!.count, 3);
    const replaced = representations.get(1, 'en')!;
    assert.equal(replaced.event, atNewer, 'the newest counts take its place');
    assert.ok(Object.isFrozen(replaced.event));
    assert.equal(representations.recounted(replaced, 'en', new Map([[7, 3]]), newer), atNewer);
  });

  it('invalidates every representation when a scheduled publication passes', async () => {
    const admin = await server.admin();
    const scheduled = await server.request(EVENTS, {
      method: 'POST',
      auth: admin,
      body: { title: 'Later', status: 'future', date: '2099-06-01 10:00:00', start_date: '2099-07-01 10:00', end_date: '2099-07-01 11:00' },
    });
    assert.equal(scheduled.status, 201, scheduled.text);
    const { cache, representations } = fresh();
    let clock = new Date('2099-05-01T00:00:00Z');
    const versions = new CalendarVersions(server.server.store.db, cache, () => clock);
    const version = await nextTick(versions);
    representations.set(row, 'en', version, event('before'));
    clock = new Date('2099-06-01T09:59:59Z');
    assert.equal(await nextTick(versions), version);
    assert.equal(representations.get(1, 'en')?.event.title, 'before', 'still before the publication');
    clock = new Date('2099-06-01T10:00:00Z');
    assert.notEqual(await nextTick(versions), version);
    assert.equal(representations.get(1, 'en'), undefined);
    assert.equal((await server.request(`${EVENTS}/${scheduled.body.id}?force=true`, { method: 'DELETE', auth: admin })).status, 200);
  });

  it('invalidates an event written since the last version, though written again since, and keeps the others (issue 37)', async () => {
    const db = server.server.store.db;
    const admin = await server.admin();
    const [made, other] = [await makeEvent(server, admin, { status: 'publish' }), await makeEvent(server, admin, { status: 'publish' })];
    const retitle = async (title: string) =>
      assert.equal((await server.request(`${EVENTS}/${made.id}`, { method: 'POST', auth: admin, body: { title } })).status, 200);
    const { cache, representations } = fresh();
    const versions = new CalendarVersions(db, cache);
    const before = await nextTick(versions);
    assert.equal(before.revision, await readRevision(db, 'calendar'));
    representations.set({ id: made.id } as EventRow, 'en', before, event('before both writes'));
    representations.set({ id: other.id } as EventRow, 'en', before, event('untouched'));
    await retitle('First retitle');
    await retitle('Second retitle');
    const after = await nextTick(versions);
    assert.ok(after.revision > before.revision);
    assert.equal(representations.get(made.id, 'en'), undefined, 'what it showed before the writes is invalidated');
    assert.equal(representations.get(other.id, 'en')?.event.title, 'untouched');
  });
});
