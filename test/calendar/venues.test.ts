import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { insertEventRow, makeVenue, NS, VENUES } from './venues-organizers.factories.ts';
import { assertInvalidParam as invalid } from '../helpers/assertions.ts';

let server: TestServer;
let admin: Credentials;
let editor: Credentials;
let author: Credentials;
let contributor: Credentials;
let subscriber: Credentials;

before(async () => {
  server = await startTestServer({ SITE_TIMEZONE: 'Europe/Rome' });
  admin = await server.admin();
  editor = await server.createUser('editor');
  author = await server.createUser('author');
  contributor = await server.createUser('contributor');
  subscriber = await server.createUser('subscriber');
});
after(async () => server.close());

describe('POST /venues', () => {
  it('creates a venue (201) with the reference representation: falsy fields dropped, flags and global ids appended', async () => {
    const response = await server.request(VENUES, {
      method: 'POST',
      auth: admin,
      body: {
        venue: 'Teatro alla Scala',
        address: 'Via Filodrammatici 2',
        city: 'Milano',
        country: 'Italy',
        province: 'MI',
        zip: '20121',
        website: 'https://www.teatroallascala.org/?a=1&b=2',
        description: 'Opera house',
      },
    });
    assert.equal(response.status, 201);
    const venue = response.body;
    assert.deepEqual(Object.keys(venue), [
      'id',
      'author',
      'status',
      'date',
      'date_utc',
      'modified',
      'modified_utc',
      'url',
      'venue',
      'description',
      'slug',
      'address',
      'city',
      'country',
      'province',
      'zip',
      'website',
      'stateprovince',
      'show_map',
      'show_map_link',
      'global_id',
      'global_id_lineage',
    ]);
    assert.equal(venue.author, String(admin.id));
    assert.equal(venue.status, 'publish');
    assert.equal(venue.description, '<p>Opera house</p>');
    assert.equal(venue.slug, 'teatro-alla-scala');
    assert.equal(venue.url, `${server.url}/venue/teatro-alla-scala/`);
    assert.equal(venue.website, 'https://www.teatroallascala.org/?a=1&b=2');
    assert.equal(venue.stateprovince, 'MI');
    assert.equal(venue.show_map, true);
    assert.equal(venue.show_map_link, true);
    assert.equal(venue.global_id, `127.0.0.1?id=${venue.id}`);
    assert.deepEqual(venue.global_id_lineage, [venue.global_id]);
    assert.equal('json_ld' in venue, false);
    assert.equal('rest_url' in venue, false);
  });

  it('always creates: the same payload twice gives two venues (deviation 10)', async () => {
    const first = await makeVenue(server, admin, { venue: 'Twin', description: 'Same' });
    const second = await makeVenue(server, admin, { venue: 'twin', description: 'same' });
    assert.notEqual(first.id, second.id);
    assert.equal(second.slug, 'twin-2');
  });

  it('reads show_map and show_map_link as booleans of deviation 12 and rejects other strings', async () => {
    for (const [sent, expected] of [
      [false, false],
      ['false', false],
      ['0', false],
      [0, false],
      ['true', true],
      ['1', true],
      [true, true],
    ] as const) {
      const venue = await makeVenue(server, admin, { show_map: sent, show_map_link: sent });
      assert.equal(venue.show_map, expected, `show_map=${String(sent)}`);
      assert.equal(venue.show_map_link, expected);
    }
    const form = await server.request(VENUES, { method: 'POST', auth: admin, form: { venue: 'Form venue', show_map: 'false' } });
    assert.equal(form.status, 201);
    assert.equal(form.body.show_map, false);
    for (const bad of ['yes', '', 'on']) {
      invalid(await server.request(VENUES, { method: 'POST', auth: admin, body: { venue: 'Bad flag', show_map: bad } }), 'show_map');
      invalid(
        await server.request(VENUES, { method: 'POST', auth: admin, body: { venue: 'Bad flag', show_map_link: bad } }),
        'show_map_link',
      );
    }
  });

  it('derives stateprovince from state (no or US country) or province when empty', async () => {
    assert.equal((await makeVenue(server, admin, { state: 'NY', province: 'P' })).stateprovince, 'NY');
    assert.equal((await makeVenue(server, admin, { state: 'CA', country: 'United States', province: 'P' })).stateprovince, 'CA');
    assert.equal((await makeVenue(server, admin, { state: 'S', country: 'Italy', province: 'Lombardia' })).stateprovince, 'Lombardia');
    assert.equal((await makeVenue(server, admin, { state: 'S', stateprovince: 'Explicit' })).stateprovince, 'Explicit');
    const derived = await makeVenue(server, admin, { state: 'NY' });
    const moved = await server.request(`${VENUES}/${derived.id}`, { method: 'PATCH', auth: admin, body: { state: 'CA' } });
    assert.equal(moved.body.stateprovince, 'CA', 'a derived value follows the state');
    const abroad = await server.request(`${VENUES}/${derived.id}`, {
      method: 'PATCH',
      auth: admin,
      body: { country: 'Italy', province: 'Bergamo' },
    });
    assert.equal(abroad.body.stateprovince, 'Bergamo');
    const explicit = await makeVenue(server, admin, { state: 'NY', stateprovince: 'New York State' });
    const kept = await server.request(`${VENUES}/${explicit.id}`, { method: 'PATCH', auth: admin, body: { state: 'CA' } });
    assert.equal(kept.body.stateprovince, 'New York State', 'an explicit value stays');
  });

  it('rejects bad values with rest_invalid_param naming the argument, and creates nothing', async () => {
    const before = (await server.request(`${VENUES}?per_page=50&status=any`, { auth: admin })).body.total;
    invalid(await server.request(VENUES, { method: 'POST', auth: admin, body: { venue: '' } }), 'venue');
    invalid(await server.request(VENUES, { method: 'POST', auth: admin, body: { venue: '<b></b>' } }), 'venue');
    invalid(await server.request(VENUES, { method: 'POST', auth: admin, body: { venue: 'V', author: 23_000 } }), 'author');
    invalid(await server.request(VENUES, { method: 'POST', auth: admin, body: { venue: 'V', author: 'foo' } }), 'author');
    invalid(await server.request(VENUES, { method: 'POST', auth: admin, body: { venue: 'V', date: 'foo' } }), 'date');
    invalid(await server.request(VENUES, { method: 'POST', auth: admin, body: { venue: 'V', date_utc: 'foo' } }), 'date_utc');
    invalid(
      await server.request(VENUES, { method: 'POST', auth: admin, body: { venue: 'V', status: 'kinda_thinking_about_it' } }),
      'status',
    );
    invalid(await server.request(VENUES, { method: 'POST', auth: admin, body: { venue: 'V', website: 'foo' } }), 'website');
    invalid(await server.request(VENUES, { method: 'POST', auth: admin, body: { venue: 'V', website: 'javascript:alert(1)' } }), 'website');
    invalid(await server.request(VENUES, { method: 'POST', auth: admin, body: { venue: 'V', image: 'foo bar' } }), 'image');
    invalid(await server.request(VENUES, { method: 'POST', auth: admin, body: { venue: 'V', image: 999_999 } }), 'image');
    invalid(await server.request(VENUES, { method: 'POST', auth: admin, body: { venue: 'V', address: { a: 1 } } }), 'address');
    const missing = await server.request(VENUES, { method: 'POST', auth: admin, body: { city: 'Nowhere' } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 'rest_missing_callback_param');
    assert.deepEqual(missing.body.data.params, ['venue']);
    const empty = await server.request(VENUES, { method: 'POST', auth: admin });
    assert.equal(empty.body.code, 'rest_missing_callback_param');
    const after = (await server.request(`${VENUES}?per_page=50&status=any`, { auth: admin })).body.total;
    assert.equal(after, before);
  });

  it('ignores unknown arguments and sanitizes content', async () => {
    const venue = await makeVenue(server, admin, {
      timezone: 'Europe/Paris',
      rest_url: 'x',
      description: '<p onclick="x()">Hi <script>alert(1)</script><a href="javascript:evil()">link</a></p>',
      city: '<b>Rome</b>',
    });
    assert.equal(venue.city, 'Rome');
    assert.doesNotMatch(venue.description, /script|onclick|javascript/);
  });

  it('reads date in the site time zone and date_utc in UTC; a future publish date is stored future', async () => {
    const byTimestamp = await makeVenue(server, admin, { date: 1_500_000_000 });
    assert.equal(byTimestamp.date, '2017-07-14 04:40:00');
    assert.equal(byTimestamp.date_utc, '2017-07-14 02:40:00');
    const byUtc = await makeVenue(server, admin, { date_utc: '2020-01-01 10:00:00' });
    assert.equal(byUtc.date, '2020-01-01 11:00:00');
    const future = await makeVenue(server, admin, { date: '+1 year' });
    assert.equal(future.status, 'future');
  });

  it('scales the status of users who may not publish and applies the author rules of deviation 8', async () => {
    assert.equal((await makeVenue(server, contributor, {})).status, 'draft');
    assert.equal((await makeVenue(server, contributor, { status: 'publish' })).status, 'pending');
    assert.equal((await makeVenue(server, contributor, { status: 'private' })).status, 'pending');
    assert.equal((await makeVenue(server, author, { status: 'publish' })).status, 'publish');
    assert.equal((await makeVenue(server, admin, { status: 'draft' })).status, 'draft');
    const forbidden = await server.request(VENUES, { method: 'POST', auth: contributor, body: { venue: 'Not mine', author: admin.id } });
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.body.code, 'rest_forbidden');
    assert.equal((await makeVenue(server, contributor, { author: contributor.id })).author, String(contributor.id));
    assert.equal((await makeVenue(server, editor, { author: author.id })).author, String(author.id));
  });

  it('needs edit rights: anonymous 401, subscriber 403', async () => {
    const anonymous = await server.request(VENUES, { method: 'POST', body: { venue: 'Anon' } });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.code, 'rest_forbidden');
    const sub = await server.request(VENUES, { method: 'POST', auth: subscriber, body: { venue: 'Sub' } });
    assert.equal(sub.status, 403);
  });

  it('records an image URL from authors, not from contributors', async () => {
    const venue = await makeVenue(server, author, { image: 'https://example.com/img/Photo.JPG' });
    assert.deepEqual(Object.keys(venue.image), ['url', 'id', 'extension']);
    assert.equal(venue.image.extension, 'jpg');
    const again = await makeVenue(server, admin, { image: venue.image.id });
    assert.equal(again.image.id, venue.image.id);
    invalid(
      await server.request(VENUES, { method: 'POST', auth: contributor, body: { venue: 'V', image: 'https://example.com/a.png' } }),
      'image',
    );
  });
});

describe('geolocation of venues', () => {
  it('stores and returns geo_lat/geo_lng, from JSON numbers or form strings', async () => {
    const venue = await makeVenue(server, admin, { geo_lat: 45.4642, geo_lng: 9.19 });
    assert.equal(venue.geo_lat, 45.4642);
    assert.equal(venue.geo_lng, 9.19);
    const keys = Object.keys(venue);
    assert.ok(keys.indexOf('geo_lng') === keys.indexOf('geo_lat') + 1 && keys.indexOf('geo_lng') < keys.indexOf('show_map'));
    const form = await server.request(VENUES, {
      method: 'POST',
      auth: admin,
      form: { venue: 'Form geo', geo_lat: '-33.86', geo_lng: '151.2' },
    });
    assert.equal(form.status, 201);
    assert.equal(form.body.geo_lat, -33.86);
    const edges = await makeVenue(server, admin, { geo_lat: -90, geo_lng: 180 });
    assert.equal(edges.geo_lat, -90);
    assert.equal(edges.geo_lng, 180);
    const single = await server.request(`${VENUES}/${venue.id}`);
    assert.deepEqual(single.body.json_ld.geo, { '@type': 'GeoCoordinates', latitude: 45.4642, longitude: 9.19 });
  });

  it('shows a coordinate of 0 (Greenwich, the equator) with its pair, alone, in lists, embedded in an event and to geolocation', async () => {
    const greenwich = await makeVenue(server, admin, { venue: 'Royal Observatory', status: 'publish', geo_lat: 51.4769, geo_lng: 0 });
    assert.equal(greenwich.geo_lat, 51.4769);
    assert.equal(greenwich.geo_lng, 0, 'the falsy rule drops empty fields, not the meridian');
    const equator = await makeVenue(server, admin, { status: 'publish', geo_lat: 0, geo_lng: 0 });
    assert.deepEqual([equator.geo_lat, equator.geo_lng], [0, 0]);
    const single = await server.request(`${VENUES}/${greenwich.id}`);
    assert.equal(single.body.geo_lng, 0);
    assert.deepEqual(single.body.json_ld.geo, { '@type': 'GeoCoordinates', latitude: 51.4769, longitude: 0 });
    const listed = await server.request(`${VENUES}?per_page=50`);
    assert.equal((listed.body.venues as any[]).find((venue) => venue.id === greenwich.id)?.geo_lng, 0);
    const event = await server.request(`${NS}/events`, {
      method: 'POST',
      auth: admin,
      body: { title: 'Star night', status: 'publish', start_date: 'tomorrow 21:00', end_date: 'tomorrow 23:00', venue: greenwich.id },
    });
    assert.equal(event.status, 201, event.text);
    assert.equal(event.body.venue.geo_lng, 0);
    const near = await server.request(`${NS}/events?geoloc_lat=51.48&geoloc_lng=0.001&geoloc_radius=5`);
    assert.deepEqual(
      (near.body.events as any[]).map((item) => item.id),
      [event.body.id],
    );
  });

  it('rejects bad coordinates: NaN strings, out of range, one without the other', async () => {
    for (const [field, value] of [
      ['geo_lat', 'NaN'],
      ['geo_lat', 91],
      ['geo_lat', -90.5],
      ['geo_lng', -181],
      ['geo_lng', 180.01],
      ['geo_lat', 'abc'],
      ['geo_lng', 'Infinity'],
    ] as const) {
      const other = field === 'geo_lat' ? { geo_lng: 10 } : { geo_lat: 10 };
      invalid(await server.request(VENUES, { method: 'POST', auth: admin, body: { venue: 'Bad geo', ...other, [field]: value } }), field);
    }
    invalid(
      await server.request(VENUES, { method: 'POST', auth: admin, form: { venue: 'Bad geo', geo_lat: 'NaN', geo_lng: '10' } }),
      'geo_lat',
    );
    invalid(await server.request(VENUES, { method: 'POST', auth: admin, body: { venue: 'Half', geo_lat: 45 } }), 'geo_lng');
    invalid(await server.request(VENUES, { method: 'POST', auth: admin, body: { venue: 'Half', geo_lng: 9 } }), 'geo_lat');
  });

  it('updates one coordinate of a stored pair, clears both with empty values, refuses clearing one', async () => {
    const venue = await makeVenue(server, admin, { geo_lat: 45.69, geo_lng: 9.67 });
    const moved = await server.request(`${VENUES}/${venue.id}`, { method: 'POST', auth: admin, body: { geo_lat: 45.7 } });
    assert.equal(moved.body.geo_lat, 45.7);
    assert.equal(moved.body.geo_lng, 9.67);
    invalid(await server.request(`${VENUES}/${venue.id}`, { method: 'POST', auth: admin, body: { geo_lat: '' } }), 'geo_lat');
    const cleared = await server.request(`${VENUES}/${venue.id}`, { method: 'POST', auth: admin, body: { geo_lat: '', geo_lng: null } });
    assert.equal(cleared.status, 200);
    assert.equal('geo_lat' in cleared.body, false);
    assert.equal('geo_lng' in cleared.body, false);
  });
});

describe('GET /venues/{id} and /venues/by-slug/{slug}', () => {
  it('returns the single representation with json_ld (a Place without @context)', async () => {
    const venue = await makeVenue(server, admin, {
      venue: 'Arena',
      address: 'Piazza Bra 1',
      city: 'Verona',
      phone: '+39 045',
      website: 'https://arena.it',
    });
    for (const path of [`${VENUES}/${venue.id}`, `${VENUES}/by-slug/${venue.slug}`]) {
      const response = await server.request(path);
      assert.equal(response.status, 200);
      const keys = Object.keys(response.body);
      assert.deepEqual(keys.slice(-5), ['json_ld', 'show_map', 'show_map_link', 'global_id', 'global_id_lineage']);
      assert.equal(response.body.json_ld['@type'], 'Place');
      assert.equal('@context' in response.body.json_ld, false);
      assert.equal(response.body.json_ld.name, 'Arena');
      assert.equal(response.body.json_ld.address.streetAddress, 'Piazza Bra 1');
      assert.equal(response.body.json_ld.telephone, '+39 045');
    }
  });

  it('400 rest_invalid_param for an unknown id or slug, 404 rest_no_route for a non-numeric id or an empty slug', async () => {
    invalid(await server.request(`${VENUES}/23000`), 'id');
    invalid(await server.request(`${VENUES}/99999999999999999999`), 'id');
    invalid(await server.request(`${VENUES}/by-slug/non-existing-slug`), 'slug');
    for (const path of [`${VENUES}/foo`, `${VENUES}/foo%20bar`, `${VENUES}/by-slug/`, `${VENUES}/-1`]) {
      const response = await server.request(path);
      assert.equal(response.status, 404, path);
      assert.equal(response.body.code, 'rest_no_route');
    }
  });

  it('finds a venue by a slug in any language and sanitizes the path slug', async () => {
    const venue = await makeVenue(server, admin, { venue: 'Piazza Grande' });
    const italian = await server.request(`${VENUES}/${venue.id}?translation_language=it`, {
      method: 'POST',
      auth: admin,
      body: { venue: 'Piazza Grande IT', slug: 'piazza-grande-it' },
    });
    assert.equal(italian.body.slug, 'piazza-grande-it');
    assert.equal((await server.request(`${VENUES}/by-slug/piazza-grande-it`)).body.id, venue.id);
    assert.equal((await server.request(`${VENUES}/by-slug/piazza-grande`)).body.venue, 'Piazza Grande');
    assert.equal((await server.request(`${VENUES}/by-slug/Piazza.Grande`)).body.id, venue.id);
    const it = await server.request(`${VENUES}/by-slug/piazza-grande?translation_language=it`);
    assert.equal(it.body.venue, 'Piazza Grande IT');
    assert.equal(it.headers.get('content-language'), 'it');
  });

  it('403 venue-not-accessible for an unpublished venue the caller may not read', async () => {
    const draft = await makeVenue(server, admin, { status: 'draft' });
    for (const path of [`${VENUES}/${draft.id}`, `${VENUES}/by-slug/${draft.slug}`]) {
      for (const auth of [undefined, subscriber, contributor, author]) {
        const response = await server.request(path, { auth });
        assert.equal(response.status, 403);
        assert.deepEqual(response.body, {
          code: 'venue-not-accessible',
          message: 'The requested venue is not accessible',
          data: { status: 403 },
        });
      }
      for (const auth of [editor, admin]) assert.equal((await server.request(path, { auth })).status, 200);
    }
    const own = await makeVenue(server, contributor, {});
    assert.equal((await server.request(`${VENUES}/${own.id}`, { auth: contributor })).status, 200);
    const privateOne = await makeVenue(server, author, { status: 'private' });
    assert.equal((await server.request(`${VENUES}/${privateOne.id}`, { auth: author })).status, 200);
    assert.equal((await server.request(`${VENUES}/${privateOne.id}`, { auth: contributor })).status, 403);
  });

  it('strips a password-protected venue but keeps its name (deviation 11); the password or context=edit unlock it', async () => {
    const venue = await makeVenue(server, admin, {
      venue: 'Secret Club',
      address: 'Hidden St 1',
      city: 'Turin',
      state: 'TO',
      zip: '10100',
      phone: '123',
      website: 'https://secret.example',
      description: 'Members only',
      geo_lat: 45.07,
      geo_lng: 7.68,
      password: 'open sesame',
    });
    assert.equal(venue.address, 'Hidden St 1', 'the writer sees the full venue');
    const locked = await server.request(`${VENUES}/${venue.id}`);
    assert.equal(locked.status, 200);
    assert.equal(locked.body.venue, 'Secret Club');
    assert.equal(locked.body.description, '');
    assert.equal(locked.body.address, '');
    assert.equal(locked.body.city, '');
    assert.equal(locked.body.zip, '');
    assert.equal(locked.body.phone, '');
    assert.equal(locked.body.website, '');
    assert.equal(locked.body.stateprovince, '');
    assert.equal(locked.body.state, 'TO', 'state is not stripped, as the reference');
    assert.equal(locked.body.geo_lat, 0);
    assert.equal(locked.body.show_map, null);
    assert.equal(locked.body.show_map_link, null);
    assert.equal('json_ld' in locked.body, false);
    assert.equal(JSON.stringify(locked.body).includes('Hidden'), false);
    const wrong = await server.request(`${VENUES}/${venue.id}?password=nope`);
    assert.equal(wrong.body.address, '');
    const unlocked = await server.request(`${VENUES}/${venue.id}?password=open%20sesame`);
    assert.equal(unlocked.body.address, 'Hidden St 1');
    assert.equal('json_ld' in unlocked.body, false, 'no JSON-LD for password-protected posts');
    assert.equal((await server.request(`${VENUES}/${venue.id}`, { auth: editor })).body.address, '', 'being an editor does not unlock');
    assert.equal((await server.request(`${VENUES}/${venue.id}?context=edit`, { auth: editor })).body.address, 'Hidden St 1');
    assert.equal((await server.request(`${VENUES}/${venue.id}?context=edit`, { auth: contributor })).body.address, '');
    const listed = await server.request(`${VENUES}?per_page=50`);
    const item = listed.body.venues.find((candidate: any) => candidate.id === venue.id);
    assert.equal(item.venue, 'Secret Club');
    assert.equal(item.address, '');
    const listedOpen = await server.request(`${VENUES}?per_page=50&password=open%20sesame`);
    assert.equal(listedOpen.body.venues.find((candidate: any) => candidate.id === venue.id).address, 'Hidden St 1');
    const removed = await server.request(`${VENUES}/${venue.id}`, { method: 'POST', auth: admin, body: { password: '' } });
    assert.equal(removed.status, 200);
    assert.equal((await server.request(`${VENUES}/${venue.id}`)).body.address, 'Hidden St 1');
    assert.equal(server.logs.join('').includes('open sesame'), false);
  });
});

describe('updating venues', () => {
  it('changes only the fields sent (deviation 1)', async () => {
    const venue = await makeVenue(server, admin, {
      venue: 'Partial',
      address: 'A 1',
      city: 'Pisa',
      show_map: false,
      status: 'draft',
      image: 'https://example.com/p.png',
      website: 'https://p.example',
    });
    const response = await server.request(`${VENUES}/${venue.id}`, { method: 'PUT', auth: admin, body: { city: 'Lucca' } });
    assert.equal(response.status, 200);
    const updated = response.body;
    assert.equal(updated.city, 'Lucca');
    assert.equal(updated.address, 'A 1');
    assert.equal(updated.venue, 'Partial');
    assert.equal(updated.status, 'draft');
    assert.equal(updated.show_map, false);
    assert.equal(updated.show_map_link, true);
    assert.equal(updated.image.id, venue.image.id);
    assert.equal(updated.website, 'https://p.example');
    assert.equal(updated.slug, venue.slug);
    assert.equal('json_ld' in updated, false);
  });

  it('sets excerpt and slug, removes the image with an empty value, and keeps slugs per type', async () => {
    const venue = await makeVenue(server, admin, {
      venue: 'Slugged',
      slug: 'Custom Slug!',
      excerpt: 'Short',
      image: 'https://example.com/s.png',
    });
    assert.equal(venue.slug, 'custom-slug');
    assert.equal(venue.excerpt, '<p>Short</p>');
    for (const empty of ['', 0]) {
      const withImage = await server.request(`${VENUES}/${venue.id}`, {
        method: 'POST',
        auth: admin,
        body: { image: 'https://example.com/s.png' },
      });
      assert.equal(withImage.body.image.url, 'https://example.com/s.png');
      const removed = await server.request(`${VENUES}/${venue.id}`, { method: 'POST', auth: admin, body: { image: empty } });
      assert.equal('image' in removed.body, false, JSON.stringify(empty));
    }
    const organizer = await server.request(`${NS}/organizers`, { method: 'POST', auth: admin, body: { organizer: 'Only An Organizer' } });
    invalid(await server.request(`${VENUES}/by-slug/${organizer.body.slug}`), 'slug');
    assert.equal((await makeVenue(server, admin, { venue: 'Only An Organizer' })).slug, 'only-an-organizer', 'slugs are unique per type');
  });

  it('accepts POST, PUT and PATCH, by id and by slug; empty meta clears the key; an empty name is a 400', async () => {
    const venue = await makeVenue(server, admin, { venue: 'Methods', address: 'B 2', zip: '123', website: 'https://m.example' });
    for (const method of ['POST', 'PUT', 'PATCH']) {
      const response = await server.request(`${VENUES}/by-slug/${venue.slug}`, { method, auth: admin, body: { phone: method } });
      assert.equal(response.status, 200);
      assert.equal(response.body.phone, method);
    }
    const cleared = await server.request(`${VENUES}/${venue.id}`, {
      method: 'POST',
      auth: admin,
      body: { address: '', zip: '', website: '' },
    });
    for (const key of ['address', 'zip', 'website']) assert.equal(key in cleared.body, false, key);
    invalid(await server.request(`${VENUES}/${venue.id}`, { method: 'POST', auth: admin, body: { venue: '' } }), 'venue');
    invalid(await server.request(`${VENUES}/${venue.id}`, { method: 'POST', auth: admin, body: { website: 'not a url' } }), 'website');
    invalid(await server.request(`${VENUES}/23000`, { method: 'POST', auth: admin, body: { city: 'X' } }), 'id');
    invalid(await server.request(`${VENUES}/by-slug/nope-nope`, { method: 'POST', auth: admin, body: { city: 'X' } }), 'slug');
    const renamed = await server.request(`${VENUES}/${venue.id}`, {
      method: 'POST',
      auth: admin,
      body: { venue: 'Renamed', slug: 'renamed-venue' },
    });
    assert.equal(renamed.body.venue, 'Renamed');
    assert.equal(renamed.body.slug, 'renamed-venue');
    assert.equal((await server.request(`${VENUES}/by-slug/renamed-venue`)).body.id, venue.id);
    invalid(await server.request(`${VENUES}/by-slug/${venue.slug}`), 'slug');
  });

  it('path ids win over a body or query id', async () => {
    const first = await makeVenue(server, admin, { city: 'One' });
    const second = await makeVenue(server, admin, { city: 'Two' });
    const response = await server.request(`${VENUES}/${first.id}?id=${second.id}`, {
      method: 'POST',
      auth: admin,
      body: { id: second.id, city: 'Changed' },
    });
    assert.equal(response.body.id, first.id);
    assert.equal((await server.request(`${VENUES}/${second.id}`)).body.city, 'Two');
  });

  it('scales a requested status for contributors and restores a trashed venue by status', async () => {
    const own = await makeVenue(server, contributor, {});
    const asked = await server.request(`${VENUES}/${own.id}`, { method: 'POST', auth: contributor, body: { status: 'publish' } });
    assert.equal(asked.body.status, 'pending');
    const trashed = await makeVenue(server, admin, {});
    await server.request(`${VENUES}/${trashed.id}`, { method: 'DELETE', auth: admin });
    const restored = await server.request(`${VENUES}/${trashed.id}`, { method: 'POST', auth: admin, body: { status: 'publish' } });
    assert.equal(restored.body.status, 'publish');
  });
});

describe('deleting venues', () => {
  it('trashes (200, status trash), then 410 venue-is-in-trash; trashing removes the venue from every event', async () => {
    const venue = await makeVenue(server, admin, {});
    const other = await makeVenue(server, admin, {});
    const events = [
      await insertEventRow(server, { venueId: venue.id }),
      await insertEventRow(server, { venueId: venue.id, status: 'draft' }),
    ];
    const kept = await insertEventRow(server, { venueId: other.id });
    const first = await server.request(`${VENUES}/${venue.id}`, { method: 'DELETE', auth: admin });
    assert.equal(first.status, 200);
    assert.equal(first.body.status, 'trash');
    assert.equal(first.body.id, venue.id);
    const rows = await server.server.store.db
      .selectFrom('events')
      .select(['id', 'venue_id'])
      .where('id', 'in', [...events, kept])
      .execute();
    for (const row of rows) assert.equal(row.venue_id, row.id === kept ? other.id : null);
    const second = await server.request(`${VENUES}/${venue.id}`, { method: 'DELETE', auth: admin });
    assert.equal(second.status, 410);
    assert.deepEqual(second.body, { code: 'venue-is-in-trash', message: 'The venue is already trashed', data: { status: 410 } });
    assert.equal((await server.request(`${VENUES}/by-slug/${venue.slug}`, { method: 'DELETE', auth: admin })).status, 410);
  });

  it('force=true deletes permanently for editors and above; below editor it is a 403 and nothing changes (deviation 8)', async () => {
    const own = await makeVenue(server, author, {});
    const refused = await server.request(`${VENUES}/${own.id}?force=true`, { method: 'DELETE', auth: author });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'rest_forbidden');
    assert.equal((await server.request(`${VENUES}/${own.id}`)).body.status, 'publish');
    const event = await insertEventRow(server, { venueId: own.id });
    const deleted = await server.request(`${VENUES}/${own.id}?force=true`, { method: 'DELETE', auth: editor });
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.id, own.id);
    assert.equal(deleted.body.status, 'publish');
    invalid(await server.request(`${VENUES}/${own.id}`), 'id');
    invalid(await server.request(`${VENUES}/by-slug/${own.slug}`), 'slug');
    const row = await server.server.store.db.selectFrom('events').select('venue_id').where('id', '=', event).executeTakeFirstOrThrow();
    assert.equal(row.venue_id, null);
    const trashed = await makeVenue(server, admin, {});
    await server.request(`${VENUES}/by-slug/${trashed.slug}`, { method: 'DELETE', auth: admin });
    const gone = await server.request(`${VENUES}/by-slug/${trashed.slug}`, { method: 'DELETE', auth: admin, body: { force: '1' } });
    assert.equal(gone.status, 200);
    assert.equal(gone.body.status, 'trash');
    const kept = await makeVenue(server, admin, {});
    invalid(await server.request(`${VENUES}/${kept.id}?force=maybe`, { method: 'DELETE', auth: admin }), 'force');
    assert.equal((await server.request(`${VENUES}/${kept.id}`)).body.status, 'publish');
  });

  it('accepts and ignores password on DELETE; rejects an unknown translation_language', async () => {
    const venue = await makeVenue(server, admin, { password: 'pw' });
    const response = await server.request(`${VENUES}/${venue.id}?password=whatever`, { method: 'DELETE', auth: admin });
    assert.equal(response.status, 200);
    assert.equal(response.body.status, 'trash');
    invalid(
      await server.request(`${VENUES}/${venue.id}?translation_language=fr`, { method: 'DELETE', auth: admin }),
      'translation_language',
    );
    invalid(
      await server.request(VENUES, { method: 'POST', auth: admin, body: { venue: 'Lang', translation_language: 'fr' } }),
      'translation_language',
    );
  });

  it('validates the id before authorization: anonymous DELETE of an unknown id is a 400', async () => {
    invalid(await server.request(`${VENUES}/23000`, { method: 'DELETE' }), 'id');
    invalid(await server.request(`${VENUES}/by-slug/unknown-venue`, { method: 'DELETE' }), 'slug');
  });
});
