/**
 * Events remembered per event and language (issue 26, events.remembered.ts).
 * The reading server remembers no answers (RESPONSE_CACHE_MB=0), so what it
 * shows comes from its remembered events; every write goes through a second
 * server on the same database, as another process of the deployment, so the
 * reader learns of it only from the database's change log.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { utcStamp } from '../../src/calendar/posts/posts.access.ts';
import { RememberedEvents } from '../../src/calendar/events/events.remembered.ts';
import { CalendarVersion } from '../../src/calendar/shared/calendar-version.ts';
import type { EventResponse } from '../../src/calendar/events/events.schemas.ts';
import type { EventRow } from '../../src/calendar/events/events.repository.ts';
import { readRevision } from '../../src/platform/db/revisions.ts';
import { versionOfEtag } from '../../src/platform/http/entity-tags.ts';
import type { RunningServer } from '../../src/server.ts';
import { startSecondServer, startTestServer, writeThrough, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from './events.factories.ts';
import { NS, VENUES } from './venues-organizers.factories.ts';

describe('events remembered per event, across processes', () => {
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
      title: 'Remembered concert',
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
    assert.equal((await read(`${EVENTS}/${event.id}`)).title, 'Remembered concert');
    assert.equal((await listed(event.id)).title, 'Remembered concert');

    await write('POST', `${EVENTS}/${event.id}`, { title: 'Renamed concert' });
    assert.equal((await read(`${EVENTS}/${event.id}`)).title, 'Renamed concert');
    assert.equal((await listed(event.id)).title, 'Renamed concert');

    await write('POST', `${VENUES}/${venue.id}`, { venue: 'New hall' });
    assert.equal((await read(`${EVENTS}/${event.id}`)).venue.venue, 'New hall');
    assert.equal((await listed(event.id)).venue.venue, 'New hall');

    await write('POST', `${NS}/categories/${category.id}`, { name: 'New kind' });
    assert.equal((await read(`${EVENTS}/${event.id}`)).categories[0].name, 'New kind');
  });

  it('tags a remembered single read by its bytes alone, and a write in another process moves both', async () => {
    const event = await publishedEvent({ title: 'Tagged concert' });
    const tagOf = async () => {
      const response = await reader.request(`${EVENTS}/${event.id}`);
      assert.equal(response.status, 200, response.text);
      return { tag: response.headers.get('etag') ?? '', title: response.body.title, jsonLd: response.body.json_ld };
    };
    const first = await tagOf();
    const again = await tagOf();
    assert.deepEqual(again, first, 'the remembered read answers the same bytes');
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

  it('counts the embedded terms again when another event joins them, the remembered event unchanged', async () => {
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

describe('RememberedEvents', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  const event = (title: string) => ({ id: 1, title, categories: [], tags: [] }) as unknown as EventResponse;
  const row = { id: 1 } as EventRow;

  it('does not keep what was made at a version older than the one caught up to', async () => {
    const remembered = new RememberedEvents(server.server.store.db, 1024 * 1024);
    const from = utcStamp(new Date());
    const older = new CalendarVersion(1, from, null);
    const newer = new CalendarVersion(2, from, null);
    await remembered.catchUp(older);
    await remembered.catchUp(newer);
    remembered.remember(row, 'en', older, event('stale'));
    assert.equal(remembered.get(1, 'en'), undefined, 'a change between the two versions would already have been forgotten');
    remembered.remember(row, 'en', newer, event('current'));
    assert.equal(remembered.get(1, 'en')?.event.title, 'current');
    assert.equal(remembered.get(1, 'it'), undefined);
  });

  it('shows newer term counts, and keeps them in the entry only at the newest version caught up to', async () => {
    const remembered = new RememberedEvents(server.server.store.db, 1024 * 1024);
    const from = utcStamp(new Date());
    const [older, newer] = [new CalendarVersion(1, from, null), new CalendarVersion(2, from, null)];
    await remembered.catchUp(older);
    const counted = { ...event('counted'), categories: [{ id: 7, count: 1 }] } as unknown as EventResponse;
    remembered.remember(row, 'en', older, counted);
    const entry = remembered.get(1, 'en')!;
    const kept = entry.event;
    assert.equal(remembered.recounted(entry, new Map([[7, 1]]), older), kept, 'counts that hold: the same object (its text serves again)');
    await remembered.catchUp(newer);
    const atOlder = remembered.recounted(entry, new Map([[7, 2]]), older);
    assert.equal(atOlder.categories[0]!.count, 2);
    assert.equal(entry.event, kept, 'a read at an older version does not replace the entry');
    const atNewer = remembered.recounted(entry, new Map([[7, 3]]), newer);
    assert.equal(atNewer.categories[0]!.count, 3);
    assert.equal(entry.event, atNewer, 'the newest counts take its place');
    assert.ok(Object.isFrozen(entry.event));
    assert.equal(remembered.recounted(entry, new Map([[7, 3]]), newer), atNewer);
  });

  it('forgets everything when a scheduled publication passes', async () => {
    const remembered = new RememberedEvents(server.server.store.db, 1024 * 1024);
    const version = new CalendarVersion(1, '2030-01-01 00:00:00', '2030-01-01 10:00:00');
    await remembered.catchUp(version);
    remembered.remember(row, 'en', version, event('before'));
    await remembered.catchUp(new CalendarVersion(1, '2030-01-01 09:59:59', '2030-01-01 10:00:00'));
    assert.equal(remembered.get(1, 'en')?.event.title, 'before', 'still before the publication');
    await remembered.catchUp(new CalendarVersion(1, '2030-01-01 10:00:00', null));
    assert.equal(remembered.get(1, 'en'), undefined);
  });

  it('forgets an event changed up to the version it catches up to, though written again since (issue 37)', async () => {
    const db = server.server.store.db;
    const admin = await server.admin();
    const made = await makeEvent(server, admin, { status: 'publish' });
    const retitle = async (title: string) =>
      assert.equal((await server.request(`${EVENTS}/${made.id}`, { method: 'POST', auth: admin, body: { title } })).status, 200);
    const current = async () => new CalendarVersion(await readRevision(db, 'calendar'), utcStamp(new Date()), null);
    const remembered = new RememberedEvents(db, 1024 * 1024);
    const before = await current();
    await remembered.catchUp(before);
    remembered.remember({ id: made.id } as EventRow, 'en', before, event('before both writes'));
    await retitle('First retitle');
    // The version a read gets once the first write is answered; another process writes again before the read
    // catches up, which moves the event's entry in the log past that version.
    const version = await current();
    await retitle('Second retitle');
    await remembered.catchUp(version);
    assert.equal(remembered.get(made.id, 'en'), undefined, 'what it showed before the first write is forgotten');
  });
});
