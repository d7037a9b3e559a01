/**
 * CalDAV on a calendar of 17,000 events. The home's PROPFIND, what every app asks first: each calendar's ctag reads
 * the versions of all its members, more than SQLite binds to one statement (32,766 values, each id bound twice), so
 * they are read a thousand at a time. An answer that would hold every event at once (more than 16,000) is refused
 * with DAV:number-of-matches-within-limits, not failed; a time range is answered. On SQLite only: PostgreSQL binds
 * 65,535 values to a statement, and seeding twice as many events there takes minutes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedDemoEvents } from '../../src/calendar/seed/demo-events.ts';
import { dialect, startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { calendarQuery, CS, dav, DAV, davError, key, members, propfind, syncCollection, valueOf } from './caldav.helper.ts';

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

  it('refuses an answer of every event at once, naming the limit, and answers a time range', async () => {
    const calendar = '/dav/calendars/events/';
    const refusals = [
      await dav(server, 'PROPFIND', calendar, { depth: '1', auth: admin, body: propfind('<d:getetag/>') }),
      await dav(server, 'REPORT', calendar, {
        depth: '1',
        auth: admin,
        body: syncCollection(''),
      }),
      await dav(server, 'REPORT', calendar, { depth: '1', auth: admin, body: calendarQuery('<c:comp-filter name="VEVENT"/>') }),
    ];
    for (const refusal of refusals) {
      assert.equal(refusal.status, 403, refusal.text);
      const { condition, message } = davError(refusal);
      assert.equal(condition, key(DAV, 'number-of-matches-within-limits'));
      assert.match(message, /more than the 16000 one answer may: ask for a time range/);
    }
    const day = new Date().toISOString().slice(0, 10).replaceAll('-', '');
    const query = await dav(server, 'REPORT', calendar, {
      depth: '1',
      auth: admin,
      body: calendarQuery(`<c:comp-filter name="VEVENT"><c:time-range start="${day}T000000Z" end="${day}T235959Z"/></c:comp-filter>`),
    });
    const found = members(query);
    assert.ok(found.length > 0 && found.length < 1000, `${found.length} events on one day`);
  });
});
