/**
 * What a process caches across versions stays exact after a prune of the change log, and an
 * anonymous answer's ETag moves only with its bytes (issue 36, defects 7 and 8).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pruneChangeLog } from '../../src/calendar/changes/changes.retention.ts';
import type { RunningServer } from '../../src/server.ts';
import { startSecondServer, startTestServer, writeThrough, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from './events.factories.ts';
import { makeOrganizer, makeVenue, NS, ORGANIZERS, VENUES } from './venues-organizers.factories.ts';

describe('a prune of the change log in another process', () => {
  let reader: TestServer;
  let writer: RunningServer;
  let admin: Credentials;

  before(async () => {
    reader = await startTestServer();
    writer = await startSecondServer(reader);
    admin = await reader.admin();
  });
  after(async () => {
    await writer.close();
    await reader.close();
  });

  const publish = (title: string, day: string) =>
    writeThrough(writer, admin, 'POST', EVENTS, { title, status: 'publish', start_date: `${day} 20:00:00`, end_date: `${day} 22:00:00` });

  it('invalidates a deleted event whose removal it never read: lists, totals, pages and single reads', async () => {
    const kept = await publish('Kept concert', '2033-05-02');
    const gone = await publish('Deleted concert', '2033-05-03');
    const window = `${EVENTS}?start_date=2033-05-01&end_date=2033-05-31`;
    const list = async (query = '') => {
      const response = await reader.request(`${window}${query}`);
      return { status: response.status, total: response.headers.get('x-wp-total'), ids: response.body.events?.map((e: any) => e.id) };
    };
    // Read alone first, so that single reads have it cached; then listed.
    for (let read = 0; read < 2; read += 1) assert.equal((await reader.request(`${EVENTS}/${gone.id}`)).status, 200);
    assert.deepEqual(await list(), { status: 200, total: '2', ids: [kept.id, gone.id] });
    assert.deepEqual(await list('&per_page=1&page=2'), { status: 200, total: '2', ids: [gone.id] });

    await writeThrough(writer, admin, 'DELETE', `${EVENTS}/${gone.id}?force=true`, {});
    // `almanac changes prune --older-than 1m` a minute later: the tombstone goes before the reader reads the log.
    const { pruned } = await pruneChangeLog(writer.store.db, 60, new Date(Date.now() + 120_000));
    assert.ok(pruned >= 1, 'the removal was pruned');

    const seen = {
      list: await list(),
      pageAfterTheLast: (await list('&per_page=1&page=2')).status,
      singleRead: (await reader.request(`${EVENTS}/${gone.id}`)).status,
    };
    assert.deepEqual(seen, { list: { status: 200, total: '1', ids: [kept.id] }, pageAfterTheLast: 404, singleRead: 404 });
  });

  it('expires a sync token at once in a process that cached its answer, as a process started now does (issue 37)', async () => {
    const changes = async (query: string) => (await reader.request(`${NS}/changes?${query}`)).status;
    const sync = (await reader.request(`${NS}/changes`)).body.next_sync_token as string;
    const gone = await publish('Deleted recital', '2033-06-03');
    await writeThrough(writer, admin, 'DELETE', `${EVENTS}/${gone.id}?force=true`, {});
    assert.equal(await changes(`sync_token=${sync}`), 200);
    assert.equal(await changes(`sync_token=${sync}`), 200, 'cached for the version');
    // `almanac changes prune --older-than 1m` a minute later: the removal the token has yet to hear of is pruned.
    const { pruned } = await pruneChangeLog(writer.store.db, 60, new Date(Date.now() + 120_000));
    assert.ok(pruned >= 1, 'the removal was pruned');
    assert.equal(await changes(`sync_token=${sync}`), 410);
  });
});

describe('the ETag of an anonymous answer', () => {
  let server: TestServer;
  let admin: Credentials;

  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  const edit = async (path: string, body: Record<string, unknown>) => {
    const response = await server.request(path, { method: 'POST', auth: admin, body });
    assert.equal(response.status, 200, response.text);
  };
  /** An anonymous GET, as a poller sends it (the HTML pages are no operation of the API's document). */
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${server.url}${path}`, { headers });
    await response.arrayBuffer();
    return { status: response.status, etag: response.headers.get('etag') };
  };
  /** Each answer's status and tag when asked again with the tag it had. */
  const revalidated = async (tags: ReadonlyMap<string, string>) => {
    const seen: Record<string, { status: number; etag: string | null }> = {};
    for (const [path, etag] of tags) seen[path] = await get(path, { 'if-none-match': etag });
    return seen;
  };

  it('stays while only what the caller is not shown changes, and moves with what it shows', async () => {
    const venue = await makeVenue(server, admin, { status: 'draft', venue: 'Hidden hall' });
    const organizer = await makeOrganizer(server, admin, { status: 'draft', organizer: 'Hidden band', phone: '+39 1' });
    const category = (await server.request(`${NS}/categories`, { method: 'POST', auth: admin, body: { name: 'Shown kind' } })).body;
    const event = await makeEvent(server, admin, {
      status: 'publish',
      title: 'Open concert',
      venue: venue.id,
      organizer: [organizer.id],
      categories: [category.id],
    });
    const paths = [
      `${EVENTS}/${event.id}`,
      `${EVENTS}/by-slug/${event.slug}`,
      EVENTS,
      `${EVENTS}/${event.id}.ics`,
      `${NS}/events.ics`,
      `${NS}/categories/${category.id}`,
      `/event/${event.slug}/`,
      '/events/list/',
    ];
    const contributor = await server.createUser('contributor');
    const asContributor = async () => (await server.request(`${EVENTS}/${event.id}`, { auth: contributor })).headers.get('etag');
    const contributorTag = await asContributor();
    const tags = new Map<string, string>();
    for (const path of paths) {
      const { status, etag } = await get(path);
      assert.equal(status, 200, path);
      tags.set(path, etag ?? '');
    }

    await edit(`${VENUES}/${venue.id}`, { venue: 'Renamed hidden hall' });
    await edit(`${ORGANIZERS}/${organizer.id}`, { organizer: 'Renamed hidden band', phone: '+39 2' });
    await makeEvent(server, admin, { status: 'draft', title: 'Hidden concert', categories: [category.id] });
    const unchanged = Object.fromEntries([...tags].map(([path, etag]) => [path, { status: 304, etag }]));
    assert.deepEqual(await revalidated(tags), unchanged, 'the same answers, the same tags');
    assert.equal(await asContributor(), contributorTag, 'nor for a signed-in caller who may not edit the event');

    await edit(`${EVENTS}/${event.id}`, { title: 'Open concert, moved' });
    await edit(`${NS}/categories/${category.id}`, { name: 'Shown kind, renamed' });
    for (const [path, { status, etag }] of Object.entries(await revalidated(tags))) {
      assert.equal(status, 200, `${path}: sent again`);
      assert.notEqual(etag, tags.get(path), `${path}: a new tag`);
    }
  });
});
