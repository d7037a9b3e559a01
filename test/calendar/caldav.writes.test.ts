/**
 * CalDAV writes (issue 42): PUT creates and replaces events through the
 * import's iCalendar mapping and the events service, DELETE trashes them,
 * with the API's roles and ETags, RFC 4791's preconditions, and every bad
 * write refused with nothing changed. Through the real server, on both
 * databases.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { versionTag } from '../../src/platform/http/entity-tags.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import {
  CALDAV,
  DAV,
  apiEvent,
  calendarQuery,
  dav,
  davError,
  key,
  members,
  propfind,
  syncCollection,
  syncTokenOf,
} from './caldav.helper.ts';

const ALL = '/dav/calendars/events/';
const API = '/calendar/events/v1/events';

let server: TestServer;
let editor: Credentials;
let contributor: Credentials;
let subscriber: Credentials;
let jazz: number;

before(async () => {
  server = await startTestServer();
  editor = await server.createUser('editor');
  contributor = await server.createUser('contributor');
  subscriber = await server.createUser('subscriber');
  jazz = (await server.request('/calendar/events/v1/categories', { method: 'POST', auth: editor, body: { name: 'Jazz' } })).body.id;
});

after(async () => {
  await server?.close();
});

const vevent = (uid: string, lines: readonly string[]) => [
  'BEGIN:VEVENT',
  `UID:${uid}`,
  'DTSTAMP:20310101T000000Z',
  ...lines,
  'END:VEVENT',
];
const calendar = (...events: string[][]) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', ...events.flat(), 'END:VCALENDAR', ''].join('\r\n');

function put(path: string, body: string, auth: Credentials, headers: Record<string, string> = {}) {
  return dav(server, 'PUT', path, { auth, body, headers: { 'content-type': 'text/calendar; charset=utf-8', ...headers } });
}

async function rows() {
  const db = server.server.store.db;
  const count = async (table: 'events' | 'venues' | 'event_ical_uids' | 'calendar_changes') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    events: await count('events'),
    venues: await count('venues'),
    uids: await count('event_ical_uids'),
    changes: await count('calendar_changes'),
  };
}

const statusOf = async (id: number) =>
  (await server.server.store.db.selectFrom('events').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;

const apiRead = async (id: number, auth: Credentials = editor) => {
  const response = await server.request(`${API}/${id}`, { auth });
  assert.equal(response.status, 200, response.text);
  return response;
};

describe('PUT and DELETE', () => {
  it('creates an event at its UID, keeping the UID, matching a venue and categories, with the ETag the API gives', async () => {
    const hall = await server.request('/calendar/events/v1/venues', { method: 'POST', auth: editor, body: { venue: 'Blue Hall' } });
    const uid = 'phone-1@example.org';
    const ics = calendar(
      vevent(uid, [
        'DTSTART;TZID=Europe/Rome:20310510T210000',
        'DTEND;TZID=Europe/Rome:20310510T230000',
        'SUMMARY:Quartet',
        'LOCATION:blue hall',
        'CATEGORIES:Jazz',
        'URL:https://example.org/quartet',
      ]),
    );
    const created = await put(`${ALL}${encodeURIComponent(uid)}.ics`, ics, editor, { 'if-none-match': '*' });
    assert.equal(created.status, 201, created.text);
    const id = Number(
      (await server.server.store.db.selectFrom('event_ical_uids').select('event_id').where('uid', '=', uid).executeTakeFirstOrThrow())
        .event_id,
    );
    const event = await apiRead(id);
    assert.equal(event.body.title, 'Quartet');
    assert.equal(event.body.status, 'publish');
    assert.equal(event.body.start_date, '2031-05-10 21:00:00');
    assert.equal(event.body.timezone, 'Europe/Rome');
    assert.equal(event.body.venue.id, hall.body.id);
    assert.deepEqual(
      event.body.categories.map((term: any) => term.id),
      [jazz],
    );
    assert.equal(event.body.website, 'https://example.org/quartet');
    const read = await dav(server, 'GET', `${ALL}${encodeURIComponent(uid)}.ics`, { auth: editor });
    assert.equal(read.status, 200);
    assert.match(read.text, /UID:phone-1@example.org/);
    assert.equal(created.headers.get('etag'), read.headers.get('etag'));
    assert.equal(read.headers.get('etag')?.split('-')[0], event.headers.get('etag')?.split('-')[0]);

    const again = await put(`${ALL}${encodeURIComponent(uid)}.ics`, ics, editor, { 'if-none-match': '*' });
    assert.equal(again.status, 412);
    // Clients find a resource by its UID (python3-caldav's event_by_uid) before they write it.
    const byUid = (value: string) =>
      calendarQuery(
        `<c:comp-filter name="VEVENT"><c:prop-filter name="UID"><c:text-match collation="i;octet">${value}</c:text-match></c:prop-filter></c:comp-filter>`,
      );
    const found = members(await dav(server, 'REPORT', ALL, { auth: editor, depth: '1', body: byUid(uid) }));
    assert.deepEqual(
      found.map((member) => member.href),
      [`${ALL}${id}.ics`],
    );
    assert.deepEqual(members(await dav(server, 'REPORT', ALL, { auth: editor, depth: '1', body: byUid('nobody@example.org') })), []);
  });

  it('creates all-day and recurring events, and a new venue by LOCATION', async () => {
    const before = await rows();
    const allDay = await put(
      `${ALL}day-1.ics`,
      calendar(vevent('day-1', ['DTSTART;VALUE=DATE:20310601', 'DTEND;VALUE=DATE:20310603', 'SUMMARY:Festival', 'LOCATION:New Park'])),
      editor,
    );
    assert.equal(allDay.status, 201, allDay.text);
    const weekly = await put(
      `${ALL}weekly-1.ics`,
      calendar(
        vevent('weekly-1', [
          'DTSTART:20310602T180000Z',
          'DTEND:20310602T190000Z',
          'SUMMARY:Class',
          'RRULE:FREQ=WEEKLY;COUNT=4',
          'EXDATE:20310609T180000Z',
        ]),
      ),
      editor,
    );
    assert.equal(weekly.status, 201, weekly.text);
    const after = await rows();
    assert.equal(after.venues, before.venues + 1);
    const listed = await server.request(`${API}?start_date=2031-06-01&end_date=2031-06-30&search=Class`, { auth: editor });
    assert.deepEqual(
      listed.body.events.map((event: any) => event.start_date),
      ['2031-06-02 18:00:00', '2031-06-16 18:00:00', '2031-06-23 18:00:00'],
    );
    const day = await dav(server, 'GET', `${ALL}day-1.ics`, { auth: editor });
    assert.match(day.text, /DTSTART;VALUE=DATE:20310601/);
    assert.match(day.text, /DTEND;VALUE=DATE:20310603/);
  });

  it('replaces an event with If-Match, keeps what iCalendar cannot say, refuses a stale ETag changing nothing', async () => {
    const event = await apiEvent(server, editor, {
      title: 'Recital',
      start_date: '2031-07-01 20:00:00',
      end_date: '2031-07-01 21:00:00',
      cost: '10',
      featured: true,
      organizer: [{ organizer: 'Ada', email: 'ada@example.org', phone: '+39 555 0101' }],
    });
    const italian = await server.request(`${API}/${event.id}?translation_language=it`, {
      method: 'PATCH',
      auth: editor,
      body: { title: 'Recital (it)' },
    });
    assert.equal(italian.status, 200, italian.text);
    const path = `${ALL}${event.id}.ics`;
    const read = await dav(server, 'GET', path, { auth: editor });
    const etag = read.headers.get('etag')!;
    const changed = read.text
      .replace(/SUMMARY([^:\r]*):Recital/, 'SUMMARY$1:Recital, moved')
      .replace(/DTSTART[^\r]*/, 'DTSTART:20310702T180000Z')
      .replace(/DTEND[^\r]*/, 'DTEND:20310702T190000Z');
    const updated = await put(path, changed, editor, { 'if-match': etag });
    assert.equal(updated.status, 204, updated.text);
    assert.notEqual(updated.headers.get('etag'), etag);
    const after = (await apiRead(event.id)).body;
    assert.equal(after.title, 'Recital, moved');
    assert.equal(after.utc_start_date, '2031-07-02 18:00:00');
    assert.equal(after.cost, '$10');
    assert.equal(after.featured, true);
    assert.equal(after.organizer[0].phone, '+39 555 0101');
    const inItalian = await server.request(`${API}/${event.id}?translation_language=it`, { auth: editor });
    assert.equal(inItalian.body.title, 'Recital (it)');

    const before = await rows();
    const stale = await put(path, changed.replace('Recital, moved', 'Stale'), editor, { 'if-match': etag });
    assert.equal(stale.status, 412, stale.text);
    assert.deepEqual(await rows(), before);
    assert.equal((await apiRead(event.id)).body.title, 'Recital, moved');
  });

  it('changes one occurrence with RECURRENCE-ID and removes one with EXDATE, as the API does through occurrences', async () => {
    const series = await apiEvent(server, editor, {
      title: 'Rehearsal',
      start_date: '2031-08-04 10:00:00',
      end_date: '2031-08-04 11:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
    });
    const path = `${ALL}${series.id}.ics`;
    const read = await dav(server, 'GET', path, { auth: editor });
    const uid = /UID:([^\r]+)/.exec(read.text)![1]!;
    const master = read.text.split('BEGIN:VEVENT')[1]!.split('END:VEVENT')[0]!.trim().split('\r\n');
    const withExdate = [
      'BEGIN:VEVENT',
      ...master.flatMap((line) => (line.startsWith('RRULE') ? [line, 'EXDATE:20310825T100000Z'] : [line])),
      'END:VEVENT',
    ];
    const body = calendar(
      withExdate,
      vevent(uid, ['RECURRENCE-ID:20310811T100000Z', 'DTSTART:20310811T120000Z', 'DTEND:20310811T130000Z', 'SUMMARY:Rehearsal, later']),
    );
    const updated = await put(path, body, editor, { 'if-match': read.headers.get('etag')! });
    assert.equal(updated.status, 204, updated.text);
    const listed = await server.request(`${API}?start_date=2031-08-01&end_date=2031-08-31&search=Rehearsal`, { auth: editor });
    assert.deepEqual(
      listed.body.events.map((event: any) => [event.utc_start_date, event.title]),
      [
        ['2031-08-04 10:00:00', 'Rehearsal'],
        ['2031-08-11 12:00:00', 'Rehearsal, later'],
        ['2031-08-18 10:00:00', 'Rehearsal'],
      ],
    );
    const again = await dav(server, 'GET', path, { auth: editor });
    assert.match(again.text, /RECURRENCE-ID[^\r]*20310811/);
    assert.match(again.text, /EXDATE[^\r]*20310825/);
  });

  it('deletes to the trash with If-Match, and the sync reports it gone', async () => {
    const event = await apiEvent(server, editor, {
      title: 'Gone soon',
      start_date: '2031-09-01 10:00:00',
      end_date: '2031-09-01 11:00:00',
    });
    const path = `${ALL}${event.id}.ics`;
    const token = syncTokenOf(await dav(server, 'REPORT', ALL, { auth: editor, body: syncCollection('') }));
    const etag = (await dav(server, 'GET', path, { auth: editor })).headers.get('etag')!;
    // A well-formed tag of version 1: the calendar's writes since have moved the event far past it.
    const stale = await dav(server, 'DELETE', path, { auth: editor, headers: { 'if-match': versionTag(1) } });
    assert.equal(stale.status, 412);
    assert.equal((await apiRead(event.id)).body.status, 'publish');
    const deleted = await dav(server, 'DELETE', path, { auth: editor, headers: { 'if-match': etag } });
    assert.equal(deleted.status, 204, deleted.text);
    assert.equal(await statusOf(event.id), 'trash');
    assert.equal((await dav(server, 'GET', path, { auth: editor })).status, 404);
    const synced = members(await dav(server, 'REPORT', ALL, { auth: editor, body: syncCollection(token) }));
    assert.ok(synced.some((member) => member.href === path && member.status?.includes('404')));
  });

  it('keeps a new event at the name the client chose when it is not the UID: read, replaced and deleted there', async () => {
    const uid = 'an odd/uid@example.org';
    const path = `${ALL}0b8a7c3e-name.ics`;
    const created = await put(path, calendar(vevent(uid, ['DTSTART:20311105T100000Z', 'SUMMARY:Named by the app'])), editor);
    assert.equal(created.status, 201, created.text);
    const read = await dav(server, 'GET', path, { auth: editor });
    assert.equal(read.status, 200);
    assert.equal(read.headers.get('etag'), created.headers.get('etag'));
    const replaced = await put(path, read.text.replace(/SUMMARY([^:\r]*):Named by the app/, 'SUMMARY$1:Renamed'), editor, {
      'if-match': read.headers.get('etag')!,
    });
    assert.equal(replaced.status, 204, replaced.text);
    assert.match((await dav(server, 'GET', path, { auth: editor })).text, /SUMMARY[^:\r]*:Renamed/);
    const elsewhere = await put(`${ALL}another-name.ics`, read.text, editor);
    assert.equal(davError(elsewhere).condition, key(CALDAV, 'no-uid-conflict'));
    assert.equal((await dav(server, 'DELETE', path, { auth: editor })).status, 204);
    assert.equal((await dav(server, 'GET', path, { auth: editor })).status, 404);
  });
});

describe('roles', () => {
  it("lands a contributor's event pending review, and lets them change it but not others' events", async () => {
    const created = await put(
      `${ALL}mine-1.ics`,
      calendar(vevent('mine-1', ['DTSTART:20311001T100000Z', 'DTEND:20311001T110000Z', 'SUMMARY:My gig'])),
      contributor,
    );
    assert.equal(created.status, 201, created.text);
    const mine = await dav(server, 'GET', `${ALL}mine-1.ics`, { auth: contributor });
    assert.equal(mine.status, 200);
    const id = Number(
      (await server.server.store.db.selectFrom('event_ical_uids').select('event_id').where('uid', '=', 'mine-1').executeTakeFirstOrThrow())
        .event_id,
    );
    assert.equal(await statusOf(id), 'pending');
    const edited = await put(`${ALL}mine-1.ics`, mine.text.replace(/SUMMARY([^:\r]*):My gig/, 'SUMMARY$1:My gig, longer'), contributor, {
      'if-match': mine.headers.get('etag')!,
    });
    assert.equal(edited.status, 204, edited.text);
    assert.equal((await apiRead(id, contributor)).body.title, 'My gig, longer');

    const theirs = await apiEvent(server, editor, {
      title: 'Not yours',
      start_date: '2031-10-02 10:00:00',
      end_date: '2031-10-02 11:00:00',
    });
    const before = await rows();
    const read = await dav(server, 'GET', `${ALL}${theirs.id}.ics`, { auth: contributor });
    const refused = await put(`${ALL}${theirs.id}.ics`, read.text.replace('Not yours', 'Mine now'), contributor);
    assert.equal(refused.status, 403, refused.text);
    assert.equal(davError(refused).condition, key(DAV, 'need-privileges'));
    const notDeleted = await dav(server, 'DELETE', `${ALL}${theirs.id}.ics`, { auth: contributor });
    assert.equal(notDeleted.status, 403);
    assert.deepEqual(await rows(), before);
  });

  it('refuses subscribers and category calendars with DAV:need-privileges, and says so in current-user-privilege-set', async () => {
    const before = await rows();
    const ics = calendar(vevent('sub-1', ['DTSTART:20311101T100000Z', 'SUMMARY:No']));
    for (const [path, auth] of [
      [`${ALL}sub-1.ics`, subscriber],
      [`/dav/calendars/category-${jazz}/sub-1.ics`, editor],
    ] as const) {
      const refused = await put(path, ics, auth);
      assert.equal(refused.status, 403, refused.text);
      assert.equal(davError(refused).condition, key(DAV, 'need-privileges'));
    }
    assert.deepEqual(await rows(), before);
    const privileges = async (path: string, auth: Credentials) => {
      const [member] = members(
        await dav(server, 'PROPFIND', path, { auth, depth: '0', body: propfind('<d:current-user-privilege-set/>') }),
      );
      return member!.props
        .get(key(DAV, 'current-user-privilege-set'))!
        .children.map((privilege) => privilege.children[0]!.localName)
        .sort();
    };
    assert.deepEqual(await privileges(ALL, editor), ['bind', 'read', 'read-current-user-privilege-set', 'unbind', 'write-content']);
    assert.deepEqual(await privileges(ALL, subscriber), ['read', 'read-current-user-privilege-set']);
    assert.deepEqual(await privileges(`/dav/calendars/category-${jazz}/`, editor), ['read', 'read-current-user-privilege-set']);
  });
});

describe('bad writes', () => {
  it('refuses each with its precondition as a DAV:error, changing nothing', async () => {
    const existing = await apiEvent(server, editor, { title: 'Owner', start_date: '2031-12-01 10:00:00', end_date: '2031-12-01 11:00:00' });
    const ownUid = /UID:([^\r]+)/.exec((await dav(server, 'GET', `${ALL}${existing.id}.ics`, { auth: editor })).text)![1]!;
    const before = await rows();
    const cases: [string, string, Record<string, string>, number, string | undefined][] = [
      [
        'two UIDs',
        calendar(vevent('a-1', ['DTSTART:20311201T100000Z']), vevent('b-1', ['DTSTART:20311201T100000Z'])),
        {},
        403,
        key(CALDAV, 'valid-calendar-object-resource'),
      ],
      ['a VTODO', calendar(['BEGIN:VTODO', 'UID:a-1', 'SUMMARY:Task', 'END:VTODO']), {}, 403, key(CALDAV, 'supported-calendar-component')],
      ['malformed', 'BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID a-1\r\n', {}, 400, key(CALDAV, 'valid-calendar-data')],
      ['no DTSTART', calendar(vevent('a-1', ['SUMMARY:When?'])), {}, 403, key(CALDAV, 'valid-calendar-object-resource')],
      ['another resource’s UID', calendar(vevent(ownUid, ['DTSTART:20311201T100000Z'])), {}, 403, key(CALDAV, 'no-uid-conflict')],
      ['not iCalendar', '{"title":"x"}', { 'content-type': 'application/json' }, 415, key(CALDAV, 'supported-calendar-data')],
      [
        'over the limit',
        calendar(vevent('a-1', ['DTSTART:20311201T100000Z', `DESCRIPTION:${'x'.repeat(600 * 1024)}`])),
        {},
        413,
        key(CALDAV, 'max-resource-size'),
      ],
      ['If-Match on a new resource', calendar(vevent('a-1', ['DTSTART:20311201T100000Z'])), { 'if-match': '"1-x"' }, 412, undefined],
    ];
    for (const [what, body, headers, status, condition] of cases) {
      const refused = await put(`${ALL}a-1.ics`, body, editor, headers);
      assert.equal(refused.status, status, `${what}: ${refused.text}`);
      const error = davError(refused);
      assert.equal(error.condition, condition, what);
      assert.notEqual(error.message, '', what);
    }
    const conflict = await put(`${ALL}a-1.ics`, calendar(vevent(ownUid, ['DTSTART:20311201T100000Z'])), editor);
    assert.match(conflict.text, new RegExp(`<d:href>${ALL}${existing.id}.ics</d:href>`));
    const changedUid = await put(`${ALL}${existing.id}.ics`, calendar(vevent('renamed-1', ['DTSTART:20311201T100000Z'])), editor);
    assert.equal(davError(changedUid).condition, key(CALDAV, 'valid-calendar-object-resource'));
    assert.deepEqual(await rows(), before);
    assert.equal((await apiRead(existing.id)).body.title, 'Owner');
  });

  it('refuses writes without credentials, and other methods as before', async () => {
    const before = await rows();
    const anonymous = await dav(server, 'PUT', `${ALL}x-1.ics`, {
      auth: null,
      body: calendar(vevent('x-1', ['DTSTART:20311201T100000Z'])),
      headers: { 'content-type': 'text/calendar' },
    });
    assert.equal(anonymous.status, 401);
    const collection = await put(ALL, calendar(vevent('x-1', ['DTSTART:20311201T100000Z'])), editor);
    assert.equal(collection.status, 405);
    const options = await dav(server, 'OPTIONS', ALL, {});
    assert.match(options.headers.get('allow')!, /PUT, DELETE/);
    assert.deepEqual(await rows(), before);
  });
});
