/**
 * `GET /changes` as a mirroring client uses it (issue 23): a token, then
 * what changed since, page by page; tombstones only for what the caller
 * could see; tokens that are forged, foreign or too old are refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encodeToken } from '../../src/calendar/changes/changes.tokens.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from './events.factories.ts';
import { CHANGES, SyncClient } from './sync.client.ts';
import { makeOrganizer, makeVenue, NS, VENUES } from './venues-organizers.factories.ts';

describe('incremental sync', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  const keys = (entries: any[]) => entries.map((entry) => `${entry.type}:${entry.id}${entry.deleted ? ' deleted' : ''}`);
  const write = async (path: string, method: string, body?: unknown) => {
    const response = await server.request(path, { method, auth: admin, ...(body === undefined ? {} : { body }) });
    assert.ok(response.status < 300, response.text);
    return response.body;
  };
  const tokenKey = async () =>
    (await server.server.store.db.selectFrom('calendar_change_log').select('token_key').executeTakeFirstOrThrow()).token_key;

  it('starts with a token and no items, then sends what was created and changed since, oldest first, once', async () => {
    const client = new SyncClient(server);
    await client.start();
    const venue = await makeVenue(server, admin, { status: 'publish' });
    const organizer = await makeOrganizer(server, admin, { status: 'publish' });
    const category = await write(`${NS}/categories`, 'POST', { name: `Sync ${Date.now()}` });
    const event = await makeEvent(server, admin, {
      status: 'publish',
      venue: venue.id,
      organizer: [organizer.id],
      categories: [category.id],
    });
    const first = await client.sync();
    assert.deepEqual(keys(first), [`venue:${venue.id}`, `organizer:${organizer.id}`, `event:${event.id}`, `category:${category.id}`]);
    // Each item is sent as its list shows it.
    const listed = await server.request(`${EVENTS}?include=${event.id}`);
    assert.deepEqual(first.find((entry) => entry.type === 'event').item, listed.body.events[0]);
    assert.deepEqual(await client.sync(), [], 'nothing changed since');

    await write(`${VENUES}/${venue.id}`, 'POST', { venue: 'Renamed hall' });
    const renamed = await client.sync();
    // One write: in the order of the log, which within one transaction is no order of time.
    assert.deepEqual(keys(renamed).sort(), [`event:${event.id}`, `venue:${venue.id}`], 'an event shows its venue: it changed too');
    assert.equal(renamed.find((entry) => entry.type === 'event').item.venue.venue, 'Renamed hall');

    await write(`${VENUES}/${venue.id}`, 'POST', { address: '1 Sync Street' });
    await write(`${NS}/organizers/${organizer.id}`, 'POST', { phone: '+39 555 0100' });
    const moved = await client.sync();
    assert.deepEqual(keys(moved).sort(), [`event:${event.id}`, `organizer:${organizer.id}`, `venue:${venue.id}`]);
    const shown = moved.find((entry) => entry.type === 'event').item;
    assert.equal(shown.venue.address, '1 Sync Street');
    assert.equal(shown.organizer[0].phone, '+39 555 0100');
  });

  it('pages a sync with page tokens and gives the next sync token on the last page only', async () => {
    const client = new SyncClient(server);
    await client.start();
    const made = [];
    for (let index = 0; index < 7; index += 1) made.push((await makeEvent(server, admin, { status: 'publish' })).id);
    const first = await server.request(`${CHANGES}?sync_token=${client.token}&per_page=3`);
    assert.equal(first.status, 200);
    assert.equal(first.body.changes.length, 3);
    assert.equal(first.body.next_sync_token, undefined);
    assert.ok(first.body.next_page_token);
    // A page token is not a sync token, and the other way round.
    const swapped = await server.request(`${CHANGES}?sync_token=${first.body.next_page_token}`);
    assert.equal(swapped.status, 400);
    assert.equal(swapped.body.code, 'rest_invalid_param');
    const both = await server.request(`${CHANGES}?sync_token=${client.token}&page_token=${first.body.next_page_token}`);
    assert.equal(both.status, 400);
    const entries = await client.sync(3);
    assert.deepEqual(
      entries.map((entry) => entry.id),
      made,
    );
  });

  it('keeps a change made while a sync is paged for the next sync, and loses none', async () => {
    const client = new SyncClient(server);
    await client.start();
    const [a, b, c] = [await makeEvent(server, admin), await makeEvent(server, admin), await makeEvent(server, admin)];
    const first = await server.request(`${CHANGES}?sync_token=${client.token}&per_page=1`);
    assert.deepEqual(keys(first.body.changes), [`event:${a.id}`]);
    await write(`${EVENTS}/${b.id}`, 'POST', { title: 'Changed while paging' });
    const second = await server.request(`${CHANGES}?page_token=${first.body.next_page_token}&per_page=5`);
    assert.deepEqual(keys(second.body.changes), [`event:${c.id}`], 'b moved past the end of this sync');
    const next = await server.request(`${CHANGES}?sync_token=${second.body.next_sync_token}`);
    assert.deepEqual(keys(next.body.changes), [`event:${b.id}`]);
    assert.equal(next.body.changes[0].item.title, 'Changed while paging');
  });

  it('tells anonymous callers of removals of what they could see, and of nothing else', async () => {
    const anonymous = new SyncClient(server);
    const editor = new SyncClient(server, admin);
    await anonymous.start();
    await editor.start();
    const shown = await makeEvent(server, admin, { status: 'publish' });
    const draft = await makeEvent(server, admin, { status: 'draft', title: 'Secret plan' });
    const venueDraft = await makeVenue(server, admin, { status: 'draft' });
    assert.deepEqual(keys(await anonymous.sync()), [`event:${shown.id}`]);
    assert.deepEqual(keys(await editor.sync()), [`event:${shown.id}`, `event:${draft.id}`, `venue:${venueDraft.id}`]);

    await write(`${EVENTS}/${shown.id}`, 'DELETE');
    await write(`${EVENTS}/${draft.id}?force=true`, 'DELETE');
    await write(`${VENUES}/${venueDraft.id}?force=true`, 'DELETE');
    const told = await anonymous.sync();
    assert.deepEqual(told, [{ id: shown.id, type: 'event', deleted: true }], 'the draft and the draft venue are never named');
    assert.ok(!JSON.stringify(anonymous.received).includes('Secret plan'));
    const toldEditor = await editor.sync();
    assert.deepEqual(
      keys(toldEditor).sort(),
      [`event:${draft.id} deleted`, `event:${shown.id} deleted`, `venue:${venueDraft.id} deleted`].sort(),
    );
  });

  it('unpublishing is a removal for anonymous callers; publishing again brings the item back', async () => {
    const anonymous = new SyncClient(server);
    await anonymous.start();
    const event = await makeEvent(server, admin, { status: 'publish' });
    await anonymous.sync();
    await write(`${EVENTS}/${event.id}`, 'POST', { status: 'draft' });
    assert.deepEqual(await anonymous.sync(), [{ id: event.id, type: 'event', deleted: true }]);
    await write(`${EVENTS}/${event.id}`, 'POST', { status: 'publish' });
    assert.deepEqual(keys(await anonymous.sync()), [`event:${event.id}`]);
  });

  it('sends a protected event as anonymous lists show it: without what its password guards', async () => {
    const anonymous = new SyncClient(server);
    await anonymous.start();
    const event = await makeEvent(server, admin, { status: 'publish', password: 'open sesame', description: 'Behind the door' });
    const [entry] = await anonymous.sync();
    assert.equal(entry.id, event.id);
    assert.ok(!JSON.stringify(entry).includes('Behind the door'));
    const listed = await server.request(`${EVENTS}?include=${event.id}`);
    assert.deepEqual(entry.item, listed.body.events[0]);
  });

  it('sends a scheduled event when its time comes, without any write', async () => {
    const anonymous = new SyncClient(server);
    await anonymous.start();
    const at = new Date(Date.now() + 2000);
    const event = await makeEvent(server, admin, { status: 'future', date_utc: at.toISOString().slice(0, 19).replace('T', ' ') });
    assert.deepEqual(await anonymous.sync(), []);
    await new Promise((resolve) => setTimeout(resolve, at.getTime() - Date.now() + 1100));
    assert.deepEqual(keys(await anonymous.sync()), [`event:${event.id}`]);
    assert.deepEqual(await anonymous.sync(), []);
  });

  it('records a scheduled publication whose time came only for a request it answers, never for a refused one', async () => {
    const anonymous = new SyncClient(server);
    await anonymous.start();
    const at = new Date(Date.now() + 1000);
    const event = await makeEvent(server, admin, { status: 'future', date_utc: at.toISOString().slice(0, 19).replace('T', ' ') });
    await new Promise((resolve) => setTimeout(resolve, at.getTime() - Date.now() + 1100));
    const log = () =>
      server.server.store.db.selectFrom('calendar_changes').select(['seq', 'due_at']).where('item_id', '=', event.id).execute();
    const before = await log();
    for (const refused of [
      `${CHANGES}?type=bogus`,
      `${CHANGES}?sync_token=${anonymous.token}&type=venue`,
      `${CHANGES}?sync_token=nonsense`,
    ]) {
      const response = await server.request(refused);
      assert.ok(response.status >= 400 && response.status < 500, `${refused}: ${response.status}`);
      assert.deepEqual(await log(), before, `${refused} wrote nothing`);
    }
    assert.deepEqual(keys(await anonymous.sync()), [`event:${event.id}`]);
    assert.notDeepEqual(await log(), before);
  });

  it('moves a child category and its events when the parent changes its slug', async () => {
    const parent = await write(`${NS}/categories`, 'POST', { name: `Parent ${Date.now()}` });
    const child = await write(`${NS}/categories`, 'POST', { name: `Child ${Date.now()}`, parent: parent.id });
    const event = await makeEvent(server, admin, { status: 'publish', categories: [child.id] });
    const client = new SyncClient(server);
    await client.start();
    await write(`${NS}/categories/${parent.id}`, 'POST', { slug: `moved-${Date.now()}` });
    const entries = await client.sync();
    assert.deepEqual(keys(entries).sort(), [`category:${child.id}`, `category:${parent.id}`, `event:${event.id}`].sort());
    const movedChild = entries.find((entry) => entry.id === child.id && entry.type === 'category');
    assert.match(movedChild.item.url, /\/moved-\d+\//);
  });

  it('fixes the caller, the types and the language by the token', async () => {
    const venues = new SyncClient(server, undefined, 'type=venue&translation_language=it');
    await venues.start();
    await makeEvent(server, admin, { status: 'publish' });
    const venue = await makeVenue(server, admin, { status: 'publish' });
    assert.deepEqual(keys(await venues.sync()), [`venue:${venue.id}`]);
    for (const query of ['type=event', 'translation_language=en']) {
      const response = await server.request(`${CHANGES}?sync_token=${venues.token}&${query}`);
      assert.equal(response.status, 400, query);
      assert.equal(response.body.code, 'rest_invalid_param');
    }
    const same = await server.request(`${CHANGES}?sync_token=${venues.token}&type=venue`);
    assert.equal(same.status, 200);
    const other = await server.request(`${CHANGES}?sync_token=${venues.token}`, { auth: admin });
    assert.equal(other.status, 400, 'a token is its caller’s');
    for (const type of ['events', 'event,bogus', '']) {
      const response = await server.request(`${CHANGES}?type=${type}`);
      assert.equal(response.status, 400, type);
    }
  });

  it('answers 410 to tokens it did not issue, or issued too long ago, and after the removals they need are pruned', async () => {
    const client = new SyncClient(server);
    await client.start();
    const token = client.token as string;
    const edited = `${token.slice(0, 20)}${token[20] === 'A' ? 'B' : 'A'}${token.slice(21)}`;
    for (const bad of [edited, token.slice(0, -2), 'not-a-token', `${token}.x`]) {
      const response = await server.request(`${CHANGES}?sync_token=${bad}`);
      assert.equal(response.status, 410, bad);
      assert.equal(response.body.code, 'rest_sync_token_expired');
    }
    const key = await tokenKey();
    const types = ['event', 'venue', 'organizer', 'category', 'tag'] as const;
    const old = encodeToken(key, { from: 0, issued: Math.floor(Date.now() / 1000) - 31 * 86_400, types, language: 'en', user: 0 });
    assert.equal((await server.request(`${CHANGES}?sync_token=${old}`)).status, 410, 'older than CHANGES_RETENTION_DAYS');
    const future = encodeToken(key, { from: 10 ** 12, issued: Math.floor(Date.now() / 1000), types, language: 'en', user: 0 });
    assert.equal((await server.request(`${CHANGES}?sync_token=${future}`)).status, 410, 'from a change that never was');

    const event = await makeEvent(server, admin, { status: 'publish' });
    await client.sync();
    const beforeRemoval = client.token as string;
    await write(`${EVENTS}/${event.id}?force=true`, 'DELETE');
    const keeper = new SyncClient(server);
    await keeper.start();
    // The prune CLI's work, with no age limit.
    const { pruneChangeLog } = await import('../../src/calendar/changes/changes.retention.ts');
    const { pruned } = await pruneChangeLog(server.server.store.db, 0, new Date(Date.now() + 2000));
    assert.ok(pruned >= 1);
    const expired = await server.request(`${CHANGES}?sync_token=${beforeRemoval}`);
    assert.equal(expired.status, 410, 'the removal it would need is pruned');
    assert.equal((await server.request(`${CHANGES}?sync_token=${keeper.token}`)).status, 200, 'a token from after it still works');
  });
});
