import { SYNC_BEHIND, type Fixtures } from './fixtures.ts';
import type { LoadRequest, LoadVariant } from './load.ts';

/** A target from issue 10: the scenario's req/s must reach `minRatio` of the baseline's, measured in the same run. */
export interface RatioTarget {
  readonly minRatio: number;
  readonly stretch?: number;
  /** And its p99 at most this many times the baseline's (issue 26's mixed workload). */
  readonly maxP99Factor?: number;
}

export interface Scenario {
  readonly name: string;
  readonly title: string;
  readonly request: LoadRequest;
  readonly expectedStatus: number;
  readonly target?: RatioTarget;
  /** A target in time instead: its p50 at most this many milliseconds. */
  readonly maxP50Ms?: number;
  /** Why the scenario cannot run in this run (reported as n/a). */
  readonly unavailable?: string;
}

export interface EntityFixture {
  /** Path segment of the entity type (`customers`). */
  readonly type: string;
  readonly key: string;
  readonly fields: readonly string[];
  /** A `filter[Field]=value` pair matching a handful of records. */
  readonly filter: { readonly field: string; readonly value: string };
}

const CALENDAR = '/calendar/events/v1';
const PLACEHOLDER_ENTITY: EntityFixture = { type: 'customers', key: '-', fields: [], filter: { field: '-', value: '-' } };
const ENTITIES = '/apiservice/api/services/entity-management';

const query = (params: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(params).map(([key, value]) => [key, String(value)])).toString();

/** The editor's lines: they need a signed-in session. */
export const ADMIN_LINES = ['admin-events-list', 'admin-event-edit'] as const;

/** The default list of events at some size: measured at 10k and 100k (and 1M) events for the p50 ratio. */
export function listScenario(baseUrl: string, name: string, title: string): Scenario {
  return { name, title, request: { method: 'GET', url: `${baseUrl}${CALENDAR}/events` }, expectedStatus: 200 };
}

/** Every scenario of issue 10 run against the large data set, in report order. */
export function scenarios(
  baseUrl: string,
  fixtures: Fixtures,
  bearer: string,
  entity: EntityFixture | string,
  adminCookie?: string,
): Scenario[] {
  const calendar = `${baseUrl}${CALENDAR}`;
  const auth = { authorization: `Bearer ${bearer}` };
  const { filter } = fixtures;
  const list: Scenario[] = [
    {
      name: 'event-get',
      title: 'single event GET by id',
      request: { method: 'GET', url: `${calendar}/events/${fixtures.eventId}` },
      expectedStatus: 200,
      target: { minRatio: 0.5, stretch: 0.6 },
    },
    {
      // A poller that has the event: `*` matches any current representation, so the answer is a 304 with no body.
      name: 'event-get-not-modified',
      title: 'single event GET, If-None-Match → 304',
      request: { method: 'GET', url: `${calendar}/events/${fixtures.eventId}`, headers: { 'if-none-match': '*' } },
      expectedStatus: 304,
    },
    {
      // A mirror polling for what changed: the items are computed for each request (a sync is never cached).
      name: 'changes',
      title: `sync: GET /changes, ${SYNC_BEHIND} changes behind`,
      request: { method: 'GET', url: `${calendar}/changes?sync_token=${fixtures.syncToken}` },
      expectedStatus: 200,
      target: { minRatio: 0.2 },
    },
    {
      ...listScenario(baseUrl, 'event-list', 'default list (10/page)'),
      target: { minRatio: 0.3 },
    },
    {
      name: 'event-list-filtered',
      title: 'filtered list (category+venue+search+dates)',
      request: {
        method: 'GET',
        url: `${calendar}/events?${query({
          categories: filter.category,
          venue: filter.venue,
          search: filter.search,
          start_date: filter.startDate,
          end_date: filter.endDate,
        })}`,
      },
      expectedStatus: 200,
      target: { minRatio: 0.2 },
    },
    {
      name: 'event-list-it',
      title: 'default list, translation_language=it',
      request: { method: 'GET', url: `${calendar}/events?translation_language=it` },
      expectedStatus: 200,
    },
    {
      // The calendar's month page (issue 25): the default view, a grid of up to 500 events, rendered as HTML.
      name: 'calendar-month-page',
      title: 'calendar page: this month (HTML)',
      request: { method: 'GET', url: `${baseUrl}/events/` },
      expectedStatus: 200,
    },
    {
      // The same page as a browser asks for it: compressed, from the copy the server keeps of the answer it caches.
      name: 'calendar-month-page-compressed',
      title: 'calendar page: this month (HTML), brotli as browsers accept it',
      request: { method: 'GET', url: `${baseUrl}/events/`, headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } },
      expectedStatus: 200,
    },
    {
      // An image file as a page's <img> asks for it (a poster's thumbnail, from the database store): bytes, no JSON.
      name: 'media-file',
      title: 'image file GET /media/… (anonymous)',
      request: { method: 'GET', url: `${baseUrl}/media/${fixtures.mediaFile ?? '-'}` },
      expectedStatus: 200,
      target: { minRatio: 0.5 },
      unavailable: fixtures.mediaFile === undefined ? 'no image stored (no administrator to upload the demo posters)' : undefined,
    },
    {
      name: 'event-create',
      title: 'create event (Bearer, durable commit)',
      request: {
        method: 'POST',
        url: `${calendar}/events`,
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          title: 'Benchmark concert [<id>]',
          description: 'Created by npm run bench.',
          start_date: '2027-06-01 21:00:00',
          end_date: '2027-06-01 23:00:00',
          timezone: 'Europe/Rome',
          status: 'publish',
          venue: filter.venue,
          categories: [filter.category],
        }),
      },
      expectedStatus: 201,
      target: { minRatio: 0.15 },
    },
  ];
  // Without seeded records (a string says why) the entity scenarios are listed as n/a.
  const record = typeof entity === 'string' ? PLACEHOLDER_ENTITY : entity;
  const unavailable = typeof entity === 'string' ? entity : undefined;
  const entities = `${baseUrl}${ENTITIES}/${record.type}`;
  list.push(
    {
      name: 'entity-get',
      title: 'entity get by key with fields',
      request: {
        method: 'GET',
        url: `${entities}/${encodeURIComponent(record.key)}?${query({ fields: record.fields.join(',') })}`,
        headers: auth,
      },
      expectedStatus: 200,
      target: { minRatio: 0.45 },
      unavailable,
    },
    {
      name: 'entity-list',
      title: 'entity filtered list',
      request: {
        method: 'GET',
        url: `${entities}?${query({ [`filter[${record.filter.field}]`]: record.filter.value, per_page: 20 })}`,
        headers: auth,
      },
      expectedStatus: 200,
      unavailable,
    },
  );
  list.push({
    name: 'soap-ping',
    title: 'SOAP ping (durable insert)',
    request: {
      method: 'POST',
      url: `${baseUrl}/soap/PingService`,
      headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '"pingOperation"' },
      body:
        '<?xml version="1.0" encoding="utf-8"?>' +
        '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ping="http://com/ibm/was/wssample/sei/ping/">' +
        '<soapenv:Body><ping:pingStringInput><pingInput>npm run bench</pingInput></ping:pingStringInput></soapenv:Body></soapenv:Envelope>',
    },
    expectedStatus: 202,
    target: { minRatio: 0.25 },
  });
  // The editor's two busiest pages, signed in as the administrator (who sees every event): HTML rendered per request.
  const session = { cookie: adminCookie ?? '' };
  const signedOut = adminCookie === undefined ? 'no editor session: the bench could not log in' : undefined;
  list.push(
    {
      name: ADMIN_LINES[0],
      title: 'editor: events list (HTML, signed in)',
      request: { method: 'GET', url: `${baseUrl}/admin/events/`, headers: session },
      expectedStatus: 200,
      unavailable: signedOut,
    },
    {
      name: ADMIN_LINES[1],
      title: 'editor: event form (HTML, signed in)',
      request: { method: 'GET', url: `${baseUrl}/admin/events/${fixtures.eventId}/edit`, headers: session },
      expectedStatus: 200,
      unavailable: signedOut,
    },
  );
  return list;
}

/**
 * Calendar reads against a server that caches nothing (RESPONSE_CACHE_MB=0): every request
 * does the real work — queries, embeds, serialization. Reported beside the cached ones, no target.
 */
export function computedScenarios(baseUrl: string, fixtures: Fixtures): Scenario[] {
  const computed = (scenario: Scenario): Scenario => ({
    ...scenario,
    name: `${scenario.name}-computed`,
    title: `${scenario.title}, computed`,
    target: undefined,
  });
  return scenarios(baseUrl, fixtures, '', 'not measured computed')
    .filter((scenario) => ['event-get', 'event-list', 'event-list-filtered', 'changes', 'calendar-month-page'].includes(scenario.name))
    .map(computed);
}

const MIX_SIZE = 1000;

/**
 * A calendar as people use it (issue 26): 95% anonymous reads spread over
 * many URLs — single events across the whole table, list pages 1–20,
 * filtered lists, in either language — and 5% Bearer writes, creates and
 * partial updates, each of which makes every cached answer stale.
 * Drawn once, from a fixed seed, so every run sends the same mix.
 */
export function mixedScenario(baseUrl: string, fixtures: Fixtures, bearer: string): Scenario {
  const { eventIds, categories, venues } = fixtures.mix;
  let seed = 26;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const language = () => (random() < 0.3 ? '&translation_language=it' : '');
  const write = { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' };
  const variant = (): LoadVariant => {
    const draw = random();
    if (draw < 0.38) return { method: 'GET', path: `${CALENDAR}/events/${pick(eventIds)}?${language().slice(1)}` };
    if (draw < 0.66) return { method: 'GET', path: `${CALENDAR}/events?page=${1 + Math.floor(random() * 20)}${language()}` };
    if (draw < 0.95) {
      const filter = random() < 0.5 ? `categories=${pick(categories)}` : `venue=${pick(venues)}`;
      return { method: 'GET', path: `${CALENDAR}/events?${filter}&page=${1 + Math.floor(random() * 3)}${language()}` };
    }
    if (draw < 0.975) {
      return {
        method: 'POST',
        path: `${CALENDAR}/events`,
        headers: write,
        body: JSON.stringify({
          title: 'Mixed workload [<id>]',
          start_date: '2027-09-01 20:00:00',
          end_date: '2027-09-01 22:00:00',
          status: 'publish',
          venue: pick(venues),
          categories: [pick(categories)],
        }),
      };
    }
    return {
      method: 'POST',
      path: `${CALENDAR}/events/${pick(eventIds)}`,
      headers: write,
      body: JSON.stringify({ title: 'Updated [<id>]' }),
    };
  };
  const variants = Array.from({ length: MIX_SIZE }, variant);
  return {
    name: 'mixed',
    title: 'mixed: 95% anonymous reads over many URLs, 5% Bearer creates and updates',
    request: { method: 'GET', url: `${baseUrl}${CALENDAR}/events/${fixtures.eventId}`, variants },
    expectedStatus: 200,
    target: { minRatio: 0.25, maxP99Factor: 20 },
  };
}

/** Events a CalDAV app fetches at once (calendar-multiget) in the multiget line. */
const MULTIGET_SIZE = 100;

/**
 * CalDAV as a calendar app signed in with an API token uses it (issue 42): its poll when nothing changed (a
 * sync-collection from the newest token), and a fetch of 100 events by their hrefs. Computed for each request (a
 * signed-in caller's answers are not cached). One connection: the targets are one app's wait, not a server's queue.
 */
export function caldavScenarios(baseUrl: string, fixtures: Fixtures, bearer: string, syncToken: string): Scenario[] {
  const headers = {
    authorization: `Basic ${Buffer.from(`admin:${bearer}`).toString('base64')}`,
    'content-type': 'application/xml; charset=utf-8',
    depth: '1',
  };
  const calendar = `${baseUrl}/dav/calendars/events/`;
  const hrefs = fixtures.mix.eventIds.slice(0, MULTIGET_SIZE).map((id) => `<d:href>/dav/calendars/events/${id}.ics</d:href>`);
  return [
    {
      name: 'caldav-sync-empty',
      title: 'CalDAV sync-collection, nothing new (Basic, token)',
      request: {
        method: 'REPORT',
        url: calendar,
        headers,
        connections: 1,
        body: `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${syncToken}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>`,
      },
      expectedStatus: 207,
      maxP50Ms: 5,
    },
    {
      name: 'caldav-multiget-100',
      title: `CalDAV calendar-multiget of ${hrefs.length} events (Basic, token)`,
      request: {
        method: 'REPORT',
        url: calendar,
        headers,
        connections: 1,
        body: `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop>${hrefs.join('')}</c:calendar-multiget>`,
      },
      expectedStatus: 207,
      maxP50Ms: 50,
    },
  ];
}
