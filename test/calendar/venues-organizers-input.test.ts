import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { makeVenue, ORGANIZERS, VENUES } from './venues-organizers.factories.ts';

let server: TestServer;
let admin: Credentials;

before(async () => {
  server = await startTestServer();
  admin = await server.admin();
});
after(async () => server.close());

const HOSTILE = [
  "'; DROP TABLE venues; --",
  '" OR 1=1 --',
  '%_\\',
  '<script>alert(1)</script>',
  '\u0000nul',
  '😀 emoji ✓ città',
  'a'.repeat(10_000),
  '../../etc/passwd',
];

const anyJson = fc.oneof(
  fc.string(),
  fc.constantFrom(...HOSTILE),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string(), { maxKeys: 2 }),
);

describe('hostile and random input', () => {
  it('stores injection strings literally and searches for them literally', async () => {
    const venue = await makeVenue(server, admin, {
      venue: "O'Brien's Pub",
      address: "'; DROP TABLE venues; --",
      city: '%_\\',
      phone: 'A & B "C" <i>D</i> &lt;b&gt;',
    });
    assert.equal(venue.venue, "O'Brien's Pub");
    assert.equal(venue.address, "'; DROP TABLE venues; --");
    assert.equal(venue.city, '%_\\');
    assert.equal(venue.phone, 'A & B "C" D &lt;b&gt;', 'text stays text; no markup comes back from entities');
    const found = await server.request(`${VENUES}?search=${encodeURIComponent('drop table')}`);
    assert.equal(found.body.total, 1);
    assert.equal((await server.request(`${VENUES}?search=${encodeURIComponent('%_')}`)).body.total, 1, 'wildcards are literal');
    assert.equal((await server.request(`${VENUES}?search=${encodeURIComponent("O'Brien")}`)).body.total, 1);
    for (const value of HOSTILE) {
      for (const path of [
        `${VENUES}/by-slug/${encodeURIComponent(value.slice(0, 300))}`,
        `${VENUES}?search=${encodeURIComponent(value.slice(0, 300))}`,
      ]) {
        const response = await server.request(path);
        assert.ok(response.status < 500 && response.status !== 0, path);
      }
    }
  });

  it('drops control characters from text and refuses them in URLs (PostgreSQL cannot store a NUL)', async () => {
    const venue = await makeVenue(server, admin, {
      venue: 'N\u0000ul',
      address: 'a\u0000b\u0007c',
      description: 'd\u0000e',
      phone: '1\t2\n3',
    });
    assert.equal(venue.venue, 'Nul');
    assert.equal(venue.address, 'abc');
    assert.equal(venue.description, '<p>de</p>');
    assert.equal(venue.phone, '1 2 3');
    for (const field of ['website', 'image']) {
      const response = await server.request(VENUES, {
        method: 'POST',
        auth: admin,
        body: { venue: 'V', [field]: 'https://example.com/a\u0000.png' },
      });
      assert.equal(response.status, 400, field);
      assert.ok(field in response.body.data.params);
    }
    const organizer = await server.request(ORGANIZERS, {
      method: 'POST',
      auth: admin,
      body: { organizer: 'O\u0000', phone: '\u0000', email: 'a\u0000@b.co' },
    });
    assert.equal(organizer.status, 400);
    assert.ok('email' in organizer.body.data.params);
  });

  it('never answers 500 to random create bodies (the helper throws on 5xx)', async () => {
    const fields = [
      'venue',
      'address',
      'city',
      'zip',
      'website',
      'show_map',
      'geo_lat',
      'geo_lng',
      'status',
      'date',
      'author',
      'image',
      'password',
      'description',
    ];
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom(...fields), anyJson, { maxKeys: 5 }), async (body) => {
        const response = await server.request(VENUES, { method: 'POST', auth: admin, body });
        assert.ok([201, 400, 403].includes(response.status), `${response.status} ${response.text.slice(0, 200)}`);
      }),
      { numRuns: 60 },
    );
  });

  it('never answers 500 to random organizer updates and random archive queries', async () => {
    const organizer = (await server.request(ORGANIZERS, { method: 'POST', auth: admin, body: { organizer: 'Target' } })).body;
    const fields = ['organizer', 'email', 'phone', 'website', 'status', 'date_utc', 'author', 'image', 'slug'];
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom(...fields), anyJson, { maxKeys: 4 }), async (body) => {
        const response = await server.request(`${ORGANIZERS}/${organizer.id}`, { method: 'PATCH', auth: admin, body });
        assert.ok([200, 400, 403].includes(response.status), `${response.status} ${response.text.slice(0, 200)}`);
      }),
      { numRuns: 60 },
    );
    const args = ['page', 'per_page', 'search', 'event', 'has_events', 'only_with_upcoming', 'status'];
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.constantFrom(...args),
          fc.oneof(fc.string(), fc.constantFrom(...HOSTILE.map((v) => v.slice(0, 200))), fc.integer().map(String)),
          { maxKeys: 4 },
        ),
        async (query) => {
          const response = await server.request(`${VENUES}?${new URLSearchParams(query).toString()}`, { auth: admin });
          assert.ok([200, 400, 404].includes(response.status), `${response.status} ${response.text.slice(0, 200)}`);
        },
      ),
      { numRuns: 80 },
    );
  });
});
