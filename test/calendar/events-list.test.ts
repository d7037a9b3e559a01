import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { PostPasswords } from '../../src/calendar/posts/posts.passwords.ts';
import { EventsService } from '../../src/calendar/events/events.service.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { contextFor } from './context.helper.ts';
import { countingStatements } from '../helpers/statements.ts';
import { EVENTS, ids, makeEvent, secondsFromNow, utcDay } from './events.factories.ts';

const token = () => `tok${randomBytes(5).toString('hex')}`;

describe('GET /events', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  const list = (query: string, auth?: Credentials | string) => server.request(`${EVENTS}?${query}`, auth === undefined ? {} : { auth });

  describe('argument validation', () => {
    const invalid: [string, string][] = [
      ['page=foo', 'page'],
      ['page=-1', 'page'],
      ['page=0', 'page'],
      ['page=foo%20bar', 'page'],
      ['per_page=0', 'per_page'],
      ['per_page=foo', 'per_page'],
      ['start_date=before%20my%20birthday', 'start_date'],
      ['end_date=foo', 'end_date'],
      ['starts_before=foo', 'starts_before'],
      ['starts_after=nope', 'starts_after'],
      ['ends_before=soon', 'ends_before'],
      ['ends_after=later', 'ends_after'],
      ['search=', 'search'],
      ['venue=foo', 'venue'],
      ['venue=23', 'venue'],
      ['organizer=foo', 'organizer'],
      ['organizer=23', 'organizer'],
      ['categories=no-such-category', 'categories'],
      ['tags=no-such-tag', 'tags'],
      ['featured=yes', 'featured'],
      ['featured=', 'featured'],
      ['strict_dates=on', 'strict_dates'],
      ['status=publish,draft', 'status'],
      ['status=foo', 'status'],
      ['include=foo-bar,23,89', 'include'],
      ['post_parent=foo-bar', 'post_parent'],
      ['post_parent=23', 'post_parent'],
      ['post_parent=99999999999', 'post_parent'],
      ['include=99999999999', 'include'],
      ['venue=99999999999', 'venue'],
      ['organizer=1,99999999999', 'organizer'],
      ['ticketed=true', 'ticketed'],
      ['ticketed=maybe', 'ticketed'],
      ['geoloc_lat=45', 'geoloc_lng'],
      ['geoloc_lng=9', 'geoloc_lat'],
      ['geoloc_lat=91&geoloc_lng=9', 'geoloc_lat'],
      ['geoloc=maybe', 'geoloc'],
      ['translation_language=fr', 'translation_language'],
    ];
    for (const [query, param] of invalid) {
      it(`rejects ${query} with rest_invalid_param naming ${param}`, async () => {
        const response = await list(query);
        assert.equal(response.status, 400, response.text);
        assert.equal(response.body.code, 'rest_invalid_param');
        assert.ok(param in response.body.data.params, JSON.stringify(response.body.data));
      });
    }

    it('explains ticketed=true like the reference without Event Tickets', async () => {
      const response = await list('ticketed=true');
      assert.equal(response.body.data.details.ticketed.code, 'event-tickets-not-active');
    });

    it('rejects bad status lists from editors too, and any from anonymous', async () => {
      for (const status of ['foo', 'foo,%20bar', 'foo,%20bar,%20publish']) {
        assert.equal((await list(`status=${status}`, admin)).status, 400, status);
      }
      assert.equal((await list('status=any')).status, 400);
      assert.equal((await list('status=any', admin)).status, 200);
      assert.equal((await list('status=publish')).status, 200);
    });

    it('accepts every boolean spelling of deviation 12', async () => {
      for (const value of ['true', 'false', '1', '0', 'TRUE']) {
        assert.equal((await list(`featured=${value}&strict_dates=${value}&geoloc=${value}`)).status, 200, value);
      }
      assert.equal((await list('ticketed=false')).status, 200);
    });

    it('caps per_page at 50 and survives absurd values', async () => {
      const response = await list('per_page=100');
      assert.equal(response.status, 200);
      assert.match(response.body.rest_url, /per_page=50/);
      assert.equal((await list('per_page=99999999999999999999999')).status, 200);
    });
  });

  describe('envelope', () => {
    it('answers an empty first page with zeros and no links', async () => {
      const response = await list(`search=${token()}`);
      assert.equal(response.status, 200);
      assert.deepEqual(Object.keys(response.body), ['events', 'rest_url', 'total', 'total_pages']);
      assert.deepEqual([response.body.total, response.body.total_pages], [0, 0]);
      assert.equal(response.headers.get('x-tec-total'), '0');
      assert.equal(response.headers.get('x-tec-totalpages'), '0');
    });

    it('paginates with followable links, page last, and 404 beyond the last page', async () => {
      const word = token();
      for (let day = 1; day <= 5; day += 1)
        await makeEvent(server, admin, { title: `${word} ${day}`, start_date: secondsFromNow(day), end_date: secondsFromNow(day, 1) });
      const first = await list(`per_page=2&search=${word}`);
      assert.equal(first.status, 200);
      assert.deepEqual(Object.keys(first.body), ['events', 'rest_url', 'next_rest_url', 'total', 'total_pages']);
      assert.deepEqual([first.body.total, first.body.total_pages], [5, 3]);
      assert.equal(first.headers.get('x-tec-total'), '5');
      assert.equal(first.headers.get('x-tec-totalpages'), '3');
      assert.match(first.body.rest_url, /\/events\/\?page=1&per_page=2&search=/);
      assert.match(first.body.next_rest_url, /&page=2$/);
      const second = await server.request(first.body.next_rest_url);
      assert.equal(second.status, 200);
      assert.deepEqual(Object.keys(second.body), ['events', 'rest_url', 'next_rest_url', 'previous_rest_url', 'total', 'total_pages']);
      assert.doesNotMatch(second.body.previous_rest_url, /[?&]page=/);
      const third = await server.request(second.body.next_rest_url);
      assert.equal(third.body.events.length, 1);
      assert.equal(third.body.next_rest_url, undefined);
      assert.match(third.body.previous_rest_url, /&page=2$/);
      const previous = await server.request(third.body.previous_rest_url);
      assert.deepEqual(ids(previous.body), ids(second.body));
      const beyond = await list(`per_page=2&search=${word}&page=4`);
      assert.equal(beyond.status, 404);
      assert.equal(beyond.body.code, 'event-archive-page-not-found');
      assert.equal(beyond.body.message, 'The requested event archive page does not exist');
    });

    it('echoes arguments in the reference order, as sent, and leaves default bounds out', async () => {
      const word = token();
      const response = await list(
        `translation_language=en&strict_dates=false&featured=false&organizer=&search=${word}&ends_after=2017-12-31&per_page=3`,
      );
      assert.equal(response.status, 400); // organizer= is an empty list
      const ok = await list(`translation_language=en&strict_dates=false&featured=false&search=${word}&ends_after=2017-12-31&per_page=3`);
      const url = new URL(ok.body.rest_url);
      assert.deepEqual(
        [...url.searchParams.keys()],
        ['page', 'per_page', 'search', 'status', 'ends_after', 'featured', 'strict_dates', 'translation_language'],
      );
      assert.equal(url.searchParams.get('status'), 'publish');
      const plain = new URL((await list('')).body.rest_url);
      assert.deepEqual([...plain.searchParams.keys()], ['page', 'per_page', 'status']);
      assert.equal(new URL((await list('', admin)).body.rest_url).searchParams.get('status'), 'any');
      const followed = await server.request(ok.body.rest_url);
      assert.equal(followed.status, 200);
    });

    it('keeps every other argument sent in its links, after the echoed ones, page replaced (issue 37)', async () => {
      const word = token();
      for (let day = 1; day <= 3; day += 1)
        await makeEvent(server, admin, { title: `${word} ${day}`, start_date: secondsFromNow(day), end_date: secondsFromNow(day, 1) });
      const first = await list(`_fields=id,title&search=${word}&context=view&page=1&per_page=2`);
      const next = new URL(first.body.next_rest_url);
      assert.deepEqual(
        [...next.searchParams],
        [
          ['per_page', '2'],
          ['search', word],
          ['status', 'publish'],
          ['_fields', 'id,title'],
          ['context', 'view'],
          ['page', '2'],
        ],
      );
      assert.equal(new URL(first.body.rest_url).search, `?page=1${next.search.replace(/&page=2$/, '').replace('?', '&')}`);
      const second = await server.request(first.body.next_rest_url);
      assert.deepEqual(Object.keys(second.body.events[0]), ['id', 'title'], 'the link keeps _fields');
      assert.equal(second.body.events.length, 1);
      assert.ok((second.headers.get('link') ?? '').includes(`<${second.body.previous_rest_url}>; rel="prev"`));
      assert.deepEqual(ids((await server.request(second.body.previous_rest_url)).body), ids(first.body));
    });

    it('orders by local start, then publication date, then id', async () => {
      const word = token();
      const later = await makeEvent(server, admin, {
        title: `${word} later`,
        start_date: '2030-01-01 12:00',
        end_date: '2030-01-01 13:00',
      });
      const sameA = await makeEvent(server, admin, {
        title: `${word} a`,
        start_date: '2030-01-01 09:00',
        end_date: '2030-01-01 10:00',
        date: '2020-01-02 00:00:00',
      });
      const sameB = await makeEvent(server, admin, {
        title: `${word} b`,
        start_date: '2030-01-01 09:00',
        end_date: '2030-01-01 10:00',
        date: '2020-01-01 00:00:00',
      });
      const sameC = await makeEvent(server, admin, {
        title: `${word} c`,
        start_date: '2030-01-01 09:00',
        end_date: '2030-01-01 10:00',
        date: '2020-01-01 00:00:00',
      });
      // A Tokyo event at 08:00 local starts earlier in local time though later as an instant.
      const tokyo = await makeEvent(server, admin, {
        title: `${word} tokyo`,
        start_date: '2030-01-01 08:00',
        end_date: '2030-01-01 09:00',
        timezone: 'Asia/Tokyo',
      });
      const response = await list(`search=${word}&start_date=2029-12-31&end_date=2030-01-02`);
      assert.deepEqual(ids(response.body), [tokyo.id, sameB.id, sameC.id, sameA.id, later.id]);
    });
  });

  describe('date window', () => {
    it('lists events still running today by default and hides those that ended before today', async () => {
      const word = token();
      const running = await makeEvent(server, admin, {
        title: `${word} running`,
        start_date: secondsFromNow(-3),
        end_date: secondsFromNow(3),
      });
      const marathon = await makeEvent(server, admin, {
        title: `${word} marathon`,
        start_date: secondsFromNow(-400),
        end_date: secondsFromNow(2),
      });
      const endedYesterday = await makeEvent(server, admin, {
        title: `${word} ended`,
        start_date: `${utcDay(-3)} 10:00`,
        end_date: `${utcDay(-2)} 10:00`,
      });
      const upcoming = await makeEvent(server, admin, {
        title: `${word} upcoming`,
        start_date: secondsFromNow(10),
        end_date: secondsFromNow(10, 1),
      });
      const tooFar = await makeEvent(server, admin, {
        title: `${word} far`,
        start_date: secondsFromNow(800),
        end_date: secondsFromNow(800, 1),
      });
      const response = await list(`search=${word}`);
      assert.deepEqual(ids(response.body), [marathon.id, running.id, upcoming.id]);
      assert.ok(![endedYesterday.id, tooFar.id].some((id) => ids(response.body).includes(id)));
    });

    it('lists at once an event running longer than any before it (the longest duration bounds the walk)', async () => {
      const word = token();
      const week = await makeEvent(server, admin, { title: `${word} week`, start_date: secondsFromNow(-7), end_date: secondsFromNow(1) });
      assert.deepEqual(ids((await list(`search=${word}`)).body), [week.id]);
      const longest = await makeEvent(server, admin, {
        title: `${word} longest`,
        start_date: secondsFromNow(-3000),
        end_date: secondsFromNow(1),
      });
      assert.deepEqual(ids((await list(`search=${word}`)).body), [longest.id, week.id]);
    });

    it('start_date=<timestamp +5 weeks> includes the whole day (6 of 10 weekly events)', async () => {
      const word = token();
      for (let week = 1; week <= 10; week += 1) {
        await makeEvent(server, admin, {
          title: `${word} ${week}`,
          start_date: secondsFromNow(week * 7),
          end_date: secondsFromNow(week * 7, 2),
        });
      }
      const response = await list(`search=${word}&start_date=${secondsFromNow(35)}`);
      assert.equal(response.body.total, 6);
      const ended = await list(`search=${word}&end_date=${secondsFromNow(35, 2)}`);
      assert.equal(ended.body.total, 5);
      const window = await list(`search=${word}&start_date=${secondsFromNow(10)}&end_date=${secondsFromNow(30)}`);
      assert.equal(window.body.total, 3);
    });

    it('compares whole days unless strict_dates is true', async () => {
      const word = token();
      const four = await makeEvent(server, admin, {
        title: `${word} four`,
        start_date: '2018-01-01 16:00:00',
        end_date: '2018-01-01 16:30:00',
      });
      const eight = await makeEvent(server, admin, {
        title: `${word} eight`,
        start_date: '2018-01-01 20:00:00',
        end_date: '2018-01-01 20:30:00',
      });
      const query = `search=${word}&start_date=2018-01-01%2015:00:00&end_date=2018-01-01%2018:00:00`;
      assert.deepEqual(ids((await list(query)).body), [four.id, eight.id]);
      assert.deepEqual(ids((await list(`${query}&strict_dates=true`)).body), [four.id]);
    });

    it('applies relative bounds, dropping the default window (an example of the reference)', async () => {
      const word = token();
      const make = (name: string, start: string, end: string) =>
        makeEvent(server, admin, { title: `${word} ${name}`, start_date: start, end_date: end });
      const a = await make('A', '2017-12-31 17:00:00', '2017-12-31 19:00:00');
      const b = await make('B', '2018-01-01 16:00:00', '2018-01-01 17:00:00');
      const c = await make('C', '2018-01-01 19:00:00', '2018-01-01 20:00:00');
      const d = await make('D', '2018-01-02 10:00:00', '2018-01-02 11:00:00');
      const e = await make('E', '2017-12-30 10:00:00', '2018-01-02 10:00:00');
      const f = await make('F', '2017-12-29 10:00:00', '2018-01-03 10:00:00');
      const relative = await list(`search=${word}&ends_after=2017-12-31&starts_before=2018-01-02`);
      assert.deepEqual(ids(relative.body), [f.id, e.id, b.id, c.id, d.id]);
      assert.ok(!ids(relative.body).includes(a.id));
      const both = await list(`search=${word}&ends_after=2017-12-31&starts_before=2018-01-02&start_date=2017-12-30&end_date=2018-01-02`);
      assert.deepEqual(ids(both.body), [e.id, b.id, c.id, d.id]);
      const after = await list(`search=${word}&starts_after=2018-01-01`);
      assert.deepEqual(ids(after.body), [d.id]);
      const endsBefore = await list(`search=${word}&ends_before=2017-12-31`);
      assert.deepEqual(ids(endsBefore.body), [a.id]);
    });

    it('include ignores every date filter (deviation 6) and orders by publication date', async () => {
      const word = token();
      const old = await makeEvent(server, admin, {
        title: `${word} old`,
        start_date: '2001-01-01 10:00',
        end_date: '2001-01-01 11:00',
        date: '2020-01-02 00:00:00',
      });
      const soon = await makeEvent(server, admin, {
        title: `${word} soon`,
        start_date: secondsFromNow(2),
        end_date: secondsFromNow(2, 1),
        date: '2020-01-01 00:00:00',
      });
      const response = await list(`include=${old.id},${soon.id},999999&start_date=2025-01-01`);
      assert.deepEqual(ids(response.body), [soon.id, old.id]);
    });
  });

  describe('filters', () => {
    it('search needs every word in the title, excerpt or description', async () => {
      const word = token();
      const both = await makeEvent(server, admin, { title: `${word} foo`, description: 'bar baz' });
      await makeEvent(server, admin, { title: `${word} only`, excerpt: 'qux' });
      assert.deepEqual(ids((await list(`search=${word}%20bar`)).body), [both.id]);
      assert.deepEqual(ids((await list(`search=${word}%20FOO`)).body), [both.id]);
      assert.equal((await list(`search=${word}%20%25`)).body.total, 0);
      assert.equal((await list(`search=${word}%20'%20OR%201=1--`)).body.total, 0);
    });

    it('featured filters both ways', async () => {
      const word = token();
      const featured = await makeEvent(server, admin, { title: word, featured: true });
      const plain = await makeEvent(server, admin, { title: word });
      assert.deepEqual(ids((await list(`search=${word}&featured=true`)).body), [featured.id]);
      assert.deepEqual(ids((await list(`search=${word}&featured=0`)).body), [plain.id]);
    });

    it('never lists hidden events, not even with include', async () => {
      const word = token();
      const hidden = await makeEvent(server, admin, { title: word, hide_from_listings: 'true' });
      assert.equal((await list(`search=${word}`)).body.total, 0);
      assert.equal((await list(`include=${hidden.id}`)).body.total, 0);
      assert.equal((await server.request(`${EVENTS}/${hidden.id}`)).status, 200);
    });

    it('filters by venue, organizer, categories and tags (OR within, AND across)', async () => {
      const word = token();
      const one = await makeEvent(server, admin, {
        title: word,
        venue: { venue: `Hall ${word}`, address: '1 Road' },
        organizer: [{ organizer: `Org ${word}` }],
        categories: [`Cat ${word}`],
        tags: [`tag-a-${word}`],
      });
      const two = await makeEvent(server, admin, { title: word, categories: [`Other ${word}`], tags: [`tag-b-${word}`] });
      const venueId = one.venue.id;
      const organizerId = one.organizer[0].id;
      assert.deepEqual(ids((await list(`search=${word}&venue=${venueId}`)).body), [one.id]);
      assert.deepEqual(ids((await list(`search=${word}&organizer[]=${organizerId}`)).body), [one.id]);
      assert.deepEqual(ids((await list(`search=${word}&categories=${one.categories[0].slug}`)).body), [one.id]);
      assert.deepEqual(ids((await list(`search=${word}&categories=${encodeURIComponent(`Cat ${word}`)},${two.categories[0].id}`)).body), [
        one.id,
        two.id,
      ]);
      assert.deepEqual(ids((await list(`search=${word}&tags=tag-a-${word},tag-b-${word}`)).body), [one.id, two.id]);
      assert.deepEqual(ids((await list(`search=${word}&tags=tag-b-${word}&categories=${one.categories[0].id}`)).body), []);
      assert.equal((await list(`venue=${one.id}`)).status, 400);
    });

    it('post_parent needs an event id', async () => {
      const parent = await makeEvent(server, admin);
      const response = await list(`post_parent=${parent.id}`);
      assert.equal(response.status, 200);
      assert.equal(response.body.total, 0);
      assert.equal((await list(`post_parent=${parent.venue?.id ?? 999999}`)).status, 400);
    });

    it('geoloc filters events by their venue coordinates within a radius', async () => {
      const word = token();
      const near = await makeEvent(server, admin, {
        title: word,
        venue: { venue: `Duomo ${word}`, address: 'Piazza', geo_lat: 45.4642, geo_lng: 9.19 },
      });
      const far = await makeEvent(server, admin, {
        title: word,
        venue: { venue: `Colosseo ${word}`, address: 'Via', geo_lat: 41.8902, geo_lng: 12.4922 },
      });
      const nowhere = await makeEvent(server, admin, { title: word });
      assert.equal(near.venue.geo_lat, 45.4642);
      assert.deepEqual(ids((await list(`search=${word}&geoloc_lat=45.47&geoloc_lng=9.2`)).body), [near.id]);
      assert.deepEqual(ids((await list(`search=${word}&geoloc_lat=45.47&geoloc_lng=9.2&geoloc_radius=600`)).body), [near.id, far.id]);
      assert.deepEqual(ids((await list(`search=${word}&geoloc=true`)).body), [near.id, far.id]);
      assert.deepEqual(ids((await list(`search=${word}&geoloc=false`)).body), [nowhere.id]);
    });
  });

  describe('visibility (deviation 9)', () => {
    it('shows each role what it may read', async () => {
      const word = token();
      const contributor = await server.createUser('contributor');
      const other = await server.createUser('contributor');
      const author = await server.createUser('author');
      const editor = await server.createUser('editor');
      const subscriber = await server.createUser('subscriber');
      const published = await makeEvent(server, admin, { title: `${word} published` });
      const draft = await makeEvent(server, contributor, { title: `${word} draft`, status: 'draft' });
      const pending = await makeEvent(server, other, { title: `${word} pending`, status: 'publish' });
      assert.equal(pending.status, 'pending');
      const privateOne = await makeEvent(server, admin, { title: `${word} private`, status: 'private' });
      const trashed = await makeEvent(server, admin, { title: `${word} trashed` });
      await server.request(`${EVENTS}/${trashed.id}`, { method: 'DELETE', auth: admin });
      const sorted = (list: number[]) => [...list].sort((x, y) => x - y);
      const seen = async (auth?: Credentials) => sorted(ids((await list(`search=${word}&per_page=50`, auth)).body));
      assert.deepEqual(await seen(), [published.id]);
      assert.deepEqual(await seen(subscriber), [published.id]);
      assert.deepEqual(await seen(contributor), sorted([published.id, draft.id]));
      assert.deepEqual(await seen(author), [published.id]);
      assert.deepEqual(await seen(editor), sorted([published.id, draft.id, pending.id, privateOne.id]));
      assert.deepEqual(sorted(ids((await list(`search=${word}&status=draft,pending`, editor)).body)), sorted([draft.id, pending.id]));
      assert.deepEqual(sorted(ids((await list(`search=${word}&status=any`, contributor)).body)), sorted([published.id, draft.id]));
      assert.deepEqual(ids((await list(`search=${word}&status=trash`, editor)).body), [trashed.id]);
      assert.deepEqual(ids((await list(`search=${word}&status=pending`, contributor)).body), []);
    });

    it('treats a future event whose date has passed as published', async () => {
      const word = token();
      const scheduled = await makeEvent(server, admin, { title: word, status: 'future', date_utc: '2001-01-01 00:00:00' });
      assert.equal(scheduled.status, 'publish');
      const future = await makeEvent(server, admin, { title: word, date: '+1 year' });
      assert.equal(future.status, 'future');
      assert.deepEqual(ids((await list(`search=${word}`)).body), [scheduled.id]);
    });
  });

  describe('password-protected events in lists', () => {
    it('lists them stripped, and whole with the password or context=edit for editors', async () => {
      const word = token();
      const locked = await makeEvent(server, admin, {
        title: `${word} locked`,
        password: 'sesame',
        description: 'secret',
        cost: '10',
        website: 'https://example.com',
        categories: [`Secret ${word}`],
      });
      const stripped = (await list(`search=${word}`)).body.events[0];
      assert.equal(stripped.id, locked.id);
      assert.equal(stripped.title, `${word} locked`);
      assert.deepEqual(
        [
          stripped.description,
          stripped.excerpt,
          stripped.image,
          stripped.all_day,
          stripped.cost,
          stripped.website,
          stripped.show_map,
          stripped.featured,
          stripped.categories,
          stripped.venue,
          stripped.organizer,
        ],
        ['', '', false, null, '', '', null, null, [], [], []],
      );
      assert.deepEqual(stripped.cost_details, { currency_symbol: '', currency_code: '', currency_position: '', values: [] });
      assert.equal(stripped.password, undefined);
      const unlocked = (await list(`search=${word}&password=sesame`)).body.events[0];
      assert.equal(unlocked.description, '<p>secret</p>');
      assert.equal((await list(`search=${word}&password=wrong`)).body.events[0].description, '');
      assert.equal((await list(`search=${word}&context=edit`, admin)).body.events[0].description, '<p>secret</p>');
      assert.equal((await list(`search=${word}`, admin)).body.events[0].description, '');
      assert.doesNotMatch((await list(`search=${word}&password=sesame`)).body.rest_url, /sesame/);
    });
  });

  describe('cost of a page', () => {
    it('costs the same number of queries for 1 and 50 events', async () => {
      const word = token();
      for (let index = 0; index < 12; index += 1) {
        await makeEvent(server, admin, {
          title: word,
          venue: { venue: `V${index} ${word}`, address: `${index}` },
          organizer: [{ organizer: `O${index} ${word}` }],
          categories: [`c${index}${word}`],
        });
      }
      const counting = countingStatements(server.server.store.db);
      const service = new EventsService({
        db: counting.db,
        config: server.config,
        passwords: new PostPasswords(server.server.store.db, server.config),
      });
      const costOf = async (perPage: number, language: 'en' | 'it' = 'en') => {
        counting.reset();
        const page = await service.listEvents(
          { search: word, per_page: perPage, page: 1 },
          contextFor(server, null, { language, db: counting.db }),
        );
        return { queries: counting.count(), page };
      };
      const one = await costOf(1);
      const many = await costOf(50);
      assert.equal(one.page.events.length, 1);
      assert.equal(many.page.events.length, 12);
      assert.ok(
        many.page.events.every((event: any) => event.venue.id > 0 && event.organizer.length === 1 && event.categories.length === 1),
      );
      // Not more for twelve events than for one; fewer when the first page left term counts cached (terms.counts.ts).
      assert.ok(many.queries <= one.queries, `${one.queries} queries for one event, ${many.queries} for twelve`);
      assert.ok(one.queries <= 14, `${one.queries} queries`);
      // Italian costs no extra query: every language of the page's texts comes in the same batch.
      const italian = await costOf(50, 'it');
      assert.equal(italian.page.events.length, 12);
      assert.ok(italian.queries <= one.queries, `${italian.queries} queries in Italian, ${one.queries} in English`);
    });
  });
});
