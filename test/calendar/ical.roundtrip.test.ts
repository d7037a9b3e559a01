/**
 * Export → import (issue 22): a feed of one calendar imported into an
 * empty one reproduces its events — times, zones, all-day days, texts,
 * venue, organizer, categories, series with their exclusions and
 * exceptions — and keeps their UIDs, so that importing it again changes
 * nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS } from './events.factories.ts';

type Json = Record<string, any>;
const WINDOW = 'start_date=2031-01-01&end_date=2031-12-31';

/** What an event is to a person reading the calendar, in a comparable shape. */
function seen(event: Json) {
  return {
    title: event.title,
    start: event.start_date,
    end: event.end_date,
    // A day has no zone in iCalendar (VALUE=DATE): an all-day event comes back in the feed's X-WR-TIMEZONE, on the same days.
    utcStart: event.all_day === true ? null : event.utc_start_date,
    timezone: event.all_day === true ? null : event.timezone,
    allDay: event.all_day,
    description: String(event.description)
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
    // LOCATION is text: the address comes back whole, not in its fields.
    venue: Array.isArray(event.venue)
      ? null
      : [
          event.venue.venue,
          ['address', 'city', 'stateprovince', 'zip', 'country']
            .map((field) => event.venue[field])
            .filter((part) => typeof part === 'string' && part !== '')
            .join(', '),
        ],
    organizers: (event.organizer as Json[]).map((organizer) => organizer.organizer),
    categories: (event.categories as Json[]).map((category) => category.name).sort(),
    recurring: event.recurring_event_id !== undefined,
  };
}

describe('iCalendar round trip', () => {
  let source: TestServer;
  let target: TestServer;
  let sourceAdmin: Credentials;
  let targetAdmin: Credentials;
  before(async () => {
    [source, target] = await Promise.all([startTestServer(), startTestServer()]);
    [sourceAdmin, targetAdmin] = await Promise.all([source.admin(), target.admin()]);
  });
  after(async () => Promise.all([source.close(), target.close()]));

  const listed = async (server: TestServer) => {
    const response = await server.request(`${EVENTS}?${WINDOW}&per_page=50`);
    assert.equal(response.status, 200, response.text);
    return (response.body.events as Json[]).map(seen).sort((a, b) => `${a.start}${a.title}`.localeCompare(`${b.start}${b.title}`));
  };
  const create = async (body: Json) => {
    const response = await source.request(EVENTS, { method: 'POST', auth: sourceAdmin, body: { status: 'publish', ...body } });
    assert.equal(response.status, 201, response.text);
    return response.body as Json;
  };
  const feedOf = async (server: TestServer) => {
    const response = await server.request(`${EVENTS}.ics?${WINDOW}`);
    assert.equal(response.status, 200, response.text);
    return response.text;
  };
  const importInto = async (text: string) => {
    const response = await target.request(`${EVENTS}.ics`, {
      method: 'POST',
      auth: targetAdmin,
      headers: { 'content-type': 'text/calendar' },
      body: text,
    });
    assert.equal(response.status, 200, response.text);
    return response.body as Json;
  };

  it('reproduces the events of a feed in an empty calendar, and changes nothing when imported again', async () => {
    await create({
      title: 'Concert — Sinfonia n° 9',
      start_date: '2031-03-10 20:00',
      end_date: '2031-03-10 22:00',
      timezone: 'Europe/Rome',
      description: '<p>Jazz &amp; blues, then Beethoven.</p>',
      venue: { venue: 'Teatro Verdi', address: 'Via Roma 1', city: 'Milano', country: 'Italy' },
      organizer: [{ organizer: 'Ada Lovelace', email: 'ada@example.org' }],
      categories: ['Music'],
    });
    await create({ title: 'Fair', start_date: '2031-04-01', end_date: '2031-04-02', all_day: true, timezone: 'America/New_York' });
    await create({ title: 'Talk', start_date: '2031-05-05 09:30', end_date: '2031-05-05 10:15', timezone: 'Asia/Kolkata' });
    const series = await create({
      title: 'Yoga',
      start_date: '2031-03-24 18:00',
      end_date: '2031-03-24 19:00',
      timezone: 'Europe/Rome',
      categories: ['Wellness'],
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'],
    });
    const instances = (await source.request(`${EVENTS}/${series.id}/instances`)).body.events as Json[];
    const removed = await source.request(`${EVENTS}/${instances[1]?.id}`, { method: 'DELETE', auth: sourceAdmin });
    assert.equal(removed.status, 200, removed.text);
    const changed = await source.request(`${EVENTS}/${instances[2]?.id}`, {
      method: 'PATCH',
      auth: sourceAdmin,
      body: { title: 'Yoga (guest teacher)', start_date: '2031-04-07 19:00', end_date: '2031-04-07 20:00' },
    });
    assert.equal(changed.status, 200, changed.text);

    const feed = await feedOf(source);
    const report = await importInto(feed);
    assert.deepEqual({ ...report, errors: report.errors }, { ...report, errors: [] }, JSON.stringify(report.errors));
    const expected = await listed(source);
    assert.equal(expected.length, 7, 'three events and four occurrences');
    assert.deepEqual(await listed(target), expected);

    const again = await importInto(feed);
    assert.equal(again.created, 0);
    assert.equal(again.updated, 0);
    assert.deepEqual(await listed(target), expected);

    const uids = (text: string) => [...text.matchAll(/^UID:(.+)\r$/gm)].map((match) => match[1]).sort();
    assert.deepEqual(uids(await feedOf(target)), uids(feed), 'the events keep their UIDs');
  });
});
