/**
 * Post passwords are guessed in their own bucket, one attempt per request,
 * and a right password is never a failure (issue 19.2): a visitor who knows
 * one event's password and lists a page of protected events never locks
 * anybody out of logging in, nor out of that event.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from './events.factories.ts';
import { makeVenue, VENUES } from './venues-organizers.factories.ts';

const WINDOW = 'start_date=2035-01-01&end_date=2035-12-31';

describe('post-password throttling', () => {
  // Each test counts failures from one address: a server of its own, with low limits.
  let server: TestServer;
  let admin: Credentials;
  let editor: Credentials;
  beforeEach(async () => {
    server = await startTestServer({ AUTH_MAX_FAILURES: '3', AUTH_MAX_FAILURES_PER_ADDRESS: '5' });
    admin = await server.admin();
    editor = await server.createUser('editor');
  });
  afterEach(async () => server.close());

  const protectedEvents = async (count: number, month: string) => {
    const events = [];
    for (let index = 0; index < count; index += 1) {
      events.push(
        await makeEvent(server, admin, {
          start_date: `2035-${month}-1${index} 10:00`,
          end_date: `2035-${month}-1${index} 11:00`,
          password: `secret-${month}-${index}`,
          description: `hidden ${month}`,
        }),
      );
    }
    return events;
  };
  const listMonth = (month: string, password: string) =>
    server.request(`${EVENTS}?start_date=2035-${month}-01&end_date=2035-${month}-28&per_page=50&password=${password}`);

  it('a list with the right password of one event, repeated, locks out neither logins nor that event', async () => {
    const events = await protectedEvents(4, '01');
    const known = events[0];
    for (let request = 0; request < 12; request += 1) {
      const list = await listMonth('01', 'secret-01-0');
      assert.equal(list.status, 200);
      const opened = list.body.events.filter((event: { description: string }) => event.description !== '');
      assert.deepEqual(
        opened.map((event: { id: number }) => event.id),
        [known.id],
        'the known event is open, the others stay stripped',
      );
    }
    assert.equal((await server.request(`${EVENTS}/${known.id}?password=secret-01-0`)).status, 200);
    assert.equal((await server.request(`${EVENTS}?${WINDOW}`, { auth: editor.basic })).status, 200, 'Basic logins still work');
  });

  it('a list is one attempt however many protected events it holds', async () => {
    const events = await protectedEvents(5, '02');
    // 2 failed lists of 5 events each: 2 failures, under the limit of 3 (10 if counted per event).
    for (let request = 0; request < 2; request += 1) assert.equal((await listMonth('02', 'wrong')).status, 200);
    assert.equal((await server.request(`${EVENTS}/${events[1].id}?password=secret-02-1`)).status, 200);
  });

  it('wrong post passwords end in 429 for posts, never for logins', async () => {
    const [event] = await protectedEvents(1, '03');
    const venue = await makeVenue(server, admin, { password: 'venue-secret', address: 'Via Segreta 1' });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      assert.equal((await server.request(`${EVENTS}/${event.id}?password=guess${attempt}`)).status, 403);
    }
    assert.equal(
      (await server.request(`${EVENTS}/${event.id}?password=secret-03-0`)).status,
      429,
      'the guessed event is locked for this address',
    );
    for (let attempt = 0; attempt < 3; attempt += 1) await server.request(`${VENUES}/${venue.id}?password=guess${attempt}`);
    const venueLocked = await server.request(`${VENUES}/${venue.id}?password=venue-secret`);
    assert.equal(venueLocked.status, 429, 'venues share the post-password bucket of the address');
    const login = await server.request(`${EVENTS}?${WINDOW}`, { auth: editor.basic });
    assert.equal(login.status, 200, 'the address may still log in');
    const list = await listMonth('03', 'secret-03-0');
    assert.equal(list.body.events[0].description, '', 'a locked-out address sees lists stripped, without a 429');
  });

  it('failed logins never lock post passwords', async () => {
    const event = await makeEvent(server, admin, { password: 'open', start_date: '2035-04-01 10:00', end_date: '2035-04-01 11:00' });
    const wrong = `Basic ${Buffer.from('nobody:wrong').toString('base64')}`;
    for (let attempt = 0; attempt < 6; attempt += 1) await server.request(`${EVENTS}?${WINDOW}`, { auth: wrong });
    assert.equal((await server.request(`${EVENTS}?${WINDOW}`, { auth: wrong })).status, 429, 'the address is locked out of logins');
    assert.equal((await server.request(`${EVENTS}/${event.id}?password=open`)).status, 200, 'but not out of the event');
  });
});
