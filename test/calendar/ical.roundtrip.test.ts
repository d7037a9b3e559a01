/**
 * Export → import: a feed of one calendar imported into an empty one
 * reproduces its events — times, zones, all-day days and their zone, texts,
 * website, venue, organizer, categories, series with their exclusions and
 * exceptions — and keeps their UIDs, so that importing it again changes
 * nothing, and exporting it again gives the same file but for the store's
 * own times (DTSTAMP, LAST-MODIFIED).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import ICAL from 'ical.js';
import { requireProgram } from '../helpers/programs.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS } from './events.factories.ts';

type Json = Record<string, any>;
const WINDOW = 'start_date=2031-01-01&end_date=2031-12-31';
const PYTHON = '/usr/bin/python3';
requireProgram(PYTHON, ['-c', 'import icalendar'], "Debian's python3-icalendar is not installed (apt-get install python3-icalendar)");

/** The file as python3-icalendar reads and writes it back (in its own order of properties, with its own folds). */
function relayedByPython(text: string): string {
  const script = 'import sys, icalendar; sys.stdout.buffer.write(icalendar.Calendar.from_ical(sys.stdin.buffer.read()).to_ical())';
  const run = spawnSync(PYTHON, ['-c', script], { input: Buffer.from(text, 'utf8') });
  assert.equal(run.status, 0, run.stderr.toString());
  return run.stdout.toString('utf8');
}

/** The file as ical.js reads and writes it back. */
const relayedByIcalJs = (text: string) => ICAL.Component.fromString(text).toString();

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
  let fresh: TestServer;
  let sourceAdmin: Credentials;
  let targetAdmin: Credentials;
  let freshAdmin: Credentials;
  before(async () => {
    [source, target, fresh] = await Promise.all([startTestServer(), startTestServer(), startTestServer()]);
    [sourceAdmin, targetAdmin, freshAdmin] = await Promise.all([source.admin(), target.admin(), fresh.admin()]);
  });
  after(async () => Promise.all([source.close(), target.close(), fresh.close()]));

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
  const feedOf = async (server: TestServer, window = WINDOW) => {
    const response = await server.request(`${EVENTS}.ics?${window}`);
    assert.equal(response.status, 200, response.text);
    return response.text;
  };
  const importTo = async (server: TestServer, auth: Credentials, text: string) => {
    const response = await server.request(`${EVENTS}.ics`, {
      method: 'POST',
      auth,
      headers: { 'content-type': 'text/calendar' },
      body: text,
    });
    assert.equal(response.status, 200, response.text);
    return response.body as Json;
  };
  const importInto = (text: string) => importTo(target, targetAdmin, text);

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

  describe('a varied calendar', () => {
    const YEAR = 'start_date=2032-01-01&end_date=2032-12-31';
    /** Everything the API shows of the events of the year, but the store's own ids, times and links. */
    const everything = async (server: TestServer, auth: Credentials) => {
      const response = await server.request(`${EVENTS}?${YEAR}&per_page=50&status=any`, { auth });
      assert.equal(response.status, 200, response.text);
      return (response.body.events as Json[])
        .map((event) => ({
          ...seen(event),
          utcStart: event.utc_start_date,
          utcEnd: event.utc_end_date,
          timezone: event.timezone,
          // Without a website of its own an event shows its page, which is each calendar's own.
          website: event.website === event.url ? '(its page)' : event.website,
          status: event.status,
          date: event.date_utc,
          organizers: (event.organizer as Json[]).map((organizer) => [organizer.organizer, organizer.email]),
          geo: Array.isArray(event.venue) ? null : [event.venue.geo_lat, event.venue.geo_lng],
        }))
        .sort((a, b) => `${a.utcStart}${a.title}`.localeCompare(`${b.utcStart}${b.title}`));
    };
    /** What the store changes by itself: ids, and when it last changed an event. */
    const stored = async (server: TestServer, auth: Credentials) => {
      const response = await server.request(`${EVENTS}?${YEAR}&per_page=50&status=any`, { auth });
      return (response.body.events as Json[]).map((event) => `${event.id} ${event.modified_utc} ${event.title}`);
    };
    /** DTSTAMP and LAST-MODIFIED are when the store last changed the event: an import is such a change. */
    const withoutStoreTimes = (text: string) => text.replace(/\r\n(DTSTAMP|LAST-MODIFIED):\d{8}T\d{6}Z(?=\r\n)/g, '\r\n$1:…');
    const ORGANIZER = 'Ltd.; "Q" ^ Co: A,B';
    const WEBSITE = 'https://example.org/concerts?season=2032&lang=it#programme';
    let exported = '';

    before(async () => {
      const make = (body: Json) => create(body);
      await make({
        title: 'Concerto — Sinfonia n° 9 «Corale» 🎻',
        start_date: '2032-03-10 20:00',
        end_date: '2032-03-10 22:30',
        timezone: 'Europe/Rome',
        description: `<p>Jazz &amp; blues; then Beethoven, “the ninth”.</p><p>${'Una riga molto lunga, con virgole, punti e virgola; e accenti: àèìòù. '.repeat(4)}</p>`,
        website: WEBSITE,
        venue: {
          venue: 'Teatro Verdi',
          address: 'Via Roma 1',
          city: 'Milano',
          stateprovince: 'MI',
          zip: '20121',
          country: 'Italy',
          geo_lat: 45.4642,
          geo_lng: 9.19,
        },
        organizer: [{ organizer: ORGANIZER, email: 'box@ltd.example' }],
        categories: ['Music', 'Jazz & Blues'],
      });
      await make({ title: 'Fair', start_date: '2032-04-01', end_date: '2032-04-01', all_day: true, timezone: 'America/New_York' });
      await make({
        title: 'Festival',
        start_date: '2032-04-09',
        end_date: '2032-04-11',
        all_day: true,
        timezone: 'Pacific/Auckland',
        categories: ['Music'],
      });
      await make({ title: 'Night train', start_date: '2032-05-05 22:30', end_date: '2032-05-06 07:15', timezone: 'America/Los_Angeles' });
      await make({ title: 'Standup', start_date: '2032-05-07 09:30', end_date: '2032-05-07 09:45', timezone: 'UTC' });
      await make({ title: 'Offset', start_date: '2032-05-08 12:00', end_date: '2032-05-08 13:00', timezone: 'UTC+2' });
      const yoga = await make({
        title: 'Yoga',
        start_date: '2032-03-22 18:00',
        end_date: '2032-03-22 19:00',
        timezone: 'Europe/Rome',
        organizer: [{ organizer: 'Ada "the" Lovelace', email: 'countess@example.org' }],
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'],
      });
      const market = await make({
        title: 'Market',
        start_date: '2032-06-05',
        end_date: '2032-06-05',
        all_day: true,
        timezone: 'Asia/Tokyo',
        venue: { venue: 'Piazza', address: 'Piazza Grande' },
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
      });
      const occurrences = async (series: Json) => (await source.request(`${EVENTS}/${series.id}/instances`)).body.events as Json[];
      const [yogaDays, marketDays] = await Promise.all([occurrences(yoga), occurrences(market)]);
      const write = async (id: unknown, method: string, body?: Json) => {
        const response = await source.request(`${EVENTS}/${id}`, { method, auth: sourceAdmin, ...(body === undefined ? {} : { body }) });
        assert.equal(response.status, 200, response.text);
      };
      await write(yogaDays[1]?.id, 'DELETE');
      await write(yogaDays[2]?.id, 'PATCH', {
        title: 'Yoga (guest teacher)',
        start_date: '2032-04-05 19:00',
        end_date: '2032-04-05 20:00',
      });
      await write(marketDays[2]?.id, 'PATCH', { title: 'Market (harvest)' });
      exported = await feedOf(source, YEAR);
    });

    it('is read back as written by ical.js and python3-icalendar: URL is the website, parameters escaped as RFC 6868 says', () => {
      const calendar = new ICAL.Component(ICAL.parse(exported));
      const concert = calendar
        .getAllSubcomponents('vevent')
        .find((vevent) => vevent.getFirstPropertyValue('summary')?.toString().startsWith('Concerto'));
      assert.equal(concert?.getFirstPropertyValue('url'), WEBSITE);
      assert.equal(concert?.getFirstProperty('organizer')?.getParameter('cn'), ORGANIZER);
      assert.match(exported, /\r\nORGANIZER;CN="Ltd\.; \^'Q\^' \^\^ Co: A,B":mailto:box@ltd\.example\r\n/);
      assert.match(exported, /\r\nORGANIZER;CN=Ada \^'the\^' Lovelace:mailto:countess@example\.org\r\n/);
      assert.equal(
        calendar.getAllSubcomponents('vevent').filter((vevent) => vevent.getFirstPropertyValue('url') !== null).length,
        1,
        'no page URL as URL',
      );
      // The zone of what is written without TZID: days, and UTC times (UTC, fixed offsets).
      const zones = [...exported.matchAll(/\r\nX-ALMANAC-TIMEZONE:([^\r]+)/g)].map((match) => match[1]).sort();
      assert.deepEqual(zones, ['America/New_York', 'Asia/Tokyo', 'Asia/Tokyo', 'Pacific/Auckland', 'UTC', 'UTC+2']);
      // RFC 5545 §3.6: the calendar's properties, then its components.
      const [head = '', body = ''] = exported.split(/\r\nBEGIN:(?=V)/, 2);
      assert.match(head, /\r\nX-WR-TIMEZONE:/);
      assert.doesNotMatch(body, /\r\n(?:X-WR-|NAME|REFRESH-INTERVAL|X-PUBLISHED-TTL|PRODID|VERSION)[;:]/);
      const python = relayedByPython(exported);
      assert.match(python, /\r\nURL(?:;VALUE=URI)?:https:\/\/example\.org\/concerts\?season=2032&lang=it#programme\r\n/);
      assert.match(python, /\r\nORGANIZER;CN="Ltd\.; \^'Q\^' \^\^ Co: A,B":mailto:box@ltd\.example\r\n/);
    });

    it('comes back the same from a fresh calendar, and importing it again changes nothing', async () => {
      const first = await importTo(fresh, freshAdmin, exported);
      assert.deepEqual(first, { created: 8, updated: 2, skipped: 0, errors: [] });
      const expected = await everything(source, sourceAdmin);
      assert.equal(expected.length, 6 + 4 + 4);
      assert.deepEqual(await everything(fresh, freshAdmin), expected);
      const exportedAgain = await feedOf(fresh, YEAR);
      assert.equal(withoutStoreTimes(exportedAgain), withoutStoreTimes(exported));

      const before = await stored(fresh, freshAdmin);
      assert.deepEqual(await importTo(fresh, freshAdmin, exported), { created: 0, updated: 0, skipped: 10, errors: [] });
      assert.deepEqual(await importTo(fresh, freshAdmin, exportedAgain), { created: 0, updated: 0, skipped: 10, errors: [] });
      assert.deepEqual(await stored(fresh, freshAdmin), before, 'same ids, no modified moved');

      // Back home: the fresh calendar's copy is later (LAST-MODIFIED) but says nothing new.
      const home = await stored(source, sourceAdmin);
      assert.deepEqual(await importTo(source, sourceAdmin, exported), { created: 0, updated: 0, skipped: 10, errors: [] });
      assert.deepEqual(await importTo(source, sourceAdmin, exportedAgain), { created: 0, updated: 0, skipped: 10, errors: [] });
      assert.deepEqual(await stored(source, sourceAdmin), home);
      assert.equal(await feedOf(source, YEAR), exported);
    });

    it('comes back the same after python3-icalendar and ical.js have read and written it', async () => {
      const relayed = relayedByIcalJs(relayedByPython(exported));
      assert.notEqual(relayed, exported, 'each writes the file its own way');
      assert.deepEqual(await importTo(target, targetAdmin, relayed), { created: 8, updated: 2, skipped: 0, errors: [] });
      assert.deepEqual(await everything(target, targetAdmin), await everything(source, sourceAdmin));
      assert.equal(withoutStoreTimes(await feedOf(target, YEAR)), withoutStoreTimes(exported));
      assert.deepEqual(await importTo(target, targetAdmin, relayed), { created: 0, updated: 0, skipped: 10, errors: [] });
    });

    it("takes the source's changes: a series' occurrences keep their ids, a website removed is removed", async () => {
      const ids = async (server: TestServer, auth: Credentials) =>
        ((await server.request(`${EVENTS}?${YEAR}&per_page=50&status=any`, { auth })).body.events as Json[])
          .filter((event) => String(event.title).startsWith('Market'))
          .map((event) => event.id);
      const marketIds = await ids(fresh, freshAdmin);
      assert.equal(marketIds.length, 4);
      const find = async (title: string) =>
        ((await source.request(`${EVENTS}?${YEAR}&per_page=50&search=${encodeURIComponent(title)}`)).body.events as Json[])[0] as Json;
      const market = await find('Market');
      const concert = await find('Concerto');
      for (const [id, body] of [
        [market.recurring_event_id ?? market.id, { title: 'Market, Tokyo' }],
        [concert.id, { website: '' }],
      ] as const) {
        const response = await source.request(`${EVENTS}/${id}`, { method: 'PATCH', auth: sourceAdmin, body });
        assert.equal(response.status, 200, response.text);
      }
      const changed = await feedOf(source, YEAR);
      assert.deepEqual(await importTo(fresh, freshAdmin, changed), { created: 0, updated: 2, skipped: 8, errors: [] });
      assert.deepEqual(await ids(fresh, freshAdmin), marketIds);
      assert.deepEqual(await everything(fresh, freshAdmin), await everything(source, sourceAdmin));
      assert.equal(withoutStoreTimes(await feedOf(fresh, YEAR)), withoutStoreTimes(changed));
    });
  });
});
