/**
 * Recurring events through the API (issue 21): series written with Google
 * Calendar's `recurrence` lines, listed as one item per occurrence with
 * stable ids, read through `/instances`, changed and removed one
 * occurrence at a time, and seen by anonymous callers exactly as the events
 * they are.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SeriesOccurrences } from '../../src/calendar/recurrence/recurrence.series.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS } from './events.factories.ts';

type Item = {
  id: number;
  title: string;
  start_date: string;
  utc_start_date: string;
  end_date: string;
  utc_end_date: string;
  url: string;
  recurrence?: string[];
  recurring_event_id?: number;
  original_start_date?: string;
  original_start_date_utc?: string;
  categories: unknown[];
  description: string;
};

describe('recurring events', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer({ SITE_TIMEZONE: 'Europe/Rome', RECURRENCE_MAX_OCCURRENCES: '200' });
    admin = await server.admin();
  });
  after(async () => server.close());

  const createSeries = async (recurrence: unknown, fields: Record<string, unknown> = {}) => {
    const response = await server.request(EVENTS, {
      method: 'POST',
      auth: admin,
      body: { title: 'Yoga', start_date: '2031-03-03 18:00', end_date: '2031-03-03 19:30', recurrence, ...fields },
    });
    assert.equal(response.status, 201, response.text);
    return response.body as Item;
  };
  const list = async (query: string, auth?: Credentials) => {
    const response = await server.request(`${EVENTS}?per_page=50&${query}`, auth ? { auth } : {});
    assert.equal(response.status, 200, response.text);
    return response.body.events as Item[];
  };
  const occurrencesOf = async (series: Item, query = '', auth?: Credentials) =>
    (await list(`post_parent=${series.id}&start_date=2000-01-01&end_date=2100-01-01&${query}`, auth)).filter(
      (item) => item.recurring_event_id === series.id,
    );
  const patch = (id: number, body: Record<string, unknown>) => server.request(`${EVENTS}/${id}`, { method: 'PATCH', auth: admin, body });

  it('lists a series as one item per occurrence, each an event of its own with its series and original start', async () => {
    const series = await createSeries(['RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=5'], { categories: ['Wellness'], timezone: 'Europe/Rome' });
    assert.deepEqual(series.recurrence, ['RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=5']);
    assert.equal(series.recurring_event_id, undefined, 'a series is no occurrence');
    const items = await occurrencesOf(series);
    assert.deepEqual(
      items.map((item) => item.start_date),
      ['2031-03-03 18:00:00', '2031-03-05 18:00:00', '2031-03-10 18:00:00', '2031-03-12 18:00:00', '2031-03-17 18:00:00'],
    );
    assert.equal(new Set(items.map((item) => item.id)).size, 5);
    assert.ok(
      items.every((item) => item.id !== series.id),
      'the series itself is not listed',
    );
    for (const item of items) {
      assert.equal(item.title, 'Yoga');
      assert.equal(item.original_start_date, item.start_date);
      assert.equal(item.original_start_date_utc, item.utc_start_date);
      assert.deepEqual(item.recurrence, series.recurrence);
      assert.equal(item.end_date.slice(11), '19:30:00', 'each lasts as the series does');
      assert.equal(item.categories.length, 1, 'occurrences carry the series categories');
      assert.equal(item.url, `${series.url}${item.start_date.slice(0, 10)}/`);
    }
    // The list filters apply to occurrences: a date window picks some of them.
    const window = await list('start_date=2031-03-05&end_date=2031-03-11');
    assert.deepEqual(
      window.filter((item) => item.recurring_event_id === series.id).map((item) => item.start_date),
      ['2031-03-05 18:00:00', '2031-03-10 18:00:00'],
    );
    const single = await server.request(`${EVENTS}/${items[1]?.id}`);
    assert.equal(single.status, 200);
    assert.equal(single.body.recurring_event_id, series.id);
  });

  it('keeps each occurrence id across edits of the series, and gives it back when an edit brings the occurrence back', async () => {
    const series = await createSeries(['RRULE:FREQ=DAILY;COUNT=4']);
    const before = await occurrencesOf(series);
    assert.equal((await patch(series.id, { title: 'Yoga (new room)' })).status, 200);
    const renamed = await occurrencesOf(series);
    assert.deepEqual(
      renamed.map((item) => item.id),
      before.map((item) => item.id),
    );
    assert.ok(renamed.every((item) => item.title === 'Yoga (new room)'));
    assert.equal((await patch(series.id, { recurrence: ['RRULE:FREQ=DAILY;COUNT=2'] })).status, 200);
    assert.deepEqual(
      (await occurrencesOf(series)).map((item) => item.id),
      before.slice(0, 2).map((item) => item.id),
    );
    assert.equal((await server.request(`${EVENTS}/${before[3]?.id}`)).status, 404, 'an occurrence the rule no longer gives is gone');
    assert.equal((await patch(series.id, { recurrence: ['RRULE:FREQ=DAILY;COUNT=4'] })).status, 200);
    assert.deepEqual(
      (await occurrencesOf(series)).map((item) => item.id),
      before.map((item) => item.id),
    );
  });

  it('keeps the wall-clock time in the event zone across DST, and moves a time that does not exist forward by the gap', async () => {
    const series = await createSeries(['RRULE:FREQ=DAILY;COUNT=4'], {
      start_date: '2031-03-08 02:30',
      end_date: '2031-03-08 03:00',
      timezone: 'America/New_York',
    });
    const items = await occurrencesOf(series);
    assert.deepEqual(
      items.map((item) => [item.start_date, item.utc_start_date]),
      [
        ['2031-03-08 02:30:00', '2031-03-08 07:30:00'],
        // 2031-03-09 02:30 does not exist in New York: RFC 5545 reads it with the offset before the gap.
        ['2031-03-09 03:30:00', '2031-03-09 07:30:00'],
        ['2031-03-10 02:30:00', '2031-03-10 06:30:00'],
        ['2031-03-11 02:30:00', '2031-03-11 06:30:00'],
      ],
    );
    assert.equal(items[1]?.original_start_date_utc, '2031-03-09 07:30:00');
  });

  it('refuses a recurrence it cannot honour with a 400 naming recurrence, and writes nothing', async () => {
    const bad: [unknown, RegExp][] = [
      [['RRULE:FREQ=DAILY;FOO=1'], /FOO/],
      [['RRULE:FREQ=SOMETIMES'], /FREQ/],
      [['RRULE:FREQ=DAILY;COUNT=0'], /COUNT/],
      [['RRULE:FREQ=DAILY;COUNT=2;UNTIL=20310401T000000Z'], /COUNT and UNTIL/],
      [['RRULE:FREQ=WEEKLY;BYDAY=XX'], /BYDAY/],
      [['RRULE:FREQ=MONTHLY;BYMONTHDAY=0'], /BYMONTHDAY/],
      [['RRULE:FREQ=MINUTELY'], /hourly/],
      [['RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30'], /no occurrence/],
      [['RRULE:FREQ=DAILY;COUNT=500'], /More than 200/],
      [['RRULE:FREQ=DAILY'], /More than 200/],
      [['DTSTART:20310303T180000Z', 'RRULE:FREQ=DAILY'], /no RRULE, EXDATE or RDATE line/],
      [['RRULE:FREQ=DAILY;COUNT=2', 'RRULE:FREQ=WEEKLY;COUNT=2'], /one RRULE/],
      [['RRULE:FREQ=DAILY;COUNT=1', 'EXDATE:20310303T170000Z'], /excluded/],
      [['EXDATE;TZID=Mars/Olympus:20310303T180000'], /time zone/],
      [['RRULE:FREQ=DAILY;COUNT=2;BYSETPOS=1'], /BYSETPOS/],
      ['RRULE:FREQ=DAILY;UNTIL=garbage', /UNTIL/],
      [[42], /no RRULE/],
    ];
    const total = async () =>
      (await server.request(`${EVENTS}?status=any&start_date=2000-01-01&end_date=2100-01-01`, { auth: admin })).body.total;
    const before = await total();
    for (const [recurrence, reason] of bad) {
      const response = await server.request(EVENTS, {
        method: 'POST',
        auth: admin,
        body: { title: 'Bad', start_date: '2031-03-03 18:00', end_date: '2031-03-03 19:00', recurrence },
      });
      assert.equal(response.status, 400, `${JSON.stringify(recurrence)}: ${response.text}`);
      assert.equal(response.body.code, 'rest_invalid_param');
      assert.deepEqual(Object.keys(response.body.data.params), ['recurrence'], JSON.stringify(recurrence));
      assert.match(String(response.body.data.params.recurrence), reason, JSON.stringify(recurrence));
    }
    assert.equal(await total(), before, 'nothing was written');
  });

  it('turns a series back into a single event with recurrence [] (or "" from a form), its occurrences gone', async () => {
    const series = await createSeries(['RRULE:FREQ=DAILY;COUNT=3']);
    const occurrences = await occurrencesOf(series);
    const single = await patch(series.id, { recurrence: [] });
    assert.equal(single.status, 200);
    assert.equal(single.body.recurrence, undefined);
    for (const item of occurrences) assert.equal((await server.request(`${EVENTS}/${item.id}`)).status, 404);
    const listed = await list('start_date=2031-03-03&end_date=2031-03-03');
    assert.ok(
      listed.some((item) => item.id === series.id),
      'the single event is listed again',
    );

    const again = await server.request(`${EVENTS}/${series.id}`, {
      method: 'POST',
      auth: admin,
      form: { 'recurrence[]': 'RRULE:FREQ=DAILY;COUNT=2' },
    });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body.recurrence, ['RRULE:FREQ=DAILY;COUNT=2']);
    const cleared = await server.request(`${EVENTS}/${series.id}`, { method: 'POST', auth: admin, form: { recurrence: '' } });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.body.recurrence, undefined);
  });

  it('changes one occurrence through its id: it keeps its id and original start, and survives edits of its series', async () => {
    const series = await createSeries(['RRULE:FREQ=DAILY;COUNT=3']);
    const [first, second, third] = await occurrencesOf(series);
    assert.ok(first && second && third);
    const moved = await patch(second.id, { title: 'Yoga outdoors', start_date: '2031-03-04 20:00', end_date: '2031-03-04 21:00' });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.id, second.id);
    assert.equal(moved.body.start_date, '2031-03-04 20:00:00');
    assert.equal(moved.body.original_start_date, '2031-03-04 18:00:00');
    assert.equal(moved.body.recurring_event_id, series.id);
    assert.equal((await server.request(`${EVENTS}/${first.id}`)).body.title, 'Yoga', 'the others are unchanged');

    assert.equal((await patch(series.id, { description: 'Bring a mat' })).status, 200);
    const after = await occurrencesOf(series);
    assert.deepEqual(
      after.map((item) => [item.id, item.title, item.start_date]),
      [
        [first.id, 'Yoga', '2031-03-03 18:00:00'],
        [second.id, 'Yoga outdoors', '2031-03-04 20:00:00'],
        [third.id, 'Yoga', '2031-03-05 18:00:00'],
      ],
    );
    assert.match(after[0]?.description ?? '', /Bring a mat/);
    assert.doesNotMatch(after[1]?.description ?? '', /Bring a mat/, 'an exception keeps its own content');
  });

  it("shows each occurrence its series' texts and rule in every language, as the series says them now", async () => {
    const series = await createSeries(['RRULE:FREQ=DAILY;COUNT=3'], { title: 'Pilates', description: 'On the lawn' });
    const italian = `${EVENTS}/${series.id}?translation_language=it`;
    assert.equal((await server.request(italian, { method: 'PATCH', auth: admin, body: { title: 'Pilates al parco' } })).status, 200);
    const [first, second] = await occurrencesOf(series);
    assert.ok(first && second);
    assert.equal((await patch(second.id, { title: 'Pilates indoors' })).status, 200);

    assert.equal(
      (await patch(series.id, { title: 'Mat pilates', slug: 'mat-pilates', recurrence: ['RRULE:FREQ=DAILY;COUNT=4'] })).status,
      200,
    );
    const now = await occurrencesOf(series);
    assert.deepEqual(
      now.map((item) => [item.title, item.url.split('/').slice(-3, -1).join('/'), item.recurrence]),
      [
        ['Mat pilates', 'mat-pilates/2031-03-03', ['RRULE:FREQ=DAILY;COUNT=4']],
        ['Pilates indoors', 'mat-pilates/2031-03-04', ['RRULE:FREQ=DAILY;COUNT=4']],
        ['Mat pilates', 'mat-pilates/2031-03-05', ['RRULE:FREQ=DAILY;COUNT=4']],
        ['Mat pilates', 'mat-pilates/2031-03-06', ['RRULE:FREQ=DAILY;COUNT=4']],
      ],
      "generated occurrences show the series' new title, every occurrence its slug and rule; the exception its own title",
    );
    assert.equal((await server.request(italian, { method: 'PATCH', auth: admin, body: { title: 'Pilates sul prato' } })).status, 200);
    const inItalian = await occurrencesOf(series, 'translation_language=it');
    assert.deepEqual(
      inItalian.map((item) => item.title),
      ['Pilates sul prato', 'Pilates al parco', 'Pilates sul prato', 'Pilates sul prato'],
      'an exception keeps the texts its series had when it was changed; the others follow the series',
    );
    assert.deepEqual(
      (await list(`search=${encodeURIComponent('mat pilates')}&start_date=2031-03-01&end_date=2031-03-31`)).map((item) => item.id),
      [now[0]?.id, now[2]?.id, now[3]?.id],
      "search finds generated occurrences by their series' title, the exception by its own",
    );
    assert.deepEqual(
      (await list('search=lawn&start_date=2031-03-01&end_date=2031-03-31')).map((item) => item.id),
      now.map((item) => item.id),
      'and by its description, which the exception kept',
    );
  });

  it('refuses through an occurrence what belongs to its series (status, password, author, dates, recurrence)', async () => {
    const series = await createSeries(['RRULE:FREQ=DAILY;COUNT=2']);
    const [first] = await occurrencesOf(series);
    for (const [field, value] of [
      ['status', 'draft'],
      ['password', 'secret'],
      ['recurrence', ['RRULE:FREQ=DAILY;COUNT=5']],
      ['date', '2030-01-01'],
    ] as const) {
      const response = await patch(first?.id as number, { [field]: value });
      assert.equal(response.status, 400, field);
      assert.deepEqual(Object.keys(response.body.data.params), [field]);
    }
    assert.equal((await server.request(`${EVENTS}/${first?.id}`)).body.status, 'publish');
  });

  it('cuts a series at an occurrence with scope=following: the series keeps what comes before, a new series the rest', async () => {
    const series = await createSeries(['RRULE:FREQ=DAILY;COUNT=6', 'EXDATE:20310304T170000Z,20310307T170000Z'], {
      title: 'Pilates',
      categories: ['Wellness'],
      timezone: 'Europe/Rome',
    });
    const before = await occurrencesOf(series);
    assert.deepEqual(
      before.map((item) => item.start_date.slice(0, 10)),
      ['2031-03-03', '2031-03-05', '2031-03-06', '2031-03-08'],
    );
    const cut = before[2];
    const changed = await patch(cut?.id as number, {
      scope: 'following',
      title: 'Pilates (evening)',
      start_date: '2031-03-06 20:00',
      end_date: '2031-03-06 21:30',
    });
    assert.equal(changed.status, 200, changed.text);
    const next = changed.body as Item;
    assert.notEqual(next.id, series.id);
    assert.equal(next.recurring_event_id, undefined, 'the answer is the new series');
    // The exclusion after the cut moved with the new series' time: it still removes the 7th.
    assert.deepEqual(next.recurrence, ['RRULE:FREQ=DAILY;COUNT=3', 'EXDATE:20310307T190000Z']);
    assert.equal(next.start_date, '2031-03-06 20:00:00');
    assert.match(next.url, /\/event\/pilates-2\/$/);

    const old = await server.request(`${EVENTS}/${series.id}`);
    assert.deepEqual(old.body.recurrence, ['RRULE:FREQ=DAILY;UNTIL=20310306T165959Z', 'EXDATE:20310304T170000Z']);
    assert.deepEqual(
      (await occurrencesOf(series)).map((item) => item.id),
      before.slice(0, 2).map((item) => item.id),
      'the occurrences before the cut keep their ids',
    );
    const continued = await occurrencesOf(next);
    assert.deepEqual(
      continued.map((item) => [item.start_date, item.title, item.categories.length]),
      [
        ['2031-03-06 20:00:00', 'Pilates (evening)', 1],
        ['2031-03-08 20:00:00', 'Pilates (evening)', 1],
      ],
    );

    const atFirst = await patch(before[0]?.id as number, { scope: 'following', title: 'Pilates (all)' });
    assert.equal(atFirst.status, 200, atFirst.text);
    assert.equal(atFirst.body.id, series.id, 'cut at the first occurrence: the whole series changes');
    const onSeries = await patch(series.id, { scope: 'following', title: 'No' });
    assert.equal(onSeries.status, 400);
    assert.deepEqual(Object.keys(onSeries.body.data.params), ['scope']);
  });

  it('keeps the ids and the exceptions after a cut that does not move the series: they go with the new series', async () => {
    const series = await createSeries(['RRULE:FREQ=DAILY;COUNT=6'], { title: 'Yoga', timezone: 'Europe/Rome' });
    const before = await occurrencesOf(series);
    // An exception at the cut and one after it.
    assert.equal((await patch(before[2]?.id as number, { title: 'Yoga at the cut' })).status, 200);
    assert.equal((await patch(before[4]?.id as number, { title: 'Yoga (guest teacher)' })).status, 200);

    const split = await patch(before[2]?.id as number, { scope: 'following', title: 'Yoga (new room)' });
    assert.equal(split.status, 200, split.text);
    const next = split.body as Item;
    assert.notEqual(next.id, series.id);
    assert.deepEqual(
      (await occurrencesOf(series)).map((item) => item.id),
      before.slice(0, 2).map((item) => item.id),
    );
    const continued = await occurrencesOf(next);
    assert.deepEqual(
      continued.map((item) => [item.id, item.title, item.recurring_event_id]),
      [
        [before[2]?.id, 'Yoga (new room)', next.id],
        [before[3]?.id, 'Yoga (new room)', next.id],
        [before[4]?.id, 'Yoga (guest teacher)', next.id],
        [before[5]?.id, 'Yoga (new room)', next.id],
      ],
      'the same ids, the exception after the cut kept, the one at the cut given the write',
    );
    const exception = await server.request(`${EVENTS}/${before[4]?.id}`);
    assert.equal(exception.body.recurring_event_id, next.id);
  });

  it('removes a deleted occurrence from its series as an EXDATE, visible in recurrence', async () => {
    const series = await createSeries(['RRULE:FREQ=DAILY;COUNT=3'], { timezone: 'Europe/Rome' });
    const [, second] = await occurrencesOf(series);
    const deleted = await server.request(`${EVENTS}/${second?.id}`, { method: 'DELETE', auth: admin });
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.body.id, second?.id);
    const read = await server.request(`${EVENTS}/${series.id}`);
    assert.deepEqual(read.body.recurrence, ['RRULE:FREQ=DAILY;COUNT=3', 'EXDATE:20310304T170000Z']);
    assert.deepEqual(
      (await occurrencesOf(series)).map((item) => item.start_date),
      ['2031-03-03 18:00:00', '2031-03-05 18:00:00'],
    );
    assert.equal((await server.request(`${EVENTS}/${second?.id}`)).status, 404);

    const moved = await patch(series.id, { start_date: '2031-03-03 19:00', end_date: '2031-03-03 20:30' });
    assert.equal(moved.status, 200, moved.text);
    assert.deepEqual(moved.body.recurrence, ['RRULE:FREQ=DAILY;COUNT=3', 'EXDATE:20310304T180000Z'], 'the exclusion moves with the series');
    assert.deepEqual(
      (await occurrencesOf(series)).map((item) => item.start_date),
      ['2031-03-03 19:00:00', '2031-03-05 19:00:00'],
    );
  });

  it('serves /events/{id}/instances: every occurrence, in pages, within a window when asked', async () => {
    const series = await createSeries(['RRULE:FREQ=WEEKLY;COUNT=6']);
    const first = await server.request(`${EVENTS}/${series.id}/instances?per_page=4`);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.total, 6);
    assert.equal(first.body.total_pages, 2);
    assert.equal(first.headers.get('x-wp-total'), '6');
    assert.equal(first.body.events.length, 4);
    assert.match(first.body.next_rest_url, new RegExp(`/events/${series.id}/instances\\?`));
    const window = await server.request(`${EVENTS}/${series.id}/instances?start_date=2031-03-10&end_date=2031-03-24`);
    assert.deepEqual(
      window.body.events.map((item: Item) => item.start_date.slice(0, 10)),
      ['2031-03-10', '2031-03-17', '2031-03-24'],
    );
    const notSeries = await server.request(EVENTS, {
      method: 'POST',
      auth: admin,
      body: { title: 'Once', start_date: '2031-03-03 18:00', end_date: '2031-03-03 19:00' },
    });
    const refused = await server.request(`${EVENTS}/${notSeries.body.id}/instances`);
    assert.equal(refused.status, 400);
    assert.equal((await server.request(`${EVENTS}/999999/instances`)).status, 404);
  });

  it('shows anonymous callers the occurrences of a published series only, and protects them as the series is', async () => {
    const draft = await createSeries(['RRULE:FREQ=DAILY;COUNT=2'], { status: 'draft', title: 'Draft series' });
    const [draftOccurrence] = await occurrencesOf(draft, 'status=any', admin);
    assert.ok(draftOccurrence, 'its author sees it');
    const anonymousWindow = await list('start_date=2031-03-03&end_date=2031-03-04');
    assert.ok(!anonymousWindow.some((item) => item.recurring_event_id === draft.id), 'anonymous lists show no draft occurrence');
    assert.equal((await server.request(`${EVENTS}?post_parent=${draft.id}`)).status, 400, 'a draft parent is unknown to anonymous callers');
    assert.equal((await server.request(`${EVENTS}/${draftOccurrence.id}`)).status, 403);
    assert.equal((await server.request(`${EVENTS}/${draft.id}/instances`)).status, 403);

    const locked = await createSeries(['RRULE:FREQ=DAILY;COUNT=2'], { password: 'open sesame', description: 'The secret room' });
    const shown = await occurrencesOf(locked);
    assert.equal(shown.length, 2);
    assert.ok(
      shown.every((item) => item.description === ''),
      'protected content is stripped',
    );
    assert.equal((await server.request(`${EVENTS}/${shown[0]?.id}`)).status, 403);
    const unlocked = await server.request(`${EVENTS}/${shown[0]?.id}?password=open%20sesame`);
    assert.equal(unlocked.status, 200);
    assert.match(unlocked.body.description, /secret room/);
    const search = await list('search=secret');
    assert.ok(!search.some((item) => item.recurring_event_id === locked.id), 'a search does not reveal protected text');

    const published = await createSeries(['RRULE:FREQ=DAILY;COUNT=2'], { title: 'Soon trashed' });
    const publishedOccurrences = await occurrencesOf(published);
    assert.equal((await server.request(`${EVENTS}/${published.id}`, { method: 'DELETE', auth: admin })).status, 200);
    const trashedWindow = await list('start_date=2031-03-03&end_date=2031-03-04');
    assert.ok(!trashedWindow.some((item) => item.recurring_event_id === published.id), 'a trashed series lists no occurrence');
    const forced = await server.request(`${EVENTS}/${published.id}?force=true`, { method: 'DELETE', auth: admin });
    assert.equal(forced.status, 200);
    for (const item of publishedOccurrences) {
      assert.equal((await server.request(`${EVENTS}/${item.id}`, { auth: admin })).status, 404, 'deleted with its series');
    }
  });

  it('repeats an all-day series by days, and removes a day with EXDATE;VALUE=DATE', async () => {
    const series = await createSeries(['RRULE:FREQ=MONTHLY;BYMONTHDAY=31;COUNT=3', 'EXDATE;VALUE=DATE:20310531'], {
      all_day: true,
      start_date: '2031-03-31',
      end_date: '2031-03-31',
    });
    const items = await occurrencesOf(series);
    assert.deepEqual(
      items.map((item) => [item.start_date, item.end_date]),
      [
        ['2031-03-31 00:00:00', '2031-03-31 23:59:59'],
        ['2031-07-31 00:00:00', '2031-07-31 23:59:59'],
      ],
    );
  });

  it('lets only who may edit the series write it, and anonymous callers not at all', async () => {
    const series = await createSeries(['RRULE:FREQ=DAILY;COUNT=2']);
    const [first] = await occurrencesOf(series);
    const anonymous = await server.request(`${EVENTS}/${first?.id}`, { method: 'PATCH', body: { title: 'Hacked' } });
    assert.equal(anonymous.status, 401);
    const contributor = await server.createUser('contributor');
    const other = await server.request(`${EVENTS}/${first?.id}`, { method: 'DELETE', auth: contributor });
    assert.equal(other.status, 403);
    assert.deepEqual((await server.request(`${EVENTS}/${series.id}`)).body.recurrence, ['RRULE:FREQ=DAILY;COUNT=2']);
  });
});

describe('endless recurring series over time', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer({ SITE_TIMEZONE: 'UTC', RECURRENCE_HORIZON_DAYS: '60' });
    admin = await server.admin();
  });
  after(async () => server.close());

  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const instances = async (id: number) => {
    const response = await server.request(`${EVENTS}/${id}/instances?per_page=50`);
    assert.equal(response.status, 200, response.text);
    const pages = Number(response.body.total_pages);
    const items = [...(response.body.events as Item[])];
    for (let page = 2; page <= pages; page += 1)
      items.push(...(await server.request(`${EVENTS}/${id}/instances?per_page=50&page=${page}`)).body.events);
    return items;
  };

  it('stores a rule without an end up to the horizon, and later occurrences as time moves it, keeping the ids it gave', async () => {
    const created = await server.request(EVENTS, {
      method: 'POST',
      auth: admin,
      body: { title: 'Daily stand-up', start_date: `${day(0)} 09:00`, end_date: `${day(0)} 09:15`, recurrence: ['RRULE:FREQ=DAILY'] },
    });
    assert.equal(created.status, 201, created.text);
    const first = await instances(created.body.id);
    assert.equal(first[0]?.start_date, `${day(0)} 09:00:00`);
    assert.equal(first.at(-1)?.start_date, `${day(60)} 09:00:00`, 'stored up to the horizon');

    const series = new SeriesOccurrences({ maxOccurrences: 1000, horizonDays: 60 });
    // Early in the day, before the occurrence's hour: the window is whole days.
    const later = new Date(`${day(45)}T00:30:00Z`);
    assert.equal(await series.extendDue(server.server.store.db, later), 1);
    assert.equal(await series.extendDue(server.server.store.db, later), 0, 'extended once');
    const extended = await instances(created.body.id);
    assert.equal(extended.at(-1)?.start_date, `${day(105)} 09:00:00`);
    assert.deepEqual(
      extended.slice(0, first.length).map((item) => item.id),
      first.map((item) => item.id),
      'the occurrences it had keep their ids',
    );
  });
});
