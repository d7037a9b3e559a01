/**
 * iCalendar feeds (issue 22, export): `/events.ics` and `/events/{id}.ics`
 * through the real server. Every feed is read by three independent parsers
 * — ical.js (strict), node-ical and Debian's python3-icalendar
 * (test/calendar/ical-parse.py) — and what they read must be what the JSON
 * API says of the same events: instants, zones, all-day days, texts,
 * locations, and, through ical.js's RRULE iterator, the occurrences of each
 * series in the window with their exceptions.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { foldLines as generatorFoldLines } from 'ical-generator';
import ICAL from 'ical.js';
import nodeIcal from 'node-ical';
import { foldLines } from '../../src/calendar/ical/ical.feed.ts';
import { textOfHtml } from '../../src/calendar/ical/ical.text.ts';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS } from './events.factories.ts';
import { requireProgram } from '../helpers/programs.ts';

const PYTHON = '/usr/bin/python3';
const PARSER = path.resolve('test/calendar/ical-parse.py');
requireProgram(PYTHON, ['-c', 'import icalendar'], "Debian's python3-icalendar is not installed (apt-get install python3-icalendar)");

const FEED = `${EVENTS}.ics`;
const WINDOW = 'start_date=2031-01-01&end_date=2031-12-31';
const WINDOW_END_MS = Date.UTC(2032, 0, 2);

type Json = Record<string, any>;

/** What one VEVENT (or one occurrence) says, in a shape every parser can give. */
interface Seen {
  uid: string;
  /** The original start it replaces, for exceptions: a UTC stamp or a day. */
  recurrenceId: string | null;
  start: string;
  end: string;
  tzid: string | null;
  summary: string;
  description: string;
  location: string;
  /** GEO: latitude and longitude. */
  geo: number[] | null;
}

const utcStamp = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
const dayAfter = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** The plain text the feed should carry for a fixture's HTML (the fixtures use only these constructs). */
function plain(html: string): string {
  return html
    .replace(/<\/p>\s*<p>/g, '\n\n')
    .replace(/<br\s*\/?>\s*/g, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#0?39;/g, "'")
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .trim();
}

function locationOfJson(event: Json): string {
  if (Array.isArray(event.venue)) return '';
  const address = ['address', 'city', 'stateprovince', 'zip', 'country']
    .map((key) => event.venue[key])
    .filter((part) => typeof part === 'string' && part !== '')
    .join(', ');
  return [event.venue.venue, address].filter((part) => part !== '').join('\n');
}

/** What the JSON API says of an item of /events, as a VEVENT instance would show it. */
function expectedOf(event: Json, uid: string): Seen {
  const allDay = event.all_day === true;
  return {
    uid,
    recurrenceId: null,
    start: allDay ? event.start_date.slice(0, 10) : event.utc_start_date,
    end: allDay ? dayAfter(event.end_date.slice(0, 10)) : event.utc_end_date,
    // Fixed offsets (UTC+2) have no VTIMEZONE: their times are written in UTC.
    tzid: allDay || /^UTC([+-]|$)/.test(event.timezone) ? null : event.timezone,
    summary: plain(event.title),
    description: plain(event.description),
    location: locationOfJson(event),
    geo: Array.isArray(event.venue) || typeof event.venue.geo_lat !== 'number' ? null : [event.venue.geo_lat, event.venue.geo_lng],
  };
}

// ---------------------------------------------------------------------------
// The three parsers

/** ical.js: strict parse, timezones registered from the feed's VTIMEZONEs, series expanded by its iterator up to the window's end. */
function instancesByIcalJs(text: string): Seen[] {
  const root = new ICAL.Component(ICAL.parse(text));
  for (const vtimezone of root.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(vtimezone);
  const events = root.getAllSubcomponents('vevent').map((vevent) => new ICAL.Event(vevent));
  const masters = new Map(events.filter((event) => !event.isRecurrenceException()).map((event) => [event.uid, event]));
  for (const event of events) if (event.isRecurrenceException()) masters.get(event.uid)?.relateException(event);
  const seen: Seen[] = [];
  const when = (time: ICAL.Time) => (time.isDate ? time.toString().slice(0, 10) : utcStamp(time.toUnixTime() * 1000));
  const shown = (event: ICAL.Event, start: ICAL.Time, end: ICAL.Time, recurrenceId: ICAL.Time | null): Seen => {
    const tzid = start.isDate ? null : start.zone?.tzid === 'UTC' ? null : (start.zone?.tzid ?? 'floating');
    return {
      uid: event.uid,
      recurrenceId: recurrenceId === null ? null : when(recurrenceId),
      start: when(start),
      end: when(end),
      tzid,
      summary: event.summary ?? '',
      description: event.description ?? '',
      location: event.location ?? '',
      geo: (event.component.getFirstPropertyValue('geo') as number[] | null) ?? null,
    };
  };
  for (const event of masters.values()) {
    if (!event.isRecurring()) {
      seen.push(shown(event, event.startDate, event.endDate, null));
      continue;
    }
    const iterator = event.iterator();
    for (
      let next = iterator.next();
      next !== undefined && next !== null && next.toUnixTime() * 1000 < WINDOW_END_MS;
      next = iterator.next()
    ) {
      const details = event.getOccurrenceDetails(next);
      seen.push(shown(details.item, details.startDate, details.endDate, details.item === event ? null : details.recurrenceId));
    }
  }
  return seen;
}

const nodeText = (value: unknown): string =>
  value === undefined ? '' : typeof value === 'string' ? value : String((value as { val: unknown }).val ?? '');
const nodeWhen = (date: Date & { dateOnly?: boolean }) =>
  date.dateOnly === true
    ? `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`
    : utcStamp(date.getTime());

/** node-ical: every VEVENT as written (masters with their DTSTART; overrides from `recurrences`), plus each master's RRULE and EXDATEs. */
function componentsByNodeIcal(text: string): { seen: Seen[]; rules: Map<string, { rrule: string; exdates: string[] }> } {
  const parsed = nodeIcal.sync.parseICS(text);
  const seen: Seen[] = [];
  const rules = new Map<string, { rrule: string; exdates: string[] }>();
  const add = (event: any, recurrenceId: Date | null) =>
    seen.push({
      uid: event.uid,
      recurrenceId: recurrenceId === null ? null : nodeWhen(recurrenceId),
      start: nodeWhen(event.start),
      end: nodeWhen(event.end),
      tzid: event.start.dateOnly === true ? null : event.start.tz === 'Etc/UTC' || event.start.tz === undefined ? null : event.start.tz,
      summary: nodeText(event.summary),
      description: nodeText(event.description),
      location: nodeText(event.location),
      geo: event.geo === undefined ? null : [Number(event.geo.lat), Number(event.geo.lon)],
    });
  for (const event of Object.values<any>(parsed)) {
    if (event.type !== 'VEVENT') continue;
    add(event, event.recurrenceid ?? null);
    // node-ical files an override under more than one key (its day and its instant): each once.
    const overrides = new Map(Object.values<any>(event.recurrences ?? {}).map((override) => [override.recurrenceid.getTime(), override]));
    for (const override of overrides.values()) add(override, override.recurrenceid);
    if (event.rrule !== undefined) {
      const exdates = Object.values<Date & { dateOnly?: boolean }>(event.exdate ?? {}).map(nodeWhen);
      rules.set(event.uid, { rrule: String(event.rrule.toString()), exdates: [...new Set(exdates)].sort() });
    }
  }
  return { seen, rules };
}

interface PythonView {
  name: string;
  timezones: string[];
  events: Json[];
}

function readByPython(text: string): PythonView {
  const run = spawnSync(PYTHON, [PARSER], { input: Buffer.from(text, 'utf8') });
  assert.equal(run.status, 0, `python3-icalendar failed: ${run.stderr.toString()}`);
  return JSON.parse(run.stdout.toString()) as PythonView;
}

function componentsByPython(view: PythonView): Seen[] {
  const when = (moment: Json) => moment.utc ?? moment.date ?? `floating ${moment.floating}`;
  return view.events.map((event) => ({
    uid: event.uid,
    recurrenceId: event.recurrence_id === null ? null : when(event.recurrence_id),
    start: when(event.start),
    end: when(event.end),
    tzid: event.start.tzid ?? null,
    summary: event.summary ?? '',
    description: event.description ?? '',
    location: event.location ?? '',
    geo: event.geo,
  }));
}

const byKey = (items: readonly Seen[]) => [...items].sort((a, b) => `${a.uid} ${a.start}`.localeCompare(`${b.uid} ${b.start}`));

/** Physical lines: CRLF only, at most 75 octets each, each valid UTF-8 on its own (no character split by a fold). */
function assertWellFolded(bytes: Uint8Array): void {
  const text = Buffer.from(bytes).toString('latin1');
  assert.ok(text.endsWith('\r\n'), 'the last line ends with CRLF');
  assert.ok(!/[^\r]\n/.test(text) && !/\r[^\n]/.test(text), 'every line ends with CRLF');
  const strict = new TextDecoder('utf-8', { fatal: true });
  let offset = 0;
  for (const line of text.slice(0, -2).split('\r\n')) {
    assert.ok(line.length <= 75, `a line of ${line.length} octets: ${line.slice(0, 40)}…`);
    assert.doesNotThrow(
      () => strict.decode(bytes.subarray(offset, offset + line.length)),
      `line not valid UTF-8 alone: ${line.slice(0, 40)}`,
    );
    offset += line.length + 2;
  }
}

// ---------------------------------------------------------------------------

describe('iCalendar feeds', () => {
  let server: TestServer;
  let admin: Credentials;
  const uidOf = (id: number) => `event-${id}@${new URL(server.config.baseUrl).host}`;
  before(async () => {
    server = await startTestServer({ SITE_TIMEZONE: 'Europe/Rome' });
    admin = await server.admin();
  });
  after(async () => server.close());

  const create = async (fields: Record<string, unknown>) => {
    const response = await server.request(EVENTS, { method: 'POST', auth: admin, body: fields });
    assert.equal(response.status, 201, response.text);
    return response.body as Json;
  };
  const patch = async (id: number, fields: Record<string, unknown>) => {
    const response = await server.request(`${EVENTS}/${id}`, { method: 'PATCH', auth: admin, body: fields });
    assert.equal(response.status, 200, response.text);
    return response.body as Json;
  };
  const json = async (query: string, auth?: Credentials) => {
    const response = await server.request(`${EVENTS}?per_page=50&${query}`, auth ? { auth } : {});
    assert.equal(response.status, 200, response.text);
    return response.body.events as Json[];
  };
  const feed = async (url: string, options: { auth?: Credentials; headers?: Record<string, string> } = {}) => {
    const response = await server.request(url, options);
    return response;
  };
  const feedText = async (url: string, auth?: Credentials) => {
    const response = await feed(url, auth ? { auth } : {});
    assert.equal(response.status, 200, response.text);
    assert.equal(response.headers.get('content-type'), 'text/calendar; charset=utf-8');
    return response.text;
  };

  it('gives every event of a window as three parsers read it, the same as the JSON API (singles, all-day, series, exceptions)', async () => {
    const tag = `agree-${Date.now()}`;
    const long = 'Concerto d’estate — “Ça va?” 🎻 àèìòù, ß & 日本語のテキスト; ';
    await create({
      title: `${long.repeat(3)}fin`,
      start_date: '2031-03-17 18:00',
      end_date: '2031-03-17 19:30',
      timezone: 'Europe/Rome',
      description: `<p>Primo paragrafo &amp; <b>grassetto</b>, ${long.repeat(4)}</p><p>Seconda riga<br>terza riga</p>`,
      venue: { venue: 'Teatro, Verdi', address: 'Via Roma 1', city: 'Milano', country: 'Italy', geo_lat: 45.4642, geo_lng: 9.19 },
      organizer: { organizer: 'Ada "the" Lovelace', email: 'ada@example.org' },
      categories: ['Music'],
      tags: [tag],
    });
    await create({
      title: 'Harvest fair',
      start_date: '2031-06-05',
      end_date: '2031-06-06',
      all_day: true,
      timezone: 'America/New_York',
      venue: { venue: 'Royal Observatory', city: 'London', geo_lat: 51.4779, geo_lng: -0.0015 },
      tags: [tag],
    });
    await create({
      title: 'Diwali talk',
      start_date: '2031-10-20 19:00',
      end_date: '2031-10-20 20:30',
      timezone: 'Asia/Kolkata',
      tags: [tag],
    });
    await create({
      title: 'Offset <i>meetup</i>',
      start_date: '2031-09-09 09:00',
      end_date: '2031-09-09 10:00',
      timezone: 'UTC+2',
      tags: [tag],
    });
    // Weekly across the end of daylight saving time in Rome (2031-03-30), one excluded, one changed on its own.
    const yoga = await create({
      title: 'Yoga',
      start_date: '2031-03-17 18:00',
      end_date: '2031-03-17 19:00',
      timezone: 'Europe/Rome',
      description: '<p>Bring a mat</p>',
      tags: [tag],
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6', 'EXDATE;TZID=Europe/Rome:20310324T180000'],
    });
    const yogaItems = (await json(`post_parent=${yoga.id}&${WINDOW}`)).filter((item) => item.recurring_event_id === yoga.id);
    assert.equal(yogaItems.length, 5);
    await patch((yogaItems[2] as Json).id, { title: 'Yoga & tea', start_date: '2031-04-07 19:00', end_date: '2031-04-07 20:30' });
    const market = await create({
      title: 'Market',
      start_date: '2031-05-03',
      end_date: '2031-05-03',
      all_day: true,
      timezone: 'Europe/Rome',
      tags: [tag],
      recurrence: ['RRULE:FREQ=WEEKLY;UNTIL=20310517'],
    });
    const marketItems = (await json(`post_parent=${market.id}&${WINDOW}`)).filter((item) => item.recurring_event_id === market.id);
    assert.equal(marketItems.length, 3);
    await patch((marketItems[1] as Json).id, { title: 'Market (moved)', start_date: '2031-05-11', end_date: '2031-05-11', all_day: true });

    const listed = await json(`tags=${tag}&${WINDOW}`);
    assert.equal(listed.length, 4 + 5 + 3);
    const expected = byKey(
      listed.map((item) => ({
        ...expectedOf(item, uidOf(item.recurring_event_id ?? item.id)),
        recurrenceId:
          item.recurring_event_id === undefined || item.original_start_date === item.start_date
            ? null
            : item.all_day
              ? item.original_start_date.slice(0, 10)
              : item.original_start_date_utc,
      })),
    );
    const bytes = new Uint8Array(await (await fetch(`${server.url}${FEED}?tags=${tag}&${WINDOW}`)).arrayBuffer());
    assertWellFolded(bytes);
    const text = new TextDecoder().decode(bytes);

    // ical.js: every occurrence in the window, the RRULE expanded by its iterator, exceptions in place.
    const byIcalJs = byKey(instancesByIcalJs(text));
    // ical.js gives an exception's RECURRENCE-ID also when it was not moved; the JSON gives none then.
    assert.deepEqual(
      byIcalJs.map((seen) => ({
        ...seen,
        recurrenceId: seen.recurrenceId === null || seen.recurrenceId === seen.start ? null : seen.recurrenceId,
      })),
      expected,
    );

    // node-ical and python3-icalendar: each VEVENT as written. Singles and exceptions are items of the list; masters are the series.
    const seriesJson = await Promise.all([yoga.id, market.id].map(async (id) => (await server.request(`${EVENTS}/${id}`)).body as Json));
    const exceptions = listed.filter((item) => item.title !== 'Yoga' && item.title !== 'Market' && item.recurring_event_id !== undefined);
    assert.equal(exceptions.length, 2);
    const components = byKey([
      ...listed.filter((item) => item.recurring_event_id === undefined).map((item) => expectedOf(item, uidOf(item.id))),
      ...seriesJson.map((series) => expectedOf(series, uidOf(series.id))),
      ...exceptions.map((item) => ({
        ...expectedOf(item, uidOf(item.recurring_event_id)),
        recurrenceId: item.all_day ? item.original_start_date.slice(0, 10) : item.original_start_date_utc,
      })),
    ]);
    const nodeView = componentsByNodeIcal(text);
    assert.deepEqual(byKey(nodeView.seen), components);
    assert.match(nodeView.rules.get(uidOf(yoga.id))?.rrule ?? '', /FREQ=WEEKLY;COUNT=6/);
    assert.deepEqual(nodeView.rules.get(uidOf(yoga.id))?.exdates, ['2031-03-24 17:00:00']);
    assert.ok(nodeView.rules.has(uidOf(market.id)));
    assert.match(text, /\r\nRRULE:FREQ=WEEKLY;UNTIL=20310517\r\n/, 'an all-day series ends on a DATE');

    const python = readByPython(text);
    assert.deepEqual(byKey(componentsByPython(python)), components);
    const yogaMaster = python.events.find((event) => event.uid === uidOf(yoga.id) && event.recurrence_id === null) as Json;
    assert.equal(yogaMaster.rrule, 'FREQ=WEEKLY;COUNT=6');
    assert.deepEqual(yogaMaster.exdates, [{ utc: '2031-03-24 17:00:00', tzid: null }]);
    // One VTIMEZONE per zone a time is written in: the all-day event's New York needs none.
    assert.deepEqual([...python.timezones].sort(), ['Asia/Kolkata', 'Europe/Rome']);
    const tzids = new Set([...text.matchAll(/;TZID=([^:;]+)/g)].map((match) => match[1]));
    const vtimezones = [...text.matchAll(/BEGIN:VTIMEZONE\r\nTZID:([^\r]+)/g)].map((match) => match[1]);
    assert.deepEqual([...vtimezones].sort(), [...tzids].sort(), 'one VTIMEZONE per zone used, and only those');

    // What the JSON carries that only one VEVENT shows.
    // RFC 6868: the quotes of the name are ^' (a parameter value cannot hold DQUOTE), and nothing needs quoting.
    assert.match(text, /\r\nORGANIZER;CN=Ada \^'the\^' Lovelace:mailto:ada@example\.org\r\n/);
    assert.match(text, /\r\nCATEGORIES:Music\r\n/);
    assert.match(text, /\r\nGEO:51\.4779;-0\.0015\r\n/);
    assert.match(text, /\r\nSTATUS:CONFIRMED\r\n/);
    assert.match(text, /\r\nRECURRENCE-ID;VALUE=DATE:20310510\r\n/);
    assert.match(text, /\r\nDTSTART;VALUE=DATE:20310605\r\nDTEND;VALUE=DATE:20310607\r\n/, 'all-day: days, with an exclusive end');
    for (const name of ['DTSTAMP', 'CREATED', 'LAST-MODIFIED']) {
      const values = [...text.matchAll(new RegExp(`\r\n${name}:([^\r]+)`, 'g'))].map((match) => match[1]);
      assert.ok(values.length >= 5 && values.every((value) => /^\d{8}T\d{6}Z$/.test(value ?? '')), `${name} in UTC: ${values.join(' ')}`);
    }
    // A window that leaves the changed occurrence out: the rule must not bring it back as it was before the change.
    const later = await feedText(`${FEED}?tags=${tag}&start_date=2031-04-10&end_date=2031-12-31`);
    assert.deepEqual(
      instancesByIcalJs(later)
        .filter((seen) => seen.uid === uidOf(yoga.id))
        .map((seen) => `${seen.start} ${seen.summary}`),
      ['2031-03-17 17:00:00 Yoga', '2031-03-31 16:00:00 Yoga', '2031-04-14 16:00:00 Yoga', '2031-04-21 16:00:00 Yoga'],
    );
    assert.match(text, /\r\nREFRESH-INTERVAL;VALUE=DURATION:PT1H\r\n/);
    assert.match(text, /\r\nX-PUBLISHED-TTL:PT1H\r\n/);
    assert.match(text, /\r\nX-WR-TIMEZONE:Europe\/Rome\r\n/);
    assert.match(text, /\r\nNAME:[^\r]+\r\nX-WR-CALNAME:/);
  });

  it('folds long multibyte text at 75 octets without splitting a character, and the parsers join it back', async () => {
    const title = `${'🎻é日'.repeat(40)}x`;
    const event = await create({
      title,
      start_date: '2031-02-03 10:00',
      end_date: '2031-02-03 11:00',
      description: `<p>${'ñ'.repeat(200)}</p>`,
    });
    const response = await fetch(`${server.url}${EVENTS}/${event.id}.ics`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    assertWellFolded(bytes);
    const text = new TextDecoder().decode(bytes);
    assert.ok(text.split('\r\n').filter((line) => line.startsWith(' ')).length > 10, 'long lines are folded');
    const [seen] = instancesByIcalJs(text);
    assert.equal(seen?.summary, title);
    assert.equal(seen?.description, 'ñ'.repeat(200));
    assert.equal(componentsByNodeIcal(text).seen[0]?.summary, title);
    assert.equal(readByPython(text).events[0]?.summary, title);
  });

  it('keeps the UID when an event is rescheduled, with a higher SEQUENCE, a new ETag, and 304 for the current one', async () => {
    const event = await create({
      title: 'Board meeting',
      start_date: '2031-09-01 09:00',
      end_date: '2031-09-01 10:00',
      timezone: 'Europe/Rome',
    });
    const url = `${EVENTS}/${event.id}.ics`;
    const first = await feed(url);
    assert.equal(first.status, 200);
    const etag = first.headers.get('etag') as string;
    assert.match(etag, /^"[^"]+"$/, 'a strong ETag');
    assert.equal(first.headers.get('cache-control'), 'public, max-age=10, stale-while-revalidate=10');
    const again = await feed(url, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    assert.equal(again.headers.get('etag'), etag);
    const listEtag = (await feed(`${FEED}?${WINDOW}`)).headers.get('etag') as string;
    assert.equal((await feed(`${FEED}?${WINDOW}`, { headers: { 'if-none-match': `"other", ${listEtag}` } })).status, 304);

    await patch(event.id, { start_date: '2031-09-02 15:00', end_date: '2031-09-02 16:00' });
    const moved = await feed(url, { headers: { 'if-none-match': etag } });
    assert.equal(moved.status, 200, 'the old ETag no longer matches');
    assert.notEqual(moved.headers.get('etag'), etag);
    const before = new ICAL.Event(new ICAL.Component(ICAL.parse(first.text)).getFirstSubcomponent('vevent') as ICAL.Component);
    const afterMove = new ICAL.Event(new ICAL.Component(ICAL.parse(moved.text)).getFirstSubcomponent('vevent') as ICAL.Component);
    assert.equal(afterMove.uid, before.uid);
    assert.equal(afterMove.uid, uidOf(event.id));
    assert.ok(afterMove.sequence > before.sequence, `SEQUENCE ${before.sequence} → ${afterMove.sequence}`);
    assert.match(moved.text, /DTSTART;TZID=Europe\/Rome:20310902T150000/);
    assert.notEqual((await feed(`${FEED}?${WINDOW}`)).headers.get('etag'), listEtag, 'the list feed changes too');
    const signedIn = await feed(url, { auth: admin });
    assert.equal(signedIn.headers.get('cache-control'), 'private, no-store');
  });

  it('shows anonymous callers no draft, private or password-protected content, and shows the caller who may see them', async () => {
    // A day of its own: filters do not match a protected event's content (its tags), so the window picks them.
    const day = 'start_date=2031-07-01&end_date=2031-07-01';
    const base = { start_date: '2031-07-01 10:00', end_date: '2031-07-01 11:00' };
    await create({ ...base, title: 'Public picnic' });
    await create({ ...base, title: 'Draft gala', status: 'draft' });
    await create({ ...base, title: 'Private dinner', status: 'private' });
    await create({
      ...base,
      title: 'Locked party',
      password: 'sesame',
      description: '<p>The secret cave</p>',
      venue: { venue: 'Hidden hall' },
    });
    const anonymous = await feedText(`${FEED}?${day}`);
    const anonymousJson = await json(day);
    assert.deepEqual(anonymousJson.map((event) => event.title).sort(), ['Locked party', 'Public picnic']);
    assert.deepEqual(
      byKey(instancesByIcalJs(anonymous)),
      byKey(anonymousJson.map((event) => expectedOf(event, uidOf(event.id)))),
      'what anonymous /events shows',
    );
    assert.doesNotMatch(anonymous, /Draft gala|Private dinner|secret cave|Hidden hall/);
    // With the password, the feed shows what /events shows with it.
    const unlockedJson = await json(`${day}&password=sesame`);
    const unlocked = await feedText(`${FEED}?${day}&password=sesame`);
    assert.deepEqual(byKey(instancesByIcalJs(unlocked)), byKey(unlockedJson.map((event) => expectedOf(event, uidOf(event.id)))));
    assert.match(unlocked, /DESCRIPTION;LANGUAGE=en:The secret cave\r\nLOCATION|LOCATION;LANGUAGE=en:Hidden hall/);
    assert.match(unlocked, /The secret cave/);
    const asAdmin = await feedText(`${FEED}?${day}`, admin);
    const adminJson = (await json(day, admin)).map((event) => event.title).sort();
    assert.ok(adminJson.includes('Draft gala') && adminJson.includes('Private dinner'));
    assert.deepEqual(
      instancesByIcalJs(asAdmin)
        .map((seen) => seen.summary)
        .sort(),
      adminJson,
    );
    assert.match(asAdmin, /SUMMARY;LANGUAGE=en:Draft gala\r\n(?:.*\r\n)*?STATUS:TENTATIVE\r\n/);
  });

  it('answers /events/{id}.ics with the errors of /events/{id}', async () => {
    const draft = await create({ title: 'Draft only', start_date: '2031-08-01 10:00', end_date: '2031-08-01 11:00', status: 'draft' });
    const locked = await create({ title: 'Locked', start_date: '2031-08-01 10:00', end_date: '2031-08-01 11:00', password: 'sesame' });
    for (const [id, query] of [
      [999_999, ''],
      [draft.id, ''],
      [locked.id, ''],
      [locked.id, '?password=wrong'],
    ] as const) {
      const asJson = await server.request(`${EVENTS}/${id}${query}`);
      const asIcs = await server.request(`${EVENTS}/${id}.ics${query}`);
      assert.ok(asJson.status >= 400);
      assert.equal(asIcs.status, asJson.status, `${id}${query}`);
      assert.deepEqual(asIcs.body, asJson.body);
      assert.match(asIcs.headers.get('content-type') ?? '', /^application\/json/);
    }
    assert.equal((await server.request(`${EVENTS}/999999.ics`)).body.code, 'rest-event-not-found');
    assert.equal((await server.request(`${EVENTS}/${locked.id}.ics?password=sesame`)).status, 200);
    assert.equal((await server.request(`${EVENTS}/${locked.id}`)).status, 403, 'the JSON route is still matched');
  });

  it('gives a series with all its exceptions for a series id, and an occurrence on its own for an occurrence id', async () => {
    const series = await create({
      title: 'Choir',
      start_date: '2031-11-03 20:00',
      end_date: '2031-11-03 21:00',
      timezone: 'Europe/Rome',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=4'],
    });
    const items = (await json(`post_parent=${series.id}&${WINDOW}`)).filter((item) => item.recurring_event_id === series.id);
    await patch((items[3] as Json).id, { title: 'Choir concert' });
    const whole = await feedText(`${EVENTS}/${series.id}.ics`);
    const instances = instancesByIcalJs(whole);
    assert.deepEqual(
      instances.map((seen) => `${seen.start} ${seen.summary}`),
      items.map((item, index) => `${item.utc_start_date} ${index === 3 ? 'Choir concert' : 'Choir'}`),
    );
    assert.ok(instances.every((seen) => seen.uid === uidOf(series.id)));
    const one = await feedText(`${EVENTS}/${(items[1] as Json).id}.ics`);
    const [single, ...rest] = instancesByIcalJs(one);
    assert.equal(rest.length, 0);
    assert.equal(single?.uid, uidOf((items[1] as Json).id));
    assert.equal(single?.start, (items[1] as Json).utc_start_date);
    assert.doesNotMatch(one.slice(one.indexOf('BEGIN:VEVENT')), /RRULE|RECURRENCE-ID/);
  });

  it('gives the texts in the language asked for (translation_language=it)', async () => {
    const event = await create({
      title: 'Concert',
      description: '<p>In the park</p>',
      start_date: '2031-04-20 21:00',
      end_date: '2031-04-20 23:00',
    });
    const response = await server.request(`${EVENTS}/${event.id}?translation_language=it`, {
      method: 'PATCH',
      auth: admin,
      body: { title: 'Concerto', description: '<p>Nel parco</p>' },
    });
    assert.equal(response.status, 200, response.text);
    const italian = await server.request(`${FEED}?include=${event.id}&translation_language=it`);
    assert.equal(italian.headers.get('content-language'), 'it');
    const [seen] = instancesByIcalJs(italian.text);
    assert.equal(seen?.summary, 'Concerto');
    assert.equal(seen?.description, 'Nel parco');
    assert.match(italian.text, /\r\nSUMMARY;LANGUAGE=it:Concerto\r\n/);
    const english = instancesByIcalJs(await feedText(`${FEED}?include=${event.id}`));
    assert.equal(english[0]?.summary, 'Concert');
  });

  it('gives per-category, tag, venue and organizer feeds: what /events lists with that filter, named after the site and the filter', async () => {
    const window = 'start_date=2033-03-01&end_date=2033-03-31';
    const at = (day: number) => ({ start_date: `2033-03-${String(day).padStart(2, '0')} 20:00`, end_date: `2033-03-${day} 22:00` });
    const first = await create({
      title: 'Quartet',
      ...at(10),
      categories: ['Feed Jazz'],
      venue: { venue: 'Hall, upstairs' },
      organizer: [{ organizer: 'Ada & Co' }],
    });
    const second = await create({ title: 'Late set', ...at(11), categories: ['Feed Jazz'], tags: ['Feed late'] });
    await create({ title: 'Late talk', ...at(12), tags: ['Feed late'], venue: first.venue.id });
    await create({ title: 'Unfiltered', ...at(13) });
    // ical.js leaves the TEXT escapes of properties it has no type for (`\,`) as they are.
    const calendarName = (text: string) => {
      const calendar = new ICAL.Component(ICAL.parse(text));
      assert.equal(calendar.getFirstPropertyValue('name'), calendar.getFirstPropertyValue('x-wr-calname'));
      return String(calendar.getFirstPropertyValue('x-wr-calname')).replace(/\\([\\;,])/g, '$1');
    };
    const jazz = second.categories[0].slug as string;
    const late = second.tags[0].slug as string;
    const cases: Array<[string, string]> = [
      ['', 'Calendar'],
      [`categories=${jazz}`, 'Calendar · Feed Jazz'],
      [`tags=${late}`, 'Calendar · Feed late'],
      [`venue=${first.venue.id}`, 'Calendar · Hall, upstairs'],
      [`organizer=${first.organizer[0].id}`, 'Calendar · Ada & Co'],
      [`categories=${jazz}&venue=${first.venue.id}`, 'Calendar · Feed Jazz · Hall, upstairs'],
      [`tags=${late}&search=talk`, 'Calendar · Feed late · “talk”'],
      [`categories=${jazz}&translation_language=it`, 'Calendario · Feed Jazz'],
    ];
    for (const [filters, name] of cases) {
      const query = `${window}&${filters}`;
      const listed = (await json(query)).map((event) => uidOf(event.id)).sort();
      const text = await feedText(`${FEED}?${query}`);
      assert.deepEqual([...new Set(instancesByIcalJs(text).map((seen) => seen.uid))].sort(), listed, filters);
      assert.equal(calendarName(text), name, filters);
    }
    assert.equal((await json(`${window}&categories=${jazz}&venue=${first.venue.id}`)).length, 1, 'filters of different kinds all apply');
  });

  it('refuses bad filters with the 400 of /events', async () => {
    for (const query of [
      'featured=maybe',
      'geoloc_lat=100',
      'start_date=',
      'categories=no-such-category',
      'tags=no-such-tag',
      'venue=999999',
      'venue=hall',
      'organizer=999999',
    ]) {
      const asJson = await server.request(`${EVENTS}?${query}`);
      const asIcs = await server.request(`${FEED}?${query}`);
      assert.equal(asIcs.status, asJson.status, query);
      assert.equal(asIcs.status, 400, query);
      assert.equal(asIcs.body.code, 'rest_invalid_param');
      assert.deepEqual(asIcs.body, asJson.body);
    }
  });

  it('refuses page and per_page with a 400 naming them: a feed has no pages', async () => {
    for (const name of ['page', 'per_page']) {
      const response = await server.request(`${FEED}?${name}=2`);
      assert.equal(response.status, 400, response.text);
      assert.deepEqual(Object.keys(response.body.data.params), [name]);
    }
    const doc = await server.request('/calendar/events/v1/doc');
    const parameters = (doc.body.paths['/events.ics'].get.parameters as { name: string }[]).map((parameter) => parameter.name);
    assert.ok(parameters.includes('categories') && !parameters.includes('page') && !parameters.includes('per_page'));
  });

  it('is listed in the namespace index and the OpenAPI document as text/calendar', async () => {
    const index = await server.request('/calendar/events/v1/');
    assert.ok(index.body.routes['/calendar/events/v1/events.ics'], Object.keys(index.body.routes).join(' '));
    assert.ok(
      Object.keys(index.body.routes).some((key) => /events\/\(\?P<id>.*\)\\?\.ics$/.test(key)),
      Object.keys(index.body.routes).join(' '),
    );
    const doc = await server.request('/calendar/events/v1/doc');
    for (const path of ['/events.ics', '/events/{id}.ics']) {
      const operation = doc.body.paths[path]?.get;
      assert.ok(operation, path);
      assert.ok(operation.responses['200'].content['text/calendar'], path);
      assert.ok(operation.responses['400'].content['application/json'], path);
    }
  });
});

describe('ICAL_MAX_EVENTS', () => {
  it('defaults to 500 and refuses values outside 1–10000', () => {
    assert.equal(loadConfig({}).icalMaxEvents, 500);
    assert.equal(loadConfig({ ICAL_MAX_EVENTS: '20' }).icalMaxEvents, 20);
    for (const value of ['0', '10001', 'many', '2.5']) assert.throws(() => loadConfig({ ICAL_MAX_EVENTS: value }), ConfigError, value);
  });
});

describe('plain text of rendered HTML', () => {
  it('keeps paragraphs, line breaks and list items, and decodes entities', () => {
    assert.equal(
      textOfHtml(
        '<p>One &amp; <b>two</b>&nbsp;</p>\n<ul><li>first</li><li>second &#8217;s &#x1F3BB;</li></ul><p>a<br />b &lt;c&gt; &unknown;</p>',
      ),
      'One & two\n\n- first\n- second ’s 🎻\n\na\nb <c> &unknown;',
    );
    assert.equal(textOfHtml(''), '');
  });

  it('reads text without markup as the same text in a paragraph (the shortcut for plain fields)', () => {
    const char = fc.oneof(fc.constantFrom(' ', '\n', '\t', '\f', '\v', '\u00a0', 'a', 'é', '😀', '>', ';'), fc.string({ maxLength: 1 }));
    const plain = fc.array(char, { maxLength: 40 }).map((chars) => chars.join('').replace(/[<&\r\uE001\uE002]/g, ''));
    fc.assert(fc.property(plain, (text) => assert.equal(textOfHtml(text), textOfHtml(`<p>${text}</p>`))));
    assert.equal(textOfHtml(' Via  Roma\t\t1 \n'), 'Via Roma\t1');
  });
});

describe('iCalendar feed cap', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer({ ICAL_MAX_EVENTS: '3' });
    admin = await server.admin();
  });
  after(async () => server.close());

  it('carries at most ICAL_MAX_EVENTS events, the first of the list', async () => {
    for (let day = 1; day <= 5; day += 1) {
      const response = await server.request(EVENTS, {
        method: 'POST',
        auth: admin,
        body: { title: `Capped ${day}`, start_date: `2031-05-0${day} 10:00`, end_date: `2031-05-0${day} 11:00` },
      });
      assert.equal(response.status, 201, response.text);
    }
    const text = (await server.request(`${FEED}?${WINDOW}`)).text;
    assert.deepEqual(
      instancesByIcalJs(text).map((seen) => seen.summary),
      ['Capped 1', 'Capped 2', 'Capped 3'],
    );
    assert.equal(text.match(/BEGIN:VEVENT/g)?.length, 3);
  });
});

it('folds lines exactly as ical-generator folds them', () => {
  // Lines of any length and characters: ASCII, two, three and four octets, lone surrogates.
  const char = fc.oneof(
    fc.constantFrom('a', ' ', ';', 'é', 'ß', '€', '語', '😀', '\uD800', '\uDC00'),
    fc.string({ unit: 'binary', maxLength: 1 }),
  );
  const line = fc.array(char, { maxLength: 300 }).map((chars) => chars.join(''));
  fc.assert(
    fc.property(fc.array(line, { maxLength: 5 }), (lines) => {
      const text = lines.join('\r\n');
      assert.equal(foldLines(text), generatorFoldLines(text));
    }),
    { numRuns: 500 },
  );
});
