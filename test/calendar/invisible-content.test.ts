/**
 * Invisible means absent (issue 19.1): what a caller may not read — a
 * protected post's stripped fields and links, a draft, private or pending
 * post — is never matched by a search, a filter, geolocation, a count or a
 * linked-item route. Each case is what the red team did; the property-based
 * model is in invisible-content.model.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from './events.factories.ts';
import { makeOrganizer, makeVenue, NS, ORGANIZERS, VENUES } from './venues-organizers.factories.ts';

const WINDOW = 'start_date=2036-01-01&end_date=2036-12-31';
const ids = (items: { id: number }[]) => items.map((item) => item.id);

describe('invisible means absent', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  const event = (fields: Record<string, unknown>) =>
    makeEvent(server, admin, { start_date: '2036-05-01 10:00', end_date: '2036-05-01 12:00', ...fields });
  const eventIds = async (query: string, auth?: Credentials) => {
    const response = await server.request(`${EVENTS}?${WINDOW}&${query}`, auth === undefined ? {} : { auth });
    assert.equal(response.status, 200, response.text);
    return ids(response.body.events);
  };

  it('a search never matches the stripped texts of a protected event, only its title', async () => {
    const secret = await event({ title: 'Quiet evening', description: 'zebra crossing', excerpt: 'okapi', password: 'pw' });
    const open = await event({ title: 'Loud evening', description: 'zebra parade' });
    assert.deepEqual(await eventIds('search=zebr'), [open.id], 'the protected description is no oracle');
    assert.deepEqual(await eventIds('search=okapi'), []);
    assert.deepEqual(await eventIds('search=zebx'), []);
    assert.deepEqual(await eventIds('search=quiet'), [secret.id], 'the title stays searchable: it is shown');
    assert.deepEqual(await eventIds('search=zebr&password=pw'), [open.id], 'a password opens a representation, not a search');
    assert.deepEqual(
      (await eventIds('search=zebr&context=edit', admin)).sort(),
      [secret.id, open.id].sort(),
      'editors asking to edit match everything',
    );
  });

  it('filters on what a protected event strips never match it (venue, organizer, terms, featured, geolocation)', async () => {
    const venue = await makeVenue(server, admin, { venue: 'Filter Hall', geo_lat: 41.9, geo_lng: 12.5 });
    const organizer = await makeOrganizer(server, admin, { organizer: 'Filter Org' });
    const links = { venue: venue.id, organizer: [organizer.id], categories: ['hidden-cat'], tags: ['hidden-tag'], featured: true };
    const secret = await event({ title: 'Linked secret', password: 'pw', ...links });
    const open = await event({ title: 'Linked open', ...links, categories: ['open-cat'] });
    assert.deepEqual(await eventIds(`venue=${venue.id}`), [open.id]);
    assert.deepEqual(await eventIds(`organizer=${organizer.id}`), [open.id]);
    assert.deepEqual(await eventIds('categories=hidden-cat'), []);
    assert.deepEqual(await eventIds('tags=hidden-tag'), [open.id]);
    assert.deepEqual(await eventIds('featured=true'), [open.id]);
    assert.ok((await eventIds('featured=false')).includes(secret.id), 'a stripped flag is absent: not featured');
    assert.deepEqual(await eventIds('geoloc=true'), [open.id]);
    assert.deepEqual(await eventIds('geoloc_lat=41.9&geoloc_lng=12.5&geoloc_radius=5'), [open.id]);
    const category = (await server.request(`${NS}/categories?slug=hidden-cat&hide_empty=false`)).body.categories[0];
    assert.equal(category.count, 0, 'a protected event is not counted');
    assert.deepEqual(ids((await server.request(`${NS}/categories?search=hidden-cat`)).body.categories), [], 'nor makes its term non-empty');
  });

  it('a protected or unreadable venue lends no coordinates, and a search no stripped field of its own', async () => {
    const secretVenue = await makeVenue(server, admin, {
      venue: 'Masked Hall',
      address: 'Via Nascosta 9',
      city: 'Zanzibar',
      phone: '+39 555 0199',
      description: 'aardvark',
      geo_lat: -33.9,
      geo_lng: 18.4,
      password: 'pw',
    });
    const draftVenue = await makeVenue(server, admin, { venue: 'Draft Hall', status: 'draft', geo_lat: -34.9, geo_lng: 138.6 });
    const atSecret = await event({ title: 'At masked', venue: secretVenue.id });
    const atDraft = await event({ title: 'At draft', venue: draftVenue.id });
    assert.deepEqual(await eventIds('geoloc_lat=-33.9&geoloc_lng=18.4&geoloc_radius=5'), []);
    assert.deepEqual(await eventIds('geoloc_lat=-34.9&geoloc_lng=138.6&geoloc_radius=5'), []);
    const located = await eventIds('geoloc=true');
    assert.ok(!located.includes(atSecret.id) && !located.includes(atDraft.id));
    for (const search of ['nascosta', 'zanzibar', '0199', 'aardvark']) {
      assert.deepEqual(ids((await server.request(`${VENUES}?search=${search}`)).body.venues), [], search);
    }
    assert.deepEqual(ids((await server.request(`${VENUES}?search=masked`)).body.venues), [secretVenue.id], 'the name is shown, so found');
    assert.equal((await server.request(`${EVENTS}?${WINDOW}&venue=${draftVenue.id}`)).status, 400, 'an unreadable venue is unknown');
    assert.deepEqual(await eventIds(`venue=${draftVenue.id}`, admin), [atDraft.id]);
  });

  it("an anonymous list by venue follows the venue's publication at once, both ways", async () => {
    const venue = await makeVenue(server, admin, { venue: 'Opening Hall', status: 'draft' });
    const listed = () => server.request(`${EVENTS}?${WINDOW}&venue=${venue.id}`);
    const publish = (status: string) => server.request(`${VENUES}/${venue.id}`, { method: 'POST', auth: admin, body: { status } });
    assert.equal((await listed()).status, 400);
    assert.equal((await publish('publish')).status, 200);
    assert.equal((await listed()).status, 200, 'published');
    assert.equal((await listed()).status, 200, 'and asked again');
    assert.equal((await publish('draft')).status, 200);
    assert.equal((await listed()).status, 400, 'a draft again');
  });

  it("an anonymous list by organizer follows the organizer's publication at once", async () => {
    const organizer = await makeOrganizer(server, admin, { organizer: 'Opening Promoter', status: 'draft' });
    const listed = () => server.request(`${EVENTS}?${WINDOW}&organizer=${organizer.id}`);
    assert.equal((await listed()).status, 400);
    const published = await server.request(`${ORGANIZERS}/${organizer.id}`, { method: 'POST', auth: admin, body: { status: 'publish' } });
    assert.equal(published.status, 200);
    assert.equal((await listed()).status, 200);
  });

  it('a protected organizer is found by its name only; an unreadable one is unknown', async () => {
    const secret = await makeOrganizer(server, admin, {
      organizer: 'Veiled Promoter',
      email: 'quokka@example.org',
      phone: '+39 555 0177',
      password: 'pw',
    });
    const draft = await makeOrganizer(server, admin, { organizer: 'Draft Promoter', status: 'draft' });
    for (const search of ['quokka', '0177'])
      assert.deepEqual(ids((await server.request(`${ORGANIZERS}?search=${search}`)).body.organizers), [], search);
    assert.deepEqual(ids((await server.request(`${ORGANIZERS}?search=veiled`)).body.organizers), [secret.id]);
    assert.equal((await server.request(`${EVENTS}?${WINDOW}&organizer=${draft.id}`)).status, 400);
  });

  it('the linked-item routes of a protected event are empty; of an unreadable event, unknown', async () => {
    const venue = await makeVenue(server, admin, { venue: 'Link Hall' });
    const organizer = await makeOrganizer(server, admin, { organizer: 'Link Org' });
    const links = { venue: venue.id, organizer: [organizer.id], categories: ['link-cat'] };
    const secret = await event({ title: 'Links secret', password: 'pw', ...links });
    const draft = await event({ title: 'Links draft', status: 'draft', ...links });
    for (const route of [`${VENUES}?event=`, `${ORGANIZERS}?event=`, `${NS}/categories?hide_empty=false&event=`]) {
      const hidden = await server.request(`${route}${secret.id}`);
      assert.equal(hidden.status, 200, route);
      assert.equal(hidden.body.total, 0, `${route}: a protected event's links are stripped`);
      assert.equal((await server.request(`${route}${draft.id}`)).status, 400, `${route}: a draft is unknown`);
      assert.equal((await server.request(`${route}${secret.id}`, { auth: admin })).body.total, 1, `${route}: who may edit sees the link`);
    }
    const venues = await server.request(`${VENUES}?has_events=true&search=link`);
    assert.deepEqual(ids(venues.body.venues), [], 'has_events counts no protected or draft event');
  });
});
