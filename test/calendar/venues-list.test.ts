import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { idsOf, insertEventRow, makeVenue, VENUES } from './venues-organizers.factories.ts';
import { assertInvalidParam as invalid } from '../helpers/assertions.ts';

let server: TestServer;
let admin: Credentials;
let editor: Credentials;
let contributor: Credentials;
let subscriber: Credentials;
const fixtures: Record<string, any> = {};

// One database for this file: the archive counts below are of these venues only.
before(async () => {
  server = await startTestServer();
  admin = await server.admin();
  editor = await server.createUser('editor');
  contributor = await server.createUser('contributor');
  subscriber = await server.createUser('subscriber');
  // The reference's search fixtures (§5.1).
  fixtures.one = await makeVenue(server, admin, {
    venue: 'Venue One',
    address: '10 Downing Street',
    city: 'London',
    province: 'Greater London',
    country: 'United Kingdom',
    zip: 'SW1A 2AA',
    phone: '+44 223345 01',
  });
  fixtures.two = await makeVenue(server, admin, {
    venue: 'Venue Two',
    address: '221B Baker Street',
    city: 'London',
    province: 'Greater London',
    country: 'United Kingdom',
    zip: '223345',
    phone: '3333333',
  });
  fixtures.three = await makeVenue(server, admin, {
    venue: 'Venue Three',
    address: '100, Avenue du Temple',
    city: 'Paris',
    province: 'Ile de France',
    country: 'France',
    zip: '75003',
    phone: '+33 1 44',
    description: 'Un théâtre parisien',
  });
  fixtures.draft = await makeVenue(server, admin, { venue: 'Draft London venue', city: 'London', status: 'draft' });
  fixtures.contributorDraft = await makeVenue(server, contributor, { venue: 'Contributor draft', city: 'Leeds' });
});
after(async () => server.close());

describe('GET /venues search', () => {
  for (const [search, count] of [
    ['london', 2],
    ['3333333', 1],
    ['temple avenue', 1],
    ['greater london', 2],
    ['france', 1],
    ['france, ile de', 1],
    ['223345', 2],
  ] as const) {
    it(`"${search}" finds ${count} (as the reference finds them), with an honest total (deviation 7)`, async () => {
      const response = await server.request(`${VENUES}?search=${encodeURIComponent(search)}&per_page=1`);
      assert.equal(response.status, 200);
      assert.equal(response.body.total, count);
      assert.equal(response.body.total_pages, count);
      assert.equal(response.headers.get('x-tec-total'), String(count));
      assert.equal(response.body.venues.length, 1);
      assert.equal('next_rest_url' in response.body, count > 1);
      if (count > 1) {
        const next = await server.request(response.body.next_rest_url);
        assert.equal(next.status, 200);
        assert.equal(next.body.total, count, 'the next link keeps the search');
        assert.notEqual(next.body.venues[0].id, response.body.venues[0].id);
      }
    });
  }

  it('matches all fragments in one field, names and descriptions, in the requested language with fallback', async () => {
    assert.equal((await server.request(`${VENUES}?search=venue%20two`)).body.total, 1);
    assert.equal((await server.request(`${VENUES}?search=london%20baker`)).body.total, 0, 'fragments in different fields do not match');
    assert.equal((await server.request(`${VENUES}?search=th%C3%A9%C3%A2tre`)).body.total, 1);
    assert.equal((await server.request(`${VENUES}?search=TH%C3%89%C3%82TRE`)).body.total, 1, 'case-insensitive beyond ASCII');
    assert.equal((await server.request(`${VENUES}?search=nothing-like-this`)).body.total, 0);
    assert.equal((await server.request(`${VENUES}?search=100%25`)).body.total, 1, '% is literal');
    assert.equal(
      (await server.request(`${VENUES}?search=venue%20two&translation_language=it`)).body.total,
      1,
      'falls back to the default language',
    );
  });

  it('an empty match is an empty page with zero totals (not the reference quirk)', async () => {
    const response = await server.request(`${VENUES}?search=zzzz`);
    assert.deepEqual(response.body.venues, []);
    assert.equal(response.body.total, 0);
    assert.equal(response.body.total_pages, 0);
    assert.equal(response.headers.get('x-tec-totalpages'), '0');
  });

  it('rejects an empty search', async () => {
    invalid(await server.request(`${VENUES}?search=`), 'search');
  });

  it('does not let drafts through search for anonymous users, but does for editors', async () => {
    assert.equal((await server.request(`${VENUES}?search=london`, { auth: editor })).body.total, 3);
    assert.equal((await server.request(`${VENUES}?search=london`, { auth: subscriber })).body.total, 2);
  });
});

describe('GET /venues pagination and envelope', () => {
  it('returns the envelope in the reference key order with X-TEC headers and followable links', async () => {
    const response = await server.request(`${VENUES}?per_page=1&page=2`);
    assert.equal(response.status, 200);
    assert.deepEqual(Object.keys(response.body), ['venues', 'rest_url', 'next_rest_url', 'previous_rest_url', 'total', 'total_pages']);
    const base = `${server.url}/calendar/events/v1/venues/`;
    assert.equal(response.body.rest_url, `${base}?page=2&per_page=1&status=publish`);
    assert.equal(response.body.next_rest_url, `${base}?per_page=1&status=publish&page=3`);
    assert.equal(response.body.previous_rest_url, `${base}?per_page=1&status=publish`);
    assert.equal(response.body.total, 3);
    assert.equal(response.body.total_pages, 3);
    assert.equal(response.headers.get('x-tec-total'), '3');
    assert.equal(response.headers.get('x-tec-totalpages'), '3');
    for (const link of [response.body.rest_url, response.body.next_rest_url, response.body.previous_rest_url]) {
      assert.equal((await server.request(link)).status, 200, link);
    }
  });

  it('keeps every other argument sent in its links, after the echoed ones, page replaced (issue 37)', async () => {
    const base = `${server.url}/calendar/events/v1/venues/`;
    const response = await server.request(`${VENUES}?_fields=id&page=2&per_page=1&context=view&password=nope&extra[a]=1`);
    // All but the password, which a link never repeats.
    const rest = '_fields=id&context=view&extra%5Ba%5D=1';
    assert.equal(response.body.rest_url, `${base}?page=2&per_page=1&status=publish&${rest}`);
    assert.equal(response.body.next_rest_url, `${base}?per_page=1&status=publish&${rest}&page=3`);
    assert.equal(response.body.previous_rest_url, `${base}?per_page=1&status=publish&${rest}`);
    assert.equal(
      response.headers.get('link')?.split(', ').slice(0, 2).join(', '),
      `<${response.body.previous_rest_url}>; rel="prev", <${response.body.next_rest_url}>; rel="next"`,
    );
    const next = await server.request(response.body.next_rest_url);
    assert.deepEqual(Object.keys(next.body.venues[0]), ['id'], 'the link keeps _fields');
  });

  it('orders by publication date descending', async () => {
    const response = await server.request(`${VENUES}?per_page=50`);
    const dates = response.body.venues.map((venue: any) => `${venue.date}#${String(venue.id).padStart(6, '0')}`);
    assert.deepEqual(dates, [...dates].sort().reverse());
  });

  it('404 venue-archive-page-not-found beyond the last page; 200 empty for an empty first page', async () => {
    const beyond = await server.request(`${VENUES}?page=4&per_page=1`);
    assert.equal(beyond.status, 404);
    assert.deepEqual(beyond.body, {
      code: 'venue-archive-page-not-found',
      message: 'The requested venue archive page does not exist',
      data: { status: 404 },
    });
    const empty = await server.request(`${VENUES}?search=nomatch&page=1`);
    assert.equal(empty.status, 200);
    assert.equal((await server.request(`${VENUES}?search=nomatch&page=2`)).status, 404);
  });

  it('validates page and per_page; caps per_page at 50', async () => {
    for (const bad of ['foo', '-1', '0', 'foo%20bar', '1.5']) {
      invalid(await server.request(`${VENUES}?page=${bad}`), 'page');
      invalid(await server.request(`${VENUES}?per_page=${bad}`), 'per_page');
    }
    for (const huge of ['99999999999999999999', '1e300', '3000000000']) {
      assert.equal((await server.request(`${VENUES}?page=${huge}`)).body.code, 'venue-archive-page-not-found', huge);
    }
    assert.equal((await server.request(`${VENUES}?per_page=1e300`)).status, 200);
    const capped = await server.request(`${VENUES}?per_page=100`, { auth: editor });
    assert.equal(capped.status, 200);
    assert.equal(capped.body.total_pages, 1);
    assert.match(capped.body.rest_url, /per_page=100/);
  });

  it('echoes status as the reference: publish for anonymous, any for users who may list unpublished, followable', async () => {
    const anonymous = await server.request(VENUES);
    assert.match(anonymous.body.rest_url, /\?page=1&per_page=10&status=publish$/);
    const editorList = await server.request(VENUES, { auth: editor });
    assert.match(editorList.body.rest_url, /\?page=1&per_page=10&status=any$/);
    const followed = await server.request(editorList.body.rest_url, { auth: editor });
    assert.equal(followed.status, 200);
    assert.equal(followed.body.total, editorList.body.total);
  });
});

describe('GET /venues status and visibility (deviation 9)', () => {
  it('shows published venues to anonymous users and subscribers, plus own drafts to contributors, everything but trash to editors', async () => {
    const published = [fixtures.one.id, fixtures.two.id, fixtures.three.id];
    assert.deepEqual(
      idsOf((await server.request(VENUES)).body.venues),
      published.sort((a, b) => a - b),
    );
    assert.deepEqual(idsOf((await server.request(VENUES, { auth: subscriber })).body.venues), published);
    assert.deepEqual(idsOf((await server.request(VENUES, { auth: contributor })).body.venues), [
      ...published,
      fixtures.contributorDraft.id,
    ]);
    assert.deepEqual(
      idsOf((await server.request(VENUES, { auth: editor })).body.venues),
      [...published, fixtures.draft.id, fixtures.contributorDraft.id].sort((a, b) => a - b),
    );
  });

  it('accepts status=publish from anyone and other statuses only from users who may list unpublished', async () => {
    assert.equal((await server.request(`${VENUES}?status=publish`)).status, 200);
    invalid(await server.request(`${VENUES}?status=publish,draft`), 'status');
    invalid(await server.request(`${VENUES}?status=draft`, { auth: subscriber }), 'status');
    invalid(await server.request(`${VENUES}?status=any`), 'status');
    for (const bad of ['foo', 'foo,bar', 'foo,%20bar,%20publish'])
      invalid(await server.request(`${VENUES}?status=${bad}`, { auth: editor }), 'status');
    assert.deepEqual(idsOf((await server.request(`${VENUES}?status=draft`, { auth: editor })).body.venues), [
      fixtures.draft.id,
      fixtures.contributorDraft.id,
    ]);
    assert.deepEqual(idsOf((await server.request(`${VENUES}?status[]=draft`, { auth: contributor })).body.venues), [
      fixtures.contributorDraft.id,
    ]);
    assert.equal((await server.request(`${VENUES}?status=any`, { auth: editor })).body.total, 5);
    assert.equal((await server.request(`${VENUES}?status=publish,%20draft`, { auth: editor })).body.total, 5);
  });

  it('lists trashed venues only when asked by status=trash', async () => {
    const trashed = await makeVenue(server, admin, { venue: 'Soon trashed' });
    await server.request(`${VENUES}/${trashed.id}`, { method: 'DELETE', auth: admin });
    assert.equal(
      (await server.request(VENUES, { auth: editor })).body.venues.some((venue: any) => venue.id === trashed.id),
      false,
    );
    assert.deepEqual(idsOf((await server.request(`${VENUES}?status=trash`, { auth: editor })).body.venues), [trashed.id]);
    await server.request(`${VENUES}/${trashed.id}?force=true`, { method: 'DELETE', auth: admin });
  });
});

describe('GET /venues event filters', () => {
  it('event=<id> lists the venue of that event; an unknown event is a 400', async () => {
    const event = await insertEventRow(server, { venueId: fixtures.two.id });
    assert.deepEqual(idsOf((await server.request(`${VENUES}?event=${event}`)).body.venues), [fixtures.two.id]);
    const draftVenueEvent = await insertEventRow(server, { venueId: fixtures.draft.id });
    assert.deepEqual((await server.request(`${VENUES}?event=${draftVenueEvent}`)).body.venues, [], 'drafts stay hidden');
    assert.deepEqual(idsOf((await server.request(`${VENUES}?event=${draftVenueEvent}`, { auth: editor })).body.venues), [
      fixtures.draft.id,
    ]);
    invalid(await server.request(`${VENUES}?event=23000`), 'event');
    invalid(await server.request(`${VENUES}?event=${fixtures.one.id}`), 'event');
    invalid(await server.request(`${VENUES}?event=foo`), 'event');
    invalid(await server.request(`${VENUES}?event=99999999999`), 'event');
    const link = (await server.request(`${VENUES}?event=${event}`)).body.rest_url;
    assert.match(link, new RegExp(`\\?page=1&per_page=10&event=${event}&status=publish$`));
    await server.server.store.db.deleteFrom('events').where('id', 'in', [event, draftVenueEvent]).execute();
  });

  it('has_events counts the events the caller may read, never drafts or pending ones', async () => {
    const withEvents = await makeVenue(server, admin, { venue: 'With events' });
    const onlyPrivateEvents = await makeVenue(server, admin, { venue: 'Only private events' });
    const onlyDraftEvents = await makeVenue(server, admin, { venue: 'Only draft events' });
    const created = [
      await insertEventRow(server, { venueId: withEvents.id, status: 'publish', startsInDays: -30 }),
      await insertEventRow(server, { venueId: onlyPrivateEvents.id, status: 'private', startsInDays: -30 }),
      await insertEventRow(server, { venueId: onlyDraftEvents.id, status: 'draft' }),
      await insertEventRow(server, { venueId: onlyDraftEvents.id, status: 'pending' }),
    ];
    for (const value of ['true', '1', 'TRUE']) {
      assert.deepEqual(idsOf((await server.request(`${VENUES}?has_events=${value}`)).body.venues), [withEvents.id], value);
    }
    // A private event is invisible, hence absent, to anonymous callers (issue 19); an editor reads it.
    const editorSees = idsOf((await server.request(`${VENUES}?has_events=true`, { auth: admin })).body.venues);
    assert.deepEqual(editorSees.sort(), [withEvents.id, onlyPrivateEvents.id].sort());
    const without = idsOf((await server.request(`${VENUES}?has_events=false&per_page=50`)).body.venues);
    assert.ok(without.includes(onlyDraftEvents.id));
    assert.ok(without.includes(onlyPrivateEvents.id));
    assert.ok(!without.includes(withEvents.id));
    assert.equal((await server.request(`${VENUES}?has_events=0`)).body.total, without.length);
    const link = (await server.request(`${VENUES}?has_events=false`)).body.rest_url;
    assert.match(link, /\?page=1&per_page=10&has_events=false&status=publish$/);
    for (const bad of ['yes', 'on', '']) invalid(await server.request(`${VENUES}?has_events=${bad}`), 'has_events');
    await server.server.store.db.deleteFrom('events').where('id', 'in', created).execute();
    await server.request(`${VENUES}/${withEvents.id}?force=true`, { method: 'DELETE', auth: admin });
    await server.request(`${VENUES}/${onlyDraftEvents.id}?force=true`, { method: 'DELETE', auth: admin });
    await server.request(`${VENUES}/${onlyPrivateEvents.id}?force=true`, { method: 'DELETE', auth: admin });
  });

  it('only_with_upcoming considers every upcoming event, however many (deviation 18)', async () => {
    const late = await makeVenue(server, admin, { venue: 'Late upcoming' });
    const past = await makeVenue(server, admin, { venue: 'Past only' });
    const hidden = await makeVenue(server, admin, { venue: 'Hidden upcoming' });
    const draftOnly = await makeVenue(server, admin, { venue: 'Draft upcoming' });
    const created: number[] = [];
    // More upcoming events than any page, all sooner than the one that makes `late` qualify.
    for (let day = 1; day <= 60; day += 1) created.push(await insertEventRow(server, { venueId: fixtures.one.id, startsInDays: day / 10 }));
    created.push(await insertEventRow(server, { venueId: late.id, startsInDays: 300 }));
    created.push(await insertEventRow(server, { venueId: past.id, startsInDays: -2 }));
    created.push(await insertEventRow(server, { venueId: hidden.id, startsInDays: 3, hidden: true }));
    created.push(await insertEventRow(server, { venueId: draftOnly.id, startsInDays: 3, status: 'draft', authorId: editor.id }));
    for (const value of ['true', '1']) {
      assert.deepEqual(
        idsOf(
          (await server.request(`${VENUES}?only_with_upcoming=${value}&per_page=1`)).body.venues.concat(
            (await server.request(`${VENUES}?only_with_upcoming=${value}&per_page=1&page=2`)).body.venues,
          ),
        ),
        [fixtures.one.id, late.id],
      );
      assert.equal((await server.request(`${VENUES}?only_with_upcoming=${value}&per_page=1`)).body.total, 2);
    }
    assert.deepEqual(idsOf((await server.request(`${VENUES}?only_with_upcoming=true`, { auth: editor })).body.venues), [
      fixtures.one.id,
      late.id,
      draftOnly.id,
    ]);
    const all = (await server.request(`${VENUES}?per_page=50`)).body.total;
    assert.equal((await server.request(`${VENUES}?only_with_upcoming=false&per_page=50`)).body.total, all, 'false is no filter');
    invalid(await server.request(`${VENUES}?only_with_upcoming=yes`), 'only_with_upcoming');
    const combined = await server.request(`${VENUES}?only_with_upcoming=true&has_events=true&search=venue%20one`);
    assert.deepEqual(idsOf(combined.body.venues), [fixtures.one.id]);
    assert.match(combined.body.rest_url, /has_events=true&status=publish&search=venue\+one&only_with_upcoming=true$/);
    await server.server.store.db.deleteFrom('events').where('id', 'in', created).execute();
  });
});
