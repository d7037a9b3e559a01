/**
 * CalDAV, the read side (issue 42): discovery, the collections and their
 * properties, reads (PROPFIND, GET, calendar-multiget, calendar-query,
 * sync-collection), who sees what, and every bad input refused with a
 * WebDAV error that changes nothing. Through the real server, on both
 * databases.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import type { RunningServer } from '../../src/server.ts';
import { startSecondServer, startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import {
  APPLE,
  CALDAV,
  CS,
  DAV,
  apiEvent,
  calendarQuery,
  dav,
  davError,
  key,
  members,
  multiget,
  propfind,
  syncCollection,
  syncTokenOf,
  valueOf,
  type Member,
} from './caldav.helper.ts';

const HOME = '/dav/calendars/';
const ALL = '/dav/calendars/events/';

let server: TestServer;
let admin: Credentials;
let subscriber: Credentials;
let token: string;
let anonymousServer: RunningServer;
let jazz: number;
let single: any;
let series: any;
let draft: any;

const hrefsOf = (list: readonly Member[]) => list.map((member) => member.href).sort();
const eventHref = (collection: string, id: number) => `${collection}${id}.ics`;

before(async () => {
  server = await startTestServer();
  admin = await server.admin();
  subscriber = await server.createUser('subscriber');
  token = subscriber.bearer.slice('Bearer '.length);
  anonymousServer = await startSecondServer(server, { CALDAV_ANONYMOUS: 'true' });
  jazz = (await server.request('/calendar/events/v1/categories', { method: 'POST', auth: admin, body: { name: 'Jazz' } })).body.id;
  single = await apiEvent(server, admin, {
    title: 'Trio at noon',
    start_date: '2031-03-03 12:00:00',
    end_date: '2031-03-03 13:00:00',
    categories: [jazz],
  });
  series = await apiEvent(server, admin, {
    title: 'Weekly rehearsal',
    // Over 1 kB as a file: what a public answer would be compressed at.
    description: `<p>${'The choir rehearses the spring programme, scores at the door. '.repeat(20)}</p>`,
    start_date: '2031-03-02 10:00:00',
    end_date: '2031-03-02 11:00:00',
    recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'],
  });
  draft = await apiEvent(server, admin, {
    title: 'Unannounced',
    start_date: '2031-03-04 10:00:00',
    end_date: '2031-03-04 11:00:00',
    status: 'draft',
  });
});

after(async () => {
  await anonymousServer?.close();
  await server?.close();
});

describe('discovery', () => {
  it('leads from /.well-known/caldav to the root, the principal, the home and its calendars', async () => {
    const known = await dav(server, 'GET', '/.well-known/caldav');
    assert.equal(known.status, 301);
    assert.equal(known.headers.get('location'), `${server.url}/dav/`);

    const [root] = members(
      await dav(server, 'PROPFIND', '/dav/', { auth: admin, depth: '0', body: propfind('<d:current-user-principal/>') }),
    );
    assert.equal(valueOf(root!, key(DAV, 'current-user-principal')), '/dav/principals/users/admin/');

    const [principal] = members(
      await dav(server, 'PROPFIND', '/dav/principals/users/admin/', { auth: admin, depth: '0', body: propfind('<c:calendar-home-set/>') }),
    );
    assert.equal(valueOf(principal!, key(CALDAV, 'calendar-home-set')), HOME);

    const listed = members(await dav(server, 'PROPFIND', HOME, { auth: admin, depth: '1' }));
    assert.deepEqual(hrefsOf(listed), [HOME, ALL, `${HOME}category-${jazz}/`].sort());
    const all = listed.find((member) => member.href === ALL)!;
    const category = listed.find((member) => member.href === `${HOME}category-${jazz}/`)!;
    assert.equal(valueOf(all, key(DAV, 'displayname')), 'Calendar');
    assert.equal(valueOf(category, key(DAV, 'displayname')), 'Calendar · Jazz');
    for (const calendar of [all, category]) {
      const types = calendar.props.get(key(DAV, 'resourcetype'))!.children.map((child) => key(child.namespace, child.localName));
      assert.deepEqual(types, [key(DAV, 'collection'), key(CALDAV, 'calendar')]);
      assert.match(valueOf(calendar, key(APPLE, 'calendar-color'))!, /^#[0-9A-F]{6}$/);
      assert.match(valueOf(calendar, key(CALDAV, 'calendar-timezone'))!, /BEGIN:VTIMEZONE[\s\S]*END:VCALENDAR/);
      const components = calendar.props.get(key(CALDAV, 'supported-calendar-component-set'))!.children;
      assert.deepEqual(
        components.map((comp) => comp.attributes.find((attribute) => attribute.localName === 'name')?.value),
        ['VEVENT'],
      );
      assert.match(valueOf(calendar, key(CS, 'getctag'))!, /^"[A-Za-z0-9_-]+"$/);
      assert.match(valueOf(calendar, key(DAV, 'sync-token'))!, /^urn:x-almanac:sync:[A-Za-z0-9_-]+$/);
    }
    // Another collection holds other events: the ctags differ.
    assert.notEqual(valueOf(all, key(CS, 'getctag')), valueOf(category, key(CS, 'getctag')));
  });

  it('asks anonymous callers to sign in with Basic, and shows nobody another user’s principal', async () => {
    for (const [method, path] of [
      ['PROPFIND', '/dav/'],
      ['PROPFIND', ALL],
      ['GET', eventHref(ALL, single.id)],
      ['REPORT', ALL],
    ] as const) {
      const refused = await dav(server, method, path, { depth: '0' });
      assert.equal(refused.status, 401, `${method} ${path}`);
      assert.match(refused.headers.get('www-authenticate')!, /^Basic realm="almanac"/);
      assert.match(davError(refused).message, /Sign in/);
    }
    const wrong = await dav(server, 'PROPFIND', '/dav/', { auth: `Basic ${Buffer.from('admin:nope').toString('base64')}`, depth: '0' });
    assert.equal(wrong.status, 401);
    assert.match(wrong.headers.get('www-authenticate')!, /^Basic /);
    const other = await dav(server, 'PROPFIND', '/dav/principals/users/admin/', { auth: subscriber, depth: '0' });
    assert.equal(other.status, 404);
    assert.equal((await dav(server, 'PROPFIND', '/dav/principals/anonymous/', { auth: subscriber, depth: '0' })).status, 404);
  });

  it('takes an API token as the Basic password, of its own user only', async () => {
    const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    const [root] = members(await dav(server, 'PROPFIND', '/dav/', { auth: basic(subscriber.username, token), depth: '0' }));
    assert.equal(valueOf(root!, key(DAV, 'current-user-principal')), `/dav/principals/users/${subscriber.username}/`);
    // The subscriber's token under the administrator's name is no credential.
    assert.equal((await dav(server, 'PROPFIND', '/dav/', { auth: basic('admin', token), depth: '0' })).status, 401);
    const forged = `alm_${'A'.repeat(43)}`;
    assert.equal((await dav(server, 'PROPFIND', '/dav/', { auth: basic(subscriber.username, forged), depth: '0' })).status, 401);
  });

  it('answers OPTIONS with the DAV classes and the methods it allows, without credentials', async () => {
    const answer = await dav(server, 'OPTIONS', ALL);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('dav'), '1, 3, calendar-access');
    assert.equal(answer.headers.get('allow'), 'OPTIONS, GET, HEAD, PROPFIND, REPORT, PUT, DELETE');
  });

  it('lets anonymous callers read the public calendars when CALDAV_ANONYMOUS is on', async () => {
    const [root] = members(await dav(anonymousServer, 'PROPFIND', '/dav/', { depth: '0' }));
    assert.equal(valueOf(root!, key(DAV, 'current-user-principal')), '/dav/principals/anonymous/');
    const [principal] = members(await dav(anonymousServer, 'PROPFIND', '/dav/principals/anonymous/', { depth: '0' }));
    assert.equal(valueOf(principal!, key(CALDAV, 'calendar-home-set')), HOME);
    const listed = members(await dav(anonymousServer, 'PROPFIND', ALL, { depth: '1', body: propfind('<d:getetag/>') }));
    assert.deepEqual(hrefsOf(listed.slice(1)), [eventHref(ALL, single.id), eventHref(ALL, series.id)].sort());
    assert.equal((await dav(anonymousServer, 'GET', eventHref(ALL, draft.id))).status, 404);
    // An anonymous GET is public, yet goes as it is (fetch accepts gzip): its ETag is the getetag the listing named.
    const href = eventHref(ALL, series.id);
    const got = await dav(anonymousServer, 'GET', href);
    assert.equal(got.status, 200);
    assert.match(got.headers.get('cache-control') ?? '', /^public/);
    assert.ok(got.text.length >= 1024, `${got.text.length} bytes`);
    assert.equal(got.headers.get('content-encoding'), null);
    const member = listed.find((each) => each.href === href);
    assert.equal(got.headers.get('etag'), valueOf(member!, key(DAV, 'getetag')));
  });

  it('refuses a CALDAV_ANONYMOUS that is not true or false', () => {
    assert.equal(loadConfig({ CALDAV_ANONYMOUS: 'true' }).caldavAnonymous, true);
    assert.equal(loadConfig({}).caldavAnonymous, false);
    for (const value of ['maybe', '2', 'public']) {
      assert.throws(
        () => loadConfig({ CALDAV_ANONYMOUS: value }),
        (error: unknown) => error instanceof ConfigError && /CALDAV_ANONYMOUS/.test(error.message),
      );
    }
  });
});

describe('reads', () => {
  it('lists each single event and series once, with the ETag its GET gives, and the API’s version in it', async () => {
    const listed = members(
      await dav(server, 'PROPFIND', ALL, { auth: admin, depth: '1', body: propfind('<d:getetag/>', '<d:getcontenttype/>') }),
    );
    assert.equal(listed[0]!.href, ALL);
    const events = listed.slice(1);
    // The series once, never its occurrences; the draft to its editor.
    assert.deepEqual(hrefsOf(events), [single.id, series.id, draft.id].map((id) => eventHref(ALL, id)).sort());
    for (const member of events) {
      const id = Number(/(\d+)\.ics$/.exec(member.href)![1]);
      const read = await dav(server, 'GET', member.href, { auth: admin });
      assert.equal(read.status, 200);
      assert.match(read.headers.get('content-type')!, /^text\/calendar/);
      assert.equal(read.headers.get('etag'), valueOf(member, key(DAV, 'getetag')));
      assert.match(valueOf(member, key(DAV, 'getcontenttype'))!, /^text\/calendar/);
      const api = await server.request(`/calendar/events/v1/events/${id}`, { auth: admin });
      assert.match(read.headers.get('etag')!, /^"\d+-/, 'an editor’s tag names the version, as the API’s does');
      assert.equal(read.headers.get('etag')!.split('-')[0], api.headers.get('etag')!.split('-')[0], 'the version part is the API’s');
      const again = await dav(server, 'GET', member.href, { auth: admin, headers: { 'if-none-match': read.headers.get('etag')! } });
      assert.equal(again.status, 304);
    }
    const category = members(await dav(server, 'PROPFIND', `${HOME}category-${jazz}/`, { auth: admin, depth: '1' }));
    assert.deepEqual(hrefsOf(category.slice(1)), [eventHref(`${HOME}category-${jazz}/`, single.id)]);
    const subscribers = members(await dav(server, 'PROPFIND', ALL, { auth: subscriber, depth: '1' }));
    assert.ok(!hrefsOf(subscribers).includes(eventHref(ALL, draft.id)), 'a draft only to who may edit it');
    // Who may not edit an event gets a tag of the bytes alone, as from the API.
    for (const member of subscribers.slice(1)) assert.match(valueOf(member, key(DAV, 'getetag'))!, /^"[A-Za-z0-9_-]+"$/);
    assert.equal((await dav(server, 'GET', eventHref(ALL, draft.id), { auth: subscriber })).status, 404);
  });

  it('reads a series as its master with RRULE and its changed occurrence as a RECURRENCE-ID override, by id or UID', async () => {
    const instances = await server.request(`/calendar/events/v1/events/${series.id}/instances`, { auth: admin });
    const second = instances.body.events[1];
    const changed = await server.request(`/calendar/events/v1/events/${second.id}`, {
      method: 'PATCH',
      auth: admin,
      body: { title: 'Rehearsal, moved' },
    });
    assert.equal(changed.status, 200, changed.text);
    const read = await dav(server, 'GET', eventHref(ALL, series.id), { auth: admin });
    assert.match(read.text, /RRULE:FREQ=WEEKLY;COUNT=5/);
    assert.match(read.text, /RECURRENCE-ID[:;]/);
    assert.match(read.text, /SUMMARY;LANGUAGE=en:Rehearsal\\, moved/);
    assert.equal((read.text.match(/BEGIN:VEVENT/g) ?? []).length, 2);
    const uid = /^UID:(.+)$/m.exec(read.text)![1]!.trim();
    const byUid = await dav(server, 'GET', `${ALL}${encodeURIComponent(uid)}.ics`, { auth: admin });
    assert.equal(byUid.status, 200);
    assert.equal(byUid.text, read.text);
    // The same bytes as the API's own .ics of the series.
    const feed = await server.request(`/calendar/events/v1/events/${series.id}.ics`, { auth: admin });
    assert.equal(feed.text, read.text);
    // An occurrence is no resource of its own; nor is an unknown id or an event outside the category.
    for (const path of [
      eventHref(ALL, second.id),
      eventHref(ALL, 999_999),
      eventHref(`${HOME}category-${jazz}/`, series.id),
      `${HOME}category-999999/`,
    ]) {
      assert.equal((await dav(server, 'GET', path, { auth: admin })).status, 404, path);
    }
  });

  it('holds no event hidden from listings, as no list and no sync does', async () => {
    const hidden = await apiEvent(server, admin, {
      title: 'Private rehearsal',
      start_date: '2031-03-05 10:00:00',
      end_date: '2031-03-05 11:00:00',
      hide_from_listings: true,
    });
    const listed = members(await dav(server, 'PROPFIND', ALL, { auth: admin, depth: '1', body: propfind('<d:getetag/>') }));
    assert.ok(!hrefsOf(listed).includes(eventHref(ALL, hidden.id)));
    assert.equal((await dav(server, 'GET', eventHref(ALL, hidden.id), { auth: admin })).status, 404);
  });

  it('answers propname with the names alone, and allprop without calendar-data (asked by name only)', async () => {
    const body = (inner: string) => `<d:propfind xmlns:d="DAV:">${inner}</d:propfind>`;
    const [names] = members(await dav(server, 'PROPFIND', ALL, { auth: admin, depth: '0', body: body('<d:propname/>') }));
    assert.ok(names!.props.has(key(CS, 'getctag')) && names!.props.has(key(DAV, 'sync-token')));
    assert.ok([...names!.props.values()].every((prop) => prop.text === '' && prop.children.length === 0));
    const path = eventHref(ALL, single.id);
    const [all] = members(await dav(server, 'PROPFIND', path, { auth: admin, depth: '0', body: body('<d:allprop/>') }));
    assert.ok(all!.props.has(key(DAV, 'getetag')));
    assert.ok(!all!.props.has(key(CALDAV, 'calendar-data')));
    const [asked] = members(
      await dav(server, 'PROPFIND', path, { auth: admin, depth: '0', body: propfind('<c:calendar-data/>', '<d:quota-used-bytes/>') }),
    );
    assert.match(valueOf(asked!, key(CALDAV, 'calendar-data'))!, /^BEGIN:VCALENDAR\r\n/);
    assert.deepEqual(asked!.missing, [key(DAV, 'quota-used-bytes')]);
  });

  it('answers calendar-multiget with each event’s data, and a 404 for what is not in the calendar', async () => {
    const found = [single, series, draft];
    const hrefs = [...found.map((event) => eventHref(ALL, event.id)), eventHref(ALL, 999_999), '/elsewhere/1.ics'];
    const got = members(await dav(server, 'REPORT', ALL, { auth: admin, depth: '1', body: multiget(hrefs) }));
    assert.deepEqual(
      got.map((member) => member.href),
      hrefs,
    );
    // Read together, each is what the API's own feed of the event gives (a series with its override), as a GET.
    for (const [index, member] of got.slice(0, found.length).entries()) {
      const read = await dav(server, 'GET', member.href, { auth: admin });
      assert.equal(valueOf(member, key(CALDAV, 'calendar-data')), read.text);
      assert.equal(valueOf(member, key(DAV, 'getetag')), read.headers.get('etag'));
      const api = await server.request(`/calendar/events/v1/events/${found[index]!.id}.ics`, { auth: admin });
      assert.equal(read.text, api.text);
    }
    for (const member of got.slice(found.length)) assert.match(member.status!, / 404 /);
  });

  it('answers a calendar-multiget of as many hrefs as its body may hold, each event found and each unknown one a 404', async () => {
    const unknown = Array.from({ length: 9000 }, (_, index) => eventHref(ALL, 1_000_000 + index));
    const hrefs = [eventHref(ALL, single.id), ...unknown, eventHref(ALL, series.id)];
    const answer = await dav(server, 'REPORT', ALL, { auth: admin, depth: '1', body: multiget(hrefs) });
    assert.equal(answer.status, 207, answer.text.slice(0, 500));
    const got = members(answer);
    assert.equal(got.length, hrefs.length);
    for (const member of [got[0]!, got.at(-1)!]) assert.match(String(valueOf(member, key(DAV, 'getetag'))), /^"/);
    assert.ok(got.slice(1, -1).every((member) => / 404 /.test(member.status!)));
  });

  it('finds by time-range the events running in it, and a series when one of its occurrences does', async () => {
    const between = (start: string, end: string) =>
      calendarQuery(`<c:comp-filter name="VEVENT"><c:time-range start="${start}" end="${end}"/></c:comp-filter>`);
    const query = async (body: string) => hrefsOf(members(await dav(server, 'REPORT', ALL, { auth: admin, depth: '1', body })));
    // 23 March 2031: the series' fourth occurrence, nothing else.
    assert.deepEqual(await query(between('20310320T000000Z', '20310325T000000Z')), [eventHref(ALL, series.id)]);
    // 3 March, 12:30: the single event, running.
    assert.deepEqual(await query(between('20310303T123000Z', '20310303T124500Z')), [eventHref(ALL, single.id)]);
    // Ends when the single event starts: nothing (the end is exclusive).
    assert.deepEqual(await query(between('20310303T110000Z', '20310303T120000Z')), []);
    assert.deepEqual(await query(calendarQuery('<c:comp-filter name="VTODO"/>')), []);
    assert.deepEqual(await query(calendarQuery('')), [single.id, series.id, draft.id].map((id) => eventHref(ALL, id)).sort());
  });

  it('syncs from the change log: everything first, then what changed, and removals as 404s', async () => {
    const first = await dav(server, 'REPORT', ALL, { auth: admin, body: syncCollection('') });
    assert.ok(hrefsOf(members(first)).includes(eventHref(ALL, single.id)));
    const start = syncTokenOf(first);
    const quiet = await dav(server, 'REPORT', ALL, { auth: admin, body: syncCollection(start) });
    assert.deepEqual(members(quiet), []);

    const extra = await apiEvent(server, admin, {
      title: 'Late addition',
      start_date: '2031-05-01 10:00:00',
      end_date: '2031-05-01 11:00:00',
    });
    await server.request(`/calendar/events/v1/events/${single.id}`, { method: 'PATCH', auth: admin, body: { title: 'Trio at one' } });
    const changed = members(await dav(server, 'REPORT', ALL, { auth: admin, body: syncCollection(start) }));
    assert.deepEqual(hrefsOf(changed), [eventHref(ALL, single.id), eventHref(ALL, extra.id)].sort());
    const read = await dav(server, 'GET', eventHref(ALL, single.id), { auth: admin });
    assert.equal(
      valueOf(
        changed.find((member) => member.href === eventHref(ALL, single.id))!,
        key(DAV, 'getetag'),
      ),
      read.headers.get('etag'),
    );

    const next = syncTokenOf(await dav(server, 'REPORT', ALL, { auth: admin, body: syncCollection(start) }));
    const trashed = await server.request(`/calendar/events/v1/events/${extra.id}`, { method: 'DELETE', auth: admin });
    assert.equal(trashed.status, 200);
    const removed = members(await dav(server, 'REPORT', ALL, { auth: admin, body: syncCollection(next) }));
    assert.deepEqual(
      removed.map((member) => [member.href, member.status]),
      [[eventHref(ALL, extra.id), 'HTTP/1.1 404 Not Found']],
    );
    // Another collection reads the same log, each change as its members see it: the category's event changed, no removal.
    const category = `${HOME}category-${jazz}/`;
    const inCategory = members(await dav(server, 'REPORT', category, { auth: admin, body: syncCollection(start) }));
    assert.deepEqual(
      inCategory.filter((member) => member.status === undefined).map((member) => member.href),
      [eventHref(category, single.id)],
    );
  });

  it('moves a calendar’s ctag with any change of its members, and only then', async () => {
    const ctags = async () => {
      const listed = members(await dav(server, 'PROPFIND', HOME, { auth: admin, depth: '1', body: propfind('<cs:getctag/>') }));
      return new Map(listed.slice(1).map((member) => [member.href, valueOf(member, key(CS, 'getctag'))]));
    };
    const category = `${HOME}category-${jazz}/`;
    const first = await ctags();
    assert.deepEqual(await ctags(), first);
    const occurrences = await server.request(`/calendar/events/v1/events/${series.id}/instances`, { auth: admin });
    const changed = await server.request(`/calendar/events/v1/events/${occurrences.body.events[3].id}`, {
      method: 'PATCH',
      auth: admin,
      body: { title: 'Rehearsal, once more' },
    });
    assert.equal(changed.status, 200);
    const second = await ctags();
    assert.notEqual(second.get(ALL), first.get(ALL), 'an occurrence of a series changed');
    assert.equal(second.get(category), first.get(category), 'the series is in no category');
    // Another caller sees other members: its ctag is its own.
    const theirs = members(await dav(server, 'PROPFIND', ALL, { auth: subscriber, depth: '0', body: propfind('<cs:getctag/>') }));
    assert.notEqual(valueOf(theirs[0]!, key(CS, 'getctag')), second.get(ALL));
  });

  it('moves an author’s ctag with their own draft, not a subscriber’s, whoever asks first', async () => {
    const author = await server.createUser('author');
    const ctagOf = async (auth: Credentials) =>
      valueOf(members(await dav(server, 'PROPFIND', ALL, { auth, depth: '0', body: propfind('<cs:getctag/>') }))[0]!, key(CS, 'getctag'));
    const before = { author: await ctagOf(author), subscriber: await ctagOf(subscriber) };
    await apiEvent(server, author, {
      title: 'My own draft',
      start_date: '2031-05-05 10:00:00',
      end_date: '2031-05-05 11:00:00',
      status: 'draft',
    });
    // The author asks first in the new calendar version: what they are shown must not become the subscriber's.
    assert.notEqual(await ctagOf(author), before.author);
    assert.equal(await ctagOf(subscriber), before.subscriber);
    // Another subscriber is shown the same members, under a ctag of their own.
    const other = await server.createUser('subscriber');
    assert.notEqual(await ctagOf(other), before.subscriber);
  });

  it('gives each calendar the same ctag in the home’s listing as asked alone (versions read once per request)', async () => {
    const listed = members(await dav(server, 'PROPFIND', HOME, { auth: admin, depth: '1', body: propfind('<cs:getctag/>') }));
    const calendars = listed.slice(1);
    assert.ok(calendars.length > 1);
    for (const calendar of calendars) {
      const alone = members(await dav(server, 'PROPFIND', calendar.href, { auth: admin, depth: '0', body: propfind('<cs:getctag/>') }));
      assert.equal(valueOf(alone[0]!, key(CS, 'getctag')), valueOf(calendar, key(CS, 'getctag')), calendar.href);
    }
  });

  it('tells anonymous readers nothing of a hidden change: their ctag and ETags stay, an editor’s move', async () => {
    const venue = await server.request('/calendar/events/v1/venues', {
      method: 'POST',
      auth: admin,
      body: { venue: 'Back room', status: 'draft' },
    });
    assert.equal(venue.status, 201, venue.text);
    const gig = await apiEvent(server, admin, {
      title: 'Late set',
      start_date: '2031-09-09 22:00:00',
      end_date: '2031-09-09 23:00:00',
      venue: venue.body.id,
    });
    const seen = async (target: { url: string }, auth?: Credentials) => {
      const [calendar, ...events] = members(
        await dav(target, 'PROPFIND', ALL, { auth, depth: '1', body: propfind('<cs:getctag/>', '<d:getetag/>') }),
      );
      return {
        ctag: valueOf(calendar!, key(CS, 'getctag')),
        etag: valueOf(
          events.find((member) => member.href === eventHref(ALL, gig.id))!,
          key(DAV, 'getetag'),
        ),
      };
    };
    const anonymousBefore = await seen(anonymousServer);
    const editorBefore = await seen(server, admin);
    const renamed = await server.request(`/calendar/events/v1/venues/${venue.body.id}`, {
      method: 'POST',
      auth: admin,
      body: { venue: 'Back room, renamed' },
    });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual(await seen(anonymousServer), anonymousBefore);
    const editorAfter = await seen(server, admin);
    assert.notEqual(editorAfter.ctag, editorBefore.ctag);
  });

  it('refuses a sync token it did not issue, or issued to another caller, with DAV:valid-sync-token', async () => {
    const mine = syncTokenOf(await dav(server, 'REPORT', ALL, { auth: admin, body: syncCollection('') }));
    for (const [auth, sent] of [
      [admin, 'urn:x-almanac:sync:forged'],
      [admin, 'http://example.org/sync/1'],
      [admin, `${mine}x`],
      [subscriber, mine],
    ] as const) {
      const refused = await dav(server, 'REPORT', ALL, { auth, body: syncCollection(sent) });
      assert.equal(refused.status, 403, sent);
      assert.equal(davError(refused).condition, key(DAV, 'valid-sync-token'));
    }
  });

  it('holds a series in a category’s calendar when the series is in it, and reads it with HEAD too', async () => {
    const category = `${HOME}category-${jazz}/`;
    const jam = await apiEvent(server, admin, {
      title: 'Monthly jam',
      start_date: '2031-06-06 21:00:00',
      end_date: '2031-06-06 23:00:00',
      recurrence: ['RRULE:FREQ=MONTHLY;COUNT=4'],
      categories: [jazz],
    });
    const listed = members(await dav(server, 'PROPFIND', category, { auth: admin, depth: '1', body: propfind('<d:getetag/>') }));
    assert.ok(hrefsOf(listed).includes(eventHref(category, jam.id)));
    const august = calendarQuery(
      '<c:comp-filter name="VEVENT"><c:time-range start="20310801T000000Z" end="20310901T000000Z"/></c:comp-filter>',
    );
    assert.deepEqual(hrefsOf(members(await dav(server, 'REPORT', category, { auth: admin, body: august }))), [eventHref(category, jam.id)]);
    const head = await dav(server, 'HEAD', eventHref(category, jam.id), { auth: admin });
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(
      head.headers.get('etag'),
      valueOf(
        listed.find((member) => member.href === eventHref(category, jam.id))!,
        key(DAV, 'getetag'),
      ),
    );
  });
});

describe('bad input', () => {
  const refuse = async (method: string, path: string, options: Parameters<typeof dav>[3], status: number, condition?: string) => {
    const answer = await dav(server, method, path, { auth: admin, ...options });
    assert.equal(answer.status, status, `${method} ${path}: ${answer.text}`);
    const error = davError(answer);
    assert.equal(error.condition, condition);
    assert.notEqual(error.message, '');
    return error;
  };

  it('refuses malformed XML with a 400, and never expands an entity or reads a DTD', async () => {
    await refuse('PROPFIND', ALL, { depth: '0', body: '<d:propfind xmlns:d="DAV:"><d:prop>' }, 400);
    await refuse('PROPFIND', ALL, { depth: '0', body: '<d:nonsense xmlns:d="DAV:"/>' }, 400);
    await refuse('REPORT', ALL, { body: '' }, 400);
    const entity =
      '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><d:propfind xmlns:d="DAV:"><d:prop>&x;</d:prop></d:propfind>';
    const error = await refuse('PROPFIND', ALL, { depth: '0', body: entity }, 400);
    assert.match(error.message, /DTD/);
    await refuse(
      'REPORT',
      ALL,
      { body: '<c:calendar-multiget xmlns:c="urn:ietf:params:xml:ns:caldav">&undefined;</c:calendar-multiget>' },
      400,
    );
  });

  it('refuses Depth: infinity with DAV:propfind-finite-depth, and a Depth that is none', async () => {
    await refuse('PROPFIND', HOME, { depth: 'infinity' }, 403, key(DAV, 'propfind-finite-depth'));
    await refuse('PROPFIND', HOME, { depth: '2' }, 400);
  });

  it('refuses an unknown report with DAV:supported-report, and a filter it cannot apply', async () => {
    const unknown =
      '<c:free-busy-query xmlns:c="urn:ietf:params:xml:ns:caldav"><c:time-range start="20310101T000000Z" end="20310201T000000Z"/></c:free-busy-query>';
    await refuse('REPORT', ALL, { body: unknown }, 403, key(DAV, 'supported-report'));
    await refuse('REPORT', HOME, { body: syncCollection('') }, 403, key(DAV, 'supported-report'));
    const badRange = calendarQuery(
      '<c:comp-filter name="VEVENT"><c:time-range start="2031-01-01" end="20310201T000000Z"/></c:comp-filter>',
    );
    await refuse('REPORT', ALL, { body: badRange }, 403, key(CALDAV, 'valid-filter'));
    const backwards = calendarQuery(
      '<c:comp-filter name="VEVENT"><c:time-range start="20310201T000000Z" end="20310101T000000Z"/></c:comp-filter>',
    );
    await refuse('REPORT', ALL, { body: backwards }, 403, key(CALDAV, 'valid-filter'));
    const byText = calendarQuery(
      '<c:comp-filter name="VEVENT"><c:prop-filter name="SUMMARY"><c:text-match>x</c:text-match></c:prop-filter></c:comp-filter>',
    );
    await refuse('REPORT', ALL, { body: byText }, 403, key(CALDAV, 'supported-filter'));
  });

  it('refuses a body over its limit with a 413', async () => {
    const huge = propfind(`<d:displayname>${'x'.repeat(600 * 1024)}</d:displayname>`);
    await refuse('PROPFIND', ALL, { depth: '0', body: huge }, 413);
  });

  it('refuses writes to category calendars, subscribers’ writes and changes to the calendars themselves with DAV:need-privileges, changing nothing', async () => {
    const before = await dav(server, 'GET', eventHref(ALL, single.id), { auth: admin });
    const ics =
      'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:x@y\r\nDTSTART:20310101T100000Z\r\nSUMMARY:No\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n';
    const category = `${HOME}category-${jazz}/`;
    for (const [method, path, body, auth] of [
      ['PUT', `${category}x@y.ics`, ics, admin],
      ['PUT', eventHref(category, single.id), ics, admin],
      ['PUT', `${ALL}x@y.ics`, ics, subscriber],
      ['DELETE', eventHref(category, single.id), undefined, admin],
      ['DELETE', eventHref(ALL, single.id), undefined, subscriber],
      ['MKCALENDAR', `${HOME}mine/`, undefined, admin],
      ['PROPPATCH', ALL, propfind('<d:displayname/>'), admin],
    ] as const) {
      await refuse(
        method,
        path,
        { body, auth, headers: body === ics ? { 'content-type': 'text/calendar' } : {} },
        403,
        key(DAV, 'need-privileges'),
      );
    }
    // Anonymous readers never write, CALDAV_ANONYMOUS or not.
    const anonymous = await dav(anonymousServer, 'PUT', `${ALL}x@y.ics`, {
      auth: null,
      body: ics,
      headers: { 'content-type': 'text/calendar' },
    });
    assert.equal(anonymous.status, 403, anonymous.text);
    assert.equal(davError(anonymous).condition, key(DAV, 'need-privileges'));
    const afterwards = await dav(server, 'GET', eventHref(ALL, single.id), { auth: admin });
    assert.equal(afterwards.text, before.text);
    assert.equal(afterwards.headers.get('etag'), before.headers.get('etag'));
  });

  it('answers 404 for addresses it does not have, and 405 to a GET of a collection', async () => {
    for (const path of ['/dav/nothing/', '/dav/calendars/events/1/2.ics', '/dav/principals/', '/dav/calendars/category-x/']) {
      await refuse('PROPFIND', path, { depth: '0' }, 404);
    }
    const collection = await dav(server, 'GET', ALL, { auth: admin });
    assert.equal(collection.status, 405);
    assert.match(collection.headers.get('allow')!, /PROPFIND/);
  });
});
