/**
 * A calendar home's PROPFIND on a calendar of 17,000 events, what every CalDAV app asks first: each calendar's ctag
 * reads the versions of all its members, more than SQLite binds to one statement (32,766 values, each id bound
 * twice), so they are read a thousand at a time. On SQLite only: PostgreSQL binds 65,535 values to a statement, and
 * seeding twice as many events there takes minutes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedDemoEvents } from '../../src/calendar/seed/demo-events.ts';
import { dialect, startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { CS, dav, key, members, propfind, valueOf } from './caldav.helper.ts';

describe('CalDAV on a calendar of 17,000 events', { skip: dialect !== 'sqlite' && 'SQLite only (see above)' }, () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
    await seedDemoEvents(server.server.store, { events: 17_000, siteTimezone: 'UTC', seed: 44 });
  });
  after(async () => server.close());

  const home = () => dav(server, 'PROPFIND', '/dav/calendars/', { depth: '1', auth: admin, body: propfind('<cs:getctag/>') });

  it('answers the calendar home with a ctag for each calendar, which moves when an event changes', async () => {
    const before = members(await home()).filter((member) => member.href !== '/dav/calendars/');
    assert.ok(before.length > 1, 'the all-events calendar and the category calendars');
    for (const calendar of before) assert.match(valueOf(calendar, key(CS, 'getctag')) ?? '', /^"[A-Za-z0-9_-]+"$/, calendar.href);

    const listed = await server.request('/calendar/events/v1/events?per_page=1');
    const id = listed.body.events[0].id;
    const updated = await server.request(`/calendar/events/v1/events/${id}`, { method: 'POST', auth: admin, body: { title: 'Renamed' } });
    assert.equal(updated.status, 200);
    const after = members(await home());
    const ctagOf = (list: typeof after, href: string) =>
      valueOf(
        list.find((member) => member.href === href)!,
        key(CS, 'getctag'),
      );
    assert.notEqual(ctagOf(after, '/dav/calendars/events/'), ctagOf(before, '/dav/calendars/events/'));
  });
});
