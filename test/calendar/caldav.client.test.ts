/**
 * A CalDAV client nobody here wrote: Debian's python3-caldav
 * (test/calendar/caldav-client.py, run with /usr/bin/python3) discovers the
 * principal from the service root, lists the calendars, searches a time
 * range, fetches the events it found, and syncs with tokens, against the
 * real server on both databases. The file fails, naming the package, when
 * the module is missing.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, it } from 'node:test';
import { requireProgram } from '../helpers/programs.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { apiEvent } from './caldav.helper.ts';

const PYTHON = '/usr/bin/python3';
const CLIENT = path.resolve('test/calendar/caldav-client.py');
requireProgram(PYTHON, ['-c', 'import caldav'], "Debian's python3-caldav is not installed (apt-get install python3-caldav)");

// The server answers in this process: the client runs beside it, never blocking it.
const run = promisify(execFile);

let server: TestServer;
let editor: Credentials;
let token: string;

async function client(...args: string[]): Promise<any> {
  const { stdout } = await run(PYTHON, [CLIENT, `${server.url}/dav/`, editor.username, token, ...args], { timeout: 60_000 });
  return JSON.parse(stdout);
}

before(async () => {
  server = await startTestServer();
  editor = await server.createUser('editor');
  // As people are told to: an API token as the password.
  token = editor.bearer.slice('Bearer '.length);
});

after(async () => {
  await server?.close();
});

it('discovers, lists, searches a time range, fetches and syncs as python3-caldav does', async () => {
  const inRange = await apiEvent(server, editor, {
    title: 'Spring concert',
    start_date: '2031-04-10 20:00:00',
    end_date: '2031-04-10 22:00:00',
  });
  const later = await apiEvent(server, editor, {
    title: 'Summer concert',
    start_date: '2031-07-10 20:00:00',
    end_date: '2031-07-10 22:00:00',
  });
  const weekly = await apiEvent(server, editor, {
    title: 'Weekly class',
    start_date: '2031-03-01 18:00:00',
    end_date: '2031-03-01 19:00:00',
    recurrence: ['RRULE:FREQ=WEEKLY;COUNT=10'],
  });
  const category = await server.request('/calendar/events/v1/categories', { method: 'POST', auth: editor, body: { name: 'Concerts' } });

  const seen = await client('read', '20310401T000000Z', '20310501T000000Z');
  assert.equal(seen.principal, `${server.url}/dav/principals/users/${editor.username}/`);
  assert.deepEqual(
    seen.calendars.map((calendar: any) => [calendar.url, calendar.name]).sort(),
    [
      [`${server.url}/dav/calendars/events/`, 'Calendar'],
      [`${server.url}/dav/calendars/category-${category.body.id}/`, 'Calendar · Concerts'],
    ].sort(),
  );
  const href = (id: number) => `${server.url}/dav/calendars/events/${id}.ics`;
  // April 2031: the spring concert, and the weekly class (its 6th to 9th occurrences), as its master with its rule.
  assert.deepEqual(
    seen.found.map((event: any) => [event.url, event.summary, event.rrule]),
    [
      [href(inRange.id), 'Spring concert', false],
      [href(weekly.id), 'Weekly class', true],
    ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
  );
  assert.deepEqual(seen.objects, [href(inRange.id), href(later.id), href(weekly.id)].sort());

  const moved = await server.request(`/calendar/events/v1/events/${later.id}`, {
    method: 'PATCH',
    auth: editor,
    body: { title: 'Summer concert, moved' },
  });
  assert.equal(moved.status, 200);
  const trashed = await server.request(`/calendar/events/v1/events/${inRange.id}`, { method: 'DELETE', auth: editor });
  assert.equal(trashed.status, 200);
  const synced = await client('sync', seen.token);
  assert.deepEqual(synced.updated, [{ url: href(later.id), summary: 'Summer concert, moved' }]);
  assert.deepEqual(synced.deleted, [href(inRange.id)]);
  assert.notEqual(synced.token, seen.token);

  const quiet = await client('sync', synced.token);
  assert.deepEqual([quiet.updated, quiet.deleted], [[], []]);
});

it('creates, updates with its ETag, deletes and syncs after each write as python3-caldav does', async () => {
  await server.request('/calendar/events/v1/categories', { method: 'POST', auth: editor, body: { name: 'Concerts' } });
  const uid = 'python-1@example.org';
  const written = await client('write', uid);
  assert.equal(written.url, `${server.url}/dav/calendars/events/${encodeURIComponent(uid)}.ics`);
  assert.equal(written.created_etag, true);
  assert.deepEqual(written.after_create, ['Made in python']);
  assert.equal(written.update, 204);
  assert.equal(written.stale_update, 412);
  assert.deepEqual(written.after_update, ['Made in python, changed']);
  assert.equal(written.summary, 'Made in python, changed');
  assert.equal(written.stale_delete, 412);
  assert.equal(written.after_delete.length, 1);
  // What the client wrote is the event's: in its own zone, its venue made from LOCATION, and in the trash after the delete.
  const db = server.server.store.db;
  const id = Number((await db.selectFrom('event_ical_uids').select('event_id').where('uid', '=', uid).executeTakeFirstOrThrow()).event_id);
  const row = await db
    .selectFrom('events')
    .select(['status', 'timezone', 'start_local', 'venue_id'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  assert.deepEqual([row.status, row.timezone, row.start_local], ['trash', 'Europe/Rome', '2031-05-12 21:00:00']);
  const venue = await server.request(`/calendar/events/v1/venues/${row.venue_id}`, { auth: editor });
  assert.equal(venue.body.venue, 'Garden stage');
});
