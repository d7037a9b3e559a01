/**
 * Recurring series written by the demo seed (`almanac seed --demo --series`,
 * which the benchmark's series list uses) are the series the API writes:
 * the same occurrences, listed the same way, and a later edit through the
 * API keeps their rows and ids.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedDemoEvents } from '../../src/calendar/seed/demo-events.ts';
import { convertDemoEventsToSeries, SERIES_OCCURRENCES } from '../../src/calendar/seed/demo-series.ts';
import { seriesLimits } from '../../src/calendar/recurrence/recurrence.series.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS } from './events.factories.ts';

type Item = {
  id: number;
  title: string;
  status: string;
  all_day: boolean;
  timezone: string;
  start_date: string;
  end_date: string;
  utc_start_date: string;
  utc_end_date: string;
  url: string;
  recurrence?: string[];
  recurring_event_id?: number;
  original_start_date?: string;
  original_start_date_utc?: string;
  categories: { id: number }[];
  tags: { id: number }[];
  organizer: { id: number }[];
  venue: { id?: number } | unknown[];
};

/** What places an occurrence in time. */
const when = (item: Item) => ({
  start_date: item.start_date,
  end_date: item.end_date,
  utc_start_date: item.utc_start_date,
  utc_end_date: item.utc_end_date,
  original_start_date: item.original_start_date,
  original_start_date_utc: item.original_start_date_utc,
});

describe('recurring series from the demo seed', () => {
  let server: TestServer;
  let admin: Credentials;
  let seriesIds: number[];
  before(async () => {
    // Events without a venue are in the site's zone: another zone than the (Italian) venues', with other DST dates.
    server = await startTestServer({ SITE_TIMEZONE: 'America/New_York' });
    admin = await server.admin();
    const { store } = server.server;
    await seedDemoEvents(store, { events: 300, siteTimezone: 'America/New_York', seed: 5 });
    const converted = await convertDemoEventsToSeries(store, { series: 30, limits: seriesLimits(server.config), seed: 5 });
    assert.equal(converted.series, 30);
    const rows = await store.db
      .selectFrom('events')
      .select('id')
      .where('recurrence', 'is not', null)
      .where('parent_id', 'is', null)
      .execute();
    seriesIds = rows.map((row) => row.id);
    assert.equal(seriesIds.length, 30);
    const occurrences = await store.db.selectFrom('events').select('id').where('parent_id', 'is not', null).execute();
    assert.equal(occurrences.length, converted.occurrences);
  });
  after(async () => server.close());

  /** Whether the series' occurrences are in lists (the seed hides one event in a hundred from listings). */
  const listed = async (id: number) => {
    const row = await server.server.store.db
      .selectFrom('events')
      .select('hide_from_listings')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return row.hide_from_listings === 0;
  };
  const get = async (id: number) => {
    const response = await server.request(`${EVENTS}/${id}`, { auth: admin });
    assert.equal(response.status, 200, response.text);
    return response.body as Item;
  };
  /** Every item of a list, page after page. */
  const everyPage = async (path: string, auth?: Credentials) => {
    const items: Item[] = [];
    for (let page = 1; ; page += 1) {
      const response = await server.request(`${path}${path.includes('?') ? '&' : '?'}per_page=50&page=${page}`, auth ? { auth } : {});
      assert.equal(response.status, 200, response.text);
      items.push(...(response.body.events as Item[]));
      if (page >= Number(response.headers.get('x-wp-totalpages'))) return items;
    }
  };
  const instances = (id: number) => everyPage(`${EVENTS}/${id}/instances`, admin);

  /** Every row a series' occurrences consist of, but their modification time and SEQUENCE (every write of the series sets them). */
  const storedOccurrences = async (seriesId: number) => {
    const { db } = server.server.store;
    const events = await db.selectFrom('events').selectAll().where('parent_id', '=', seriesId).orderBy('id').execute();
    const ids = events.map((row) => row.id);
    return {
      events: events.map(({ modified: _local, modified_utc: _utc, sequence: _sequence, ...row }) => row),
      ids: await db.selectFrom('event_occurrences').selectAll().where('series_id', '=', seriesId).orderBy('id').execute(),
      texts: await db
        .selectFrom('translations')
        .selectAll()
        .where('resource_type', '=', 'event')
        .where('resource_id', 'in', ids)
        .orderBy('resource_id')
        .orderBy('language')
        .orderBy('field')
        .execute(),
      terms: await db.selectFrom('event_terms').selectAll().where('event_id', 'in', ids).orderBy('event_id').orderBy('term_id').execute(),
      organizers: await db
        .selectFrom('event_organizers')
        .selectAll()
        .where('event_id', 'in', ids)
        .orderBy('event_id')
        .orderBy('position')
        .execute(),
    };
  };

  it('gives each series the occurrences the API gives a series with the same start, end, zone and recurrence', async () => {
    const kinds = new Set<string>();
    for (const id of seriesIds) {
      const series = await get(id);
      const rule = series.recurrence?.[0] ?? '';
      assert.match(rule, /^RRULE:FREQ=WEEKLY;BYDAY=[A-Z,]+;COUNT=\d+$/);
      const seeded = await instances(id);
      const count = Number(/COUNT=(\d+)/.exec(rule)?.[1]);
      assert.ok(count >= SERIES_OCCURRENCES.min && count <= SERIES_OCCURRENCES.max);
      if (series.all_day) kinds.add('all-day');
      if (series.end_date.slice(0, 10) !== series.start_date.slice(0, 10)) kinds.add('several days');
      if (rule.includes(',')) kinds.add('two weekdays');
      kinds.add(series.timezone);

      const twin = await server.request(EVENTS, {
        method: 'POST',
        auth: admin,
        body: {
          title: `Twin of ${id}`,
          start_date: series.start_date,
          end_date: series.end_date,
          all_day: series.all_day,
          timezone: series.timezone,
          status: 'publish',
          recurrence: series.recurrence,
        },
      });
      assert.equal(twin.status, 201, twin.text);
      const written = await instances((twin.body as Item).id);
      assert.equal(written.length, count);
      // Lists (and /instances) leave out events hidden from listings; the rows test below covers those.
      if (await listed(id)) assert.deepEqual(seeded.map(when), written.map(when), `series ${id} (${rule}, ${series.timezone})`);
      else assert.equal(seeded.length, 0);
    }
    // The seed's data covers the cases the rule treats apart.
    for (const kind of ['all-day', 'several days', 'two weekdays', 'Europe/Rome', 'America/New_York']) {
      assert.ok(kinds.has(kind), `a seeded series is ${kind} (${[...kinds].join(', ')})`);
    }
  });

  it('lists the occurrences of a seeded series as events of their own, with the series, its texts and links', async () => {
    for (const id of seriesIds) {
      const series = await get(id);
      const path = `${EVENTS}?post_parent=${id}&start_date=2000-01-01&end_date=2100-01-01`;
      // Anonymous callers see the occurrences of a published series only, as of any series.
      const anonymous = await server.request(path);
      assert.equal(anonymous.status, series.status === 'publish' ? 200 : 400, `series ${id} (${series.status})`);
      const items = await everyPage(path, admin);
      const { events: rows } = await storedOccurrences(id);
      assert.equal(items.length, (await listed(id)) ? rows.length : 0, `series ${id}`);
      for (const item of items) {
        assert.equal(item.recurring_event_id, id);
        assert.deepEqual(item.recurrence, series.recurrence);
        assert.equal(item.title, series.title);
        assert.equal(item.url, `${series.url}${item.start_date.slice(0, 10)}/`);
        assert.deepEqual(item.categories.map((term) => term.id).sort(), series.categories.map((term) => term.id).sort());
        assert.deepEqual(item.tags.map((term) => term.id).sort(), series.tags.map((term) => term.id).sort());
        assert.deepEqual(
          item.organizer.map((organizer) => organizer.id),
          series.organizer.map((organizer) => organizer.id),
        );
        assert.deepEqual(item.venue, series.venue);
      }
    }
    const all = await server.request(`${EVENTS}?start_date=2000-01-01&end_date=2100-01-01&per_page=50`);
    assert.ok(
      (all.body.events as Item[]).every((item) => !seriesIds.includes(item.id)),
      'a series is listed as its occurrences only',
    );
  });

  it('stores what the API stores: an edit of a seeded series rewrites the same rows, and keeps its occurrence ids', async () => {
    for (const id of seriesIds) {
      const seeded = await storedOccurrences(id);
      // An edit of the series makes its occurrences again through SeriesOccurrences.refresh.
      const { title } = await get(id);
      const edited = await server.request(`${EVENTS}/${id}`, { method: 'PATCH', auth: admin, body: { title } });
      assert.equal(edited.status, 200, edited.text);
      assert.deepEqual(await storedOccurrences(id), seeded, `series ${id}`);
    }
    const [id] = seriesIds as [number];
    const before = await instances(id);
    const renamed = await server.request(`${EVENTS}/${id}`, { method: 'PATCH', auth: admin, body: { title: 'Renamed series' } });
    assert.equal(renamed.status, 200, renamed.text);
    const after = await instances(id);
    assert.deepEqual(
      after.map((item) => item.id),
      before.map((item) => item.id),
    );
    assert.ok(after.every((item) => item.title === 'Renamed series'));
    const shorter = await server.request(`${EVENTS}/${id}`, {
      method: 'PATCH',
      auth: admin,
      body: { recurrence: [(before[0]?.recurrence?.[0] ?? '').replace(/COUNT=\d+/, 'COUNT=3')] },
    });
    assert.equal(shorter.status, 200, shorter.text);
    assert.deepEqual(
      (await instances(id)).map((item) => item.id),
      before.slice(0, 3).map((item) => item.id),
    );
  });
});
