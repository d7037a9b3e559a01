/**
 * A search has a bounded cost on every calendar route (issue 19.4): at most
 * 200 characters, and past 9 words the whole string is one condition, so a
 * request can neither build an expression SQLite refuses nor mint a statement
 * shape per word count.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from './events.factories.ts';
import { makeOrganizer, makeVenue, NS, ORGANIZERS, VENUES } from './venues-organizers.factories.ts';

const ROUTES = [`${EVENTS}?start_date=2000-01-01&`, `${VENUES}?`, `${ORGANIZERS}?`, `${NS}/categories?`, `${NS}/tags?`];

describe('bounded searches', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  it('refuses a search longer than 200 characters by name, on every route (980 words was a 500)', async () => {
    const hostile = encodeURIComponent(Array.from({ length: 980 }, () => 'a').join(' '));
    for (const route of ROUTES) {
      for (const search of [hostile, 'x'.repeat(201)]) {
        const response = await server.request(`${route}search=${search}`);
        assert.equal(response.status, 400, route);
        assert.equal(response.body.code, 'rest_invalid_param');
        assert.ok('search' in response.body.data.params, route);
      }
      assert.equal((await server.request(`${route}search=${'x'.repeat(200)}`)).status, 200, `${route}: 200 characters are fine`);
    }
  });

  it('searches more than 9 words as one phrase, as WordPress does', async () => {
    const phrase = 'one two three four five six seven eight nine ten';
    const venue = await makeVenue(server, admin, { venue: `Hall ${phrase}` });
    const scattered = await makeVenue(server, admin, { venue: 'ten nine eight seven six five four three two one' });
    const organizer = await makeOrganizer(server, admin, { organizer: `Org ${phrase}` });
    const event = await makeEvent(server, admin, { title: `Show ${phrase}`, start_date: '2037-01-01 10:00', end_date: '2037-01-01 11:00' });
    const search = encodeURIComponent(phrase);
    assert.deepEqual(
      (await server.request(`${VENUES}?search=${search}`)).body.venues.map((item: { id: number }) => item.id),
      [venue.id],
    );
    assert.deepEqual(
      (await server.request(`${ORGANIZERS}?search=${search}`)).body.organizers.map((item: { id: number }) => item.id),
      [organizer.id],
    );
    assert.deepEqual(
      (await server.request(`${EVENTS}?start_date=2037-01-01&end_date=2037-01-02&search=${search}`)).body.events.map(
        (item: { id: number }) => item.id,
      ),
      [event.id],
    );
    const nine = encodeURIComponent('one two three four five six seven eight nine');
    assert.deepEqual(
      (await server.request(`${VENUES}?search=${nine}`)).body.venues.map((item: { id: number }) => item.id).sort(),
      [venue.id, scattered.id].sort(),
      'up to 9 words, each word on its own',
    );
  });
});
