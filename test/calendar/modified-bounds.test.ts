/**
 * `modified_after` / `modified_before` on the event, venue and organizer
 * lists, as a client mirroring the calendar sends them (WordPress 5.7's
 * arguments): ISO 8601, UTC unless an offset is given, exclusive bounds.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, ids, makeEvent } from './events.factories.ts';
import { makeOrganizer, makeVenue, NS, ORGANIZERS, VENUES } from './venues-organizers.factories.ts';

describe('lists by last modification', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  /** Arranges when an item was last modified (the API stamps the clock's second); a term's is its last change. */
  const modifiedAt = async (table: 'events' | 'venues' | 'organizers' | 'category' | 'tag', id: number, utc: string) => {
    const { db } = server.server.store;
    if (table === 'category' || table === 'tag') {
      await db.updateTable('calendar_changes').set({ changed_at: utc }).where('type', '=', table).where('item_id', '=', id).execute();
    } else await db.updateTable(table).set({ modified_utc: utc, modified: utc }).where('id', '=', id).execute();
  };
  const makeTerm = async (collection: 'categories' | 'tags') => {
    const response = await server.request(`${NS}/${collection}`, { method: 'POST', auth: admin, body: { name: `Term ${Math.random()}` } });
    assert.equal(response.status, 201, response.text);
    return response.body;
  };
  const listed = async (path: string, auth?: Credentials) => {
    const response = await server.request(path, auth ? { auth } : {});
    assert.equal(response.status, 200, response.text);
    return response;
  };

  const kinds = [
    { name: 'events', path: EVENTS, table: 'events', plural: 'events', make: () => makeEvent(server, admin, { status: 'publish' }) },
    { name: 'venues', path: VENUES, table: 'venues', plural: 'venues', make: () => makeVenue(server, admin, { status: 'publish' }) },
    {
      name: 'organizers',
      path: ORGANIZERS,
      table: 'organizers',
      plural: 'organizers',
      make: () => makeOrganizer(server, admin, { status: 'publish' }),
    },
    {
      name: 'categories',
      path: `${NS}/categories?hide_empty=false`,
      table: 'category',
      plural: 'categories',
      make: () => makeTerm('categories'),
    },
    { name: 'tags', path: `${NS}/tags?hide_empty=false`, table: 'tag', plural: 'tags', make: () => makeTerm('tags') },
  ] as const;

  for (const kind of kinds) {
    it(`lists ${kind.name} modified after or before a moment, exclusive, in UTC unless an offset is given`, async () => {
      const first = await kind.make();
      const second = await kind.make();
      await modifiedAt(kind.table, first.id, '2026-01-01 10:00:00');
      await modifiedAt(kind.table, second.id, '2026-01-02 10:00:00');
      const only = async (query: string) => {
        const items = (await listed(`${kind.path}${kind.path.includes('?') ? '&' : '?'}per_page=50&${query}`)).body[kind.plural];
        return (items as { id: number }[]).map((item) => item.id).filter((id) => id === first.id || id === second.id);
      };
      assert.deepEqual(await only('modified_after=2026-01-01T10:00:00Z'), [second.id], 'the bound itself is excluded');
      assert.deepEqual((await only('modified_after=2026-01-01T11:00:00%2B02:00')).sort(), [first.id, second.id].sort(), '09:00 UTC');
      assert.deepEqual(await only('modified_before=2026-01-02T10:00:00'), [first.id], 'no offset: UTC');
      assert.deepEqual(await only('modified_after=2026-01-01&modified_before=2026-01-02'), [first.id]);
      assert.deepEqual(await only('modified_after=2026-01-02T10:00:00Z'), []);
    });

    for (const [query, name] of [
      ['modified_after=yesterday', 'modified_after'],
      ['modified_after=2026-02-30T10:00:00Z', 'modified_after'],
      ['modified_before=2026-01-01T10:00:00%2B25:00', 'modified_before'],
      ['modified_before=1700000000', 'modified_before'],
    ] as const) {
      it(`refuses ${kind.name}?${decodeURIComponent(query)} with a 400 naming ${name}`, async () => {
        const response = await server.request(`${kind.path}${kind.path.includes('?') ? '&' : '?'}${query}`);
        assert.equal(response.status, 400, response.text);
        assert.equal(response.body.code, 'rest_invalid_param');
        assert.deepEqual(Object.keys(response.body.data.params), [name]);
      });
    }
  }

  it('finds an event modified since, whatever its dates (the default date window does not apply), and nothing hidden', async () => {
    const past = await makeEvent(server, admin, { status: 'publish', start_date: '2020-03-01 10:00', end_date: '2020-03-01 11:00' });
    const draft = await makeEvent(server, admin, { status: 'draft' });
    const since = '2026-06-01T00:00:00Z';
    await modifiedAt('events', past.id, '2026-05-01 00:00:00');
    assert.ok(!ids((await listed(`${EVENTS}?modified_after=${since}`)).body).includes(past.id));
    const edited = await server.request(`${EVENTS}/${past.id}`, { method: 'PATCH', auth: admin, body: { title: 'Edited' } });
    assert.equal(edited.status, 200, edited.text);
    const anonymous = ids((await listed(`${EVENTS}?modified_after=${since}&per_page=50`)).body);
    assert.ok(anonymous.includes(past.id), 'an edit counts, for an event of 2020');
    assert.ok(!anonymous.includes(draft.id), 'drafts stay hidden from anonymous callers');
    assert.ok(ids((await listed(`${EVENTS}?modified_after=${since}&per_page=50`, admin)).body).includes(draft.id));
  });

  it('repeats the bounds in the archive links, so that following them lists the same items', async () => {
    for (let made = 0; made < 2; made += 1) await makeEvent(server, admin, { status: 'publish' });
    const response = await listed(`${EVENTS}?per_page=1&modified_after=2026-01-01T00:00:00Z&modified_before=2100-01-01T00:00:00Z`);
    const next = response.body.next_rest_url as string;
    assert.match(next, /modified_after=2026-01-01T00%3A00%3A00Z|modified_after=2026-01-01T00:00:00Z/);
    assert.match(next, /modified_before=/);
    for (let made = 0; made < 2; made += 1) await makeVenue(server, admin, { status: 'publish' });
    const venueList = await listed(`${VENUES}?per_page=1&modified_after=2026-01-01T00:00:00Z`);
    assert.match(venueList.headers.get('link') ?? '', /modified_after=/);
  });
});
