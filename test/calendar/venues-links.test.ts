import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { toWpError } from '../../src/calendar/errors.ts';
import { loadTranslations } from '../../src/calendar/posts/posts.texts.ts';
import {
  assertVenuesReadable,
  findEmbeddableVenues,
  presentEmbeddedVenues,
  resolveVenueForWrite,
  venueIdNamedBy,
} from '../../src/calendar/venues/venues.links.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { contextOf, makeVenue, NS, postPasswords, VENUES } from './venues-organizers.factories.ts';
import { rejectsNaming } from '../helpers/assertions.ts';

let server: TestServer;
let admin: Credentials;
let contributor: Credentials;
let subscriber: Credentials;

before(async () => {
  server = await startTestServer();
  admin = await server.admin();
  contributor = await server.createUser('contributor');
  subscriber = await server.createUser('subscriber');
});
after(async () => server.close());

const db = () => server.server.store.db;

describe('resolveVenueForWrite', () => {
  it('accepts an id, a numeric string, a one-item list and {id}', async () => {
    const venue = await makeVenue(server, admin, {});
    const ctx = contextOf(server, admin);
    for (const input of [
      venue.id,
      String(venue.id),
      [venue.id],
      [String(venue.id)],
      { id: venue.id },
      { id: String(venue.id) },
      [{ id: venue.id }],
      ` ${venue.id}`,
    ]) {
      assert.equal(await resolveVenueForWrite(db(), input, ctx, postPasswords(server)), venue.id, JSON.stringify(input));
      // What a create sends its insert with before the check has answered.
      assert.equal(venueIdNamedBy(input), venue.id, JSON.stringify(input));
    }
    // An inline venue, and what the check refuses, are known only once it has answered.
    for (const input of [{ venue: 'Inline' }, { id: 0, venue: 'Inline' }, [venue.id, venue.id], 'foo', -3, 1.5, true, [[venue.id]]]) {
      assert.equal(venueIdNamedBy(input), undefined, JSON.stringify(input));
    }
  });

  it('refuses a create or an update naming an unknown or trashed venue by id, storing nothing, alone or among the creates of its tick', async () => {
    const venue = await makeVenue(server, admin, {});
    const trashed = await makeVenue(server, admin, {});
    await server.request(`${VENUES}/${trashed.id}`, { method: 'DELETE', auth: admin });
    const title = `Venue check ${Date.now()}`;
    const create = (venueInput: unknown) =>
      server.request(`${NS}/events`, {
        method: 'POST',
        auth: admin,
        body: { title, start_date: '2031-03-01 10:00:00', end_date: '2031-03-01 11:00:00', status: 'publish', venue: venueInput },
      });
    const refused = [23_000, String(23_000), { id: 23_000 }, trashed.id];
    for (const input of refused) {
      const alone = await create(input);
      assert.equal(alone.status, 400, JSON.stringify(input));
      assert.equal(alone.body.data.params.venue !== undefined, true, JSON.stringify(alone.body));
    }
    const together = await Promise.all([create(venue.id), ...refused.map(create), create(venue.id)]);
    assert.deepEqual(
      together.map((answer) => answer.status),
      [201, 400, 400, 400, 400, 201],
    );
    const stored = await db()
      .selectFrom('translations as t')
      .innerJoin('events as e', 'e.id', 't.resource_id')
      .select('e.venue_id')
      .where('t.resource_type', '=', 'event')
      .where('t.field', '=', 'title')
      .where('t.value', '=', title)
      .execute();
    assert.deepEqual(
      stored.map((row) => row.venue_id),
      [venue.id, venue.id],
    );
    // An update is refused the same way, and leaves the event as it was.
    const event = together[0]!.body;
    for (const input of refused) {
      const update = await server.request(`${NS}/events/${event.id}`, {
        method: 'POST',
        auth: admin,
        body: { title: 'Moved', venue: input },
      });
      assert.equal(update.status, 400, JSON.stringify(input));
    }
    const after = await server.request(`${NS}/events/${event.id}`, { auth: admin });
    assert.deepEqual([after.body.title, after.body.venue.id], [title, venue.id]);
    const other = await makeVenue(server, admin, {});
    const moved = await server.request(`${NS}/events/${event.id}`, { method: 'POST', auth: admin, body: { venue: other.id } });
    assert.deepEqual([moved.status, moved.body.venue.id], [200, other.id]);
  });

  it('unlinks with 0, "", null, [] and lists of empty values (deviation 2)', async () => {
    for (const input of [0, '', '0', null, [], [0, ''], false]) {
      assert.equal(await resolveVenueForWrite(db(), input, contextOf(server, admin), postPasswords(server)), null, JSON.stringify(input));
    }
  });

  it('rejects several venues (deviation 13), unknown or trashed ids and junk, naming venue', async () => {
    const first = await makeVenue(server, admin, {});
    const second = await makeVenue(server, admin, {});
    const trashed = await makeVenue(server, admin, {});
    await server.request(`${VENUES}/${trashed.id}`, { method: 'DELETE', auth: admin });
    for (const input of [
      [first.id, second.id],
      `${first.id},${second.id}`,
      23_000,
      { id: 23_000 },
      trashed.id,
      'foo',
      -3,
      1.5,
      true,
      { id: 'foo' },
      [[first.id]],
    ]) {
      await assert.rejects(
        resolveVenueForWrite(db(), input, contextOf(server, admin), postPasswords(server)),
        rejectsNaming('venue'),
        JSON.stringify(input),
      );
    }
  });

  it('matches an inline venue to an existing one only when name and address are equal, case-insensitively (deviation 10)', async () => {
    const existing = await makeVenue(server, admin, { venue: 'Blue Note', address: 'Via Borsieri 37' });
    const ctx = contextOf(server, admin);
    assert.equal(
      await resolveVenueForWrite(db(), { venue: 'blue note', address: 'VIA BORSIERI 37', city: 'ignored' }, ctx, postPasswords(server)),
      existing.id,
    );
    const otherAddress = await resolveVenueForWrite(db(), { venue: 'Blue Note', address: 'Elsewhere 1' }, ctx, postPasswords(server));
    assert.notEqual(otherAddress, existing.id);
    const created = await server.request(`${VENUES}/${otherAddress}`);
    assert.equal(created.body.venue, 'Blue Note');
    assert.equal(created.body.address, 'Elsewhere 1');
    assert.equal(created.body.show_map, true);
    const noAddress = await resolveVenueForWrite(db(), { venue: 'Blue Note' }, ctx, postPasswords(server));
    assert.ok(noAddress !== existing.id && noAddress !== otherAddress);
    assert.equal(
      await resolveVenueForWrite(db(), [{ venue: 'BLUE NOTE' }], ctx, postPasswords(server)),
      noAddress,
      'an empty address matches an empty address',
    );
  });

  it('validates inline venues of event writes with the schema of POST /venues, errors naming venue', async () => {
    const create = (venue: unknown) =>
      server.request(`${NS}/events`, {
        method: 'POST',
        auth: admin,
        body: { title: 'Inline venue', start_date: '2030-01-01 10:00', end_date: '2030-01-01 11:00', venue },
      });
    for (const input of [
      { city: 'no name' },
      { venue: '' },
      { venue: 'X', website: 'foo' },
      { venue: 'X', geo_lat: 91, geo_lng: 0 },
      { venue: 'X', geo_lat: 'NaN', geo_lng: 1 },
      { venue: 'X', geo_lat: 45 },
      { venue: 'X', show_map: 'yes' },
      { venue: 'X', status: 'bogus' },
      { venue: 'X', image: 'foo bar' },
      { venue: 'X', author: 23_000 },
      [{ venue: 'X', status: 'bogus' }],
    ]) {
      const refused = await create(input);
      assert.equal(refused.status, 400, JSON.stringify(input));
      assert.deepEqual(Object.keys(refused.body.data.params), ['venue'], JSON.stringify(input));
    }
    const created = await create({ venue: 'Inline Geo', geo_lat: '45.69', geo_lng: '9.67', show_map: 'false', zip: 24121 });
    assert.equal(created.status, 201, created.text);
    const venue = (await server.request(`${VENUES}/${created.body.venue.id}`)).body;
    assert.equal(venue.geo_lat, 45.69);
    assert.equal(venue.show_map, false);
    assert.equal(venue.zip, '24121');
  });

  it('creates with the rights and status rules of POST /venues', async () => {
    const id = await resolveVenueForWrite(
      db(),
      { venue: 'Contributor inline', status: 'publish' },
      contextOf(server, contributor, 'contributor'),
      postPasswords(server),
    );
    const venue = (await server.request(`${VENUES}/${id}`, { auth: admin })).body;
    assert.equal(venue.status, 'pending');
    assert.equal(venue.author, String(contributor.id));
    await assert.rejects(
      resolveVenueForWrite(db(), { venue: 'Subscriber inline' }, contextOf(server, subscriber, 'subscriber'), postPasswords(server)),
      rejectsNaming('venue', 403),
    );
    await assert.rejects(
      resolveVenueForWrite(
        db(),
        { venue: 'Not mine', author: admin.id },
        contextOf(server, contributor, 'contributor'),
        postPasswords(server),
      ),
      (error: unknown) => {
        const { status, body } = toWpError(error, 'request');
        return status === 403 && body.code === 'rest_forbidden';
      },
    );
  });
});

describe('embedded venues and assertVenuesReadable', () => {
  it('returns list representations keyed by id, stripped when the venue has a password whatever the caller', async () => {
    const open = await makeVenue(server, admin, { venue: 'Open', address: 'Open St' });
    const locked = await makeVenue(server, admin, { venue: 'Locked', address: 'Locked St', password: 'pw' });
    const embedded = async (ids: number[], ctx: ReturnType<typeof contextOf>) => {
      const rows = await findEmbeddableVenues(db(), ids, ctx);
      const texts = await loadTranslations(
        db(),
        'venue',
        rows.map((row) => row.id),
        ctx.language,
        ctx.defaultLanguage,
      );
      return presentEmbeddedVenues(rows, ctx, { texts, images: new Map() });
    };
    const loaded = await embedded([open.id, locked.id, 23_000], contextOf(server, admin));
    assert.deepEqual([...loaded.keys()].sort(), [open.id, locked.id].sort());
    const openItem = loaded.get(open.id) as any;
    assert.equal(openItem.address, 'Open St');
    assert.equal('json_ld' in openItem, false);
    assert.deepEqual(
      Object.keys(openItem),
      Object.keys((await server.request(`${VENUES}/${open.id}`)).body).filter((key) => key !== 'json_ld'),
    );
    const lockedItem = loaded.get(locked.id) as any;
    assert.equal(lockedItem.venue, 'Locked');
    assert.equal(lockedItem.address, '');
    assert.equal((await embedded([], contextOf(server, null))).size, 0);
  });

  it('assertVenuesReadable names venue for an unknown id, and for one the caller may not read', async () => {
    const venue = await makeVenue(server, admin, {});
    const draft = await makeVenue(server, admin, { status: 'draft' });
    const anonymous = contextOf(server, null);
    await assertVenuesReadable(db(), [venue.id], anonymous);
    await assertVenuesReadable(db(), [], anonymous);
    await assert.rejects(assertVenuesReadable(db(), [venue.id, 23_000], anonymous), rejectsNaming('venue'));
    await assert.rejects(assertVenuesReadable(db(), [draft.id], anonymous), rejectsNaming('venue'));
    await assertVenuesReadable(db(), [draft.id], contextOf(server, admin));
  });
});

describe('venues in event writes (through the events routes)', () => {
  it('links, embeds, unlinks, and trashing the venue removes it from the event', async () => {
    const created = await server.request(`${NS}/events`, {
      method: 'POST',
      auth: admin,
      body: {
        title: 'Concert',
        start_date: 'tomorrow 20:00',
        end_date: 'tomorrow 22:00',
        venue: { venue: 'Inline Hall', address: 'Hall St 1', city: 'Bergamo' },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.venue.venue, 'Inline Hall');
    assert.equal(created.body.venue.city, 'Bergamo');
    const venueId = created.body.venue.id;
    const again = await server.request(`${NS}/events`, {
      method: 'POST',
      auth: admin,
      body: {
        title: 'Concert 2',
        start_date: 'tomorrow 20:00',
        end_date: 'tomorrow 22:00',
        venue: { venue: 'inline hall', address: 'hall st 1' },
      },
    });
    assert.equal(again.body.venue.id, venueId, 'matched by name and address');
    const several = await server.request(`${NS}/events/${created.body.id}`, {
      method: 'POST',
      auth: admin,
      body: { venue: [venueId, venueId + 1000] },
    });
    assert.equal(several.status, 400);
    assert.equal(several.body.code, 'rest_invalid_param');
    const unlinked = await server.request(`${NS}/events/${created.body.id}`, { method: 'POST', auth: admin, body: { venue: 0 } });
    assert.deepEqual(unlinked.body.venue, []);
    await server.request(`${NS}/events/${created.body.id}`, { method: 'POST', auth: admin, body: { venue: venueId } });
    assert.equal((await server.request(`${VENUES}?event=${created.body.id}`)).body.total, 1);
    await server.request(`${VENUES}/${venueId}`, { method: 'DELETE', auth: admin });
    assert.deepEqual((await server.request(`${NS}/events/${created.body.id}`)).body.venue, []);
    assert.deepEqual((await server.request(`${NS}/events/${again.body.id}`)).body.venue, []);
  });
});
