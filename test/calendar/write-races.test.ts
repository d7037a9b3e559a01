/**
 * Writes read and check inside the transaction that writes (issue 19.3):
 * another connection changes the event and holds its change while a request
 * runs, then commits; the request must decide on what was committed. Before
 * the fix each request read the event outside its transaction and wrote over
 * the concurrent change (or orphaned rows, or answered 500).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { competingWrite } from '../helpers/competing-writer.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from './events.factories.ts';

/** `YYYY-MM-DD HH:MM:SS` shifted by `ms`. */
function shifted(stamp: string, ms: number): string {
  return new Date(Date.parse(`${stamp.replace(' ', 'T')}Z`) + ms).toISOString().slice(0, 19).replace('T', ' ');
}

describe('writes racing other writes', () => {
  let server: TestServer;
  let admin: Credentials;
  let contributor: Credentials;
  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
    contributor = await server.createUser('contributor');
  });
  after(async () => server.close());

  it("a contributor's update racing an editor's publish is refused, and the published event keeps its title", async () => {
    const event = await makeEvent(server, contributor, { title: 'Pending talk', status: 'pending' });
    assert.equal(event.status, 'pending');
    const publish = await competingWrite(server, [["update events set status = 'publish' where id = ?", event.id]]);
    const update = server.request(`${EVENTS}/${event.id}`, { method: 'PATCH', auth: contributor, body: { title: 'Contributor title' } });
    await publish.commitOnceBlocked();
    const answer = await update;
    assert.equal(answer.status, 403, answer.text);
    const stored = await server.request(`${EVENTS}/${event.id}`, { auth: admin });
    assert.equal(stored.body.status, 'publish');
    assert.equal(stored.body.title, 'Pending talk');
  });

  it('two partial updates of different fields both hold: a new start keeps an end changed meanwhile', async () => {
    const event = await makeEvent(server, admin, { start_date: '2038-03-01 10:00', end_date: '2038-03-01 12:00' });
    const offset = Date.parse(`${event.end_date.replace(' ', 'T')}Z`) - Date.parse(`${event.utc_end_date.replace(' ', 'T')}Z`);
    const laterEnd = '2038-03-01 18:00:00';
    const moveEnd = await competingWrite(server, [
      ['update events set end_local = ?, end_utc = ? where id = ?', laterEnd, shifted(laterEnd, -offset), event.id],
    ]);
    const update = server.request(`${EVENTS}/${event.id}`, { method: 'PATCH', auth: admin, body: { start_date: '2038-03-01 11:00' } });
    await moveEnd.commitOnceBlocked();
    const answer = await update;
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.start_date, '2038-03-01 11:00:00');
    assert.equal(answer.body.end_date, laterEnd, 'the end written meanwhile is kept');
  });

  it('an update racing a permanent delete is a clean 404 and leaves no slug, text or term behind', async () => {
    const event = await makeEvent(server, admin, { title: 'Doomed', categories: ['race-before'] });
    const remove = await competingWrite(server, [
      ["delete from translations where resource_type = 'event' and resource_id = ?", event.id],
      ["delete from slugs where resource_type = 'event' and resource_id = ?", event.id],
      ['delete from events where id = ?', event.id],
      ['delete from post_ids where id = ?', event.id],
    ]);
    const update = server.request(`${EVENTS}/${event.id}`, {
      method: 'PATCH',
      auth: admin,
      body: { title: 'Too late', slug: 'too-late', categories: ['race-after'] },
    });
    await remove.commitOnceBlocked();
    const answer = await update;
    assert.equal(answer.status, 404, answer.text);
    assert.equal(answer.body.code, 'rest-event-not-found');
    const db = server.server.store.db;
    const left = await Promise.all([
      db.selectFrom('slugs').select('slug').where('resource_type', '=', 'event').where('resource_id', '=', event.id).execute(),
      db.selectFrom('translations').select('field').where('resource_type', '=', 'event').where('resource_id', '=', event.id).execute(),
    ]);
    assert.deepEqual(left, [[], []]);
    const reuse = await makeEvent(server, admin, { title: 'Too late', slug: 'too-late' });
    assert.equal(reuse.slug, 'too-late', 'the slug is free');
    const terms = await server.request('/calendar/events/v1/categories?hide_empty=false&search=race-after');
    assert.equal(terms.body.total, 0, 'no term was created for the refused write');
  });
});
