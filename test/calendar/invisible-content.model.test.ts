/**
 * Invisible means absent, as a property (issue 19.1): for random content, an
 * anonymous caller's answers over a database holding hidden content equal
 * its answers over a database where that content does not exist.
 *
 * Server A gets each scenario as generated. Server B gets the same writes in
 * the same order (so ids match) minus what anonymous callers may not see:
 * unpublished posts keep no name, text, coordinates or links; a protected
 * post keeps what it shows (title or name, dates, its password) and nothing
 * it strips; an event keeps no link to a venue or organizer it may not show.
 * Then every query of a fixed family — searches, filters, geolocation,
 * linked-item routes, term counts — must answer alike on both.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS } from './events.factories.ts';
import { NS, ORGANIZERS, VENUES } from './venues-organizers.factories.ts';

const WORDS = ['amber', 'basil', 'cedar', 'delta'] as const;
const POINTS = [
  [45.46, 9.19],
  [-33.92, 18.42],
] as const;
const CATEGORIES = ['cat-one', 'cat-two'] as const;
const TAGS = ['tag-one'] as const;

type Status = 'publish' | 'draft' | 'private';

interface VenueSpec {
  status: Status;
  password: boolean;
  name: string;
  city: string;
  point: number | null;
}
interface OrganizerSpec {
  status: Status;
  password: boolean;
  name: string;
  email: string;
}
interface EventSpec {
  status: Status;
  password: boolean;
  title: string;
  text: string;
  venue: number | null;
  organizers: number[];
  categories: string[];
  tags: string[];
  featured: boolean;
  day: number;
}
interface Scenario {
  venues: VenueSpec[];
  organizers: OrganizerSpec[];
  events: EventSpec[];
}

const word = fc.constantFrom(...WORDS);
const status = fc.constantFrom<Status>('publish', 'publish', 'draft', 'private');
const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  venues: fc.array(
    fc.record({ status, password: fc.boolean(), name: word, city: word, point: fc.option(fc.constantFrom(0, 1), { nil: null }) }),
    { maxLength: 3 },
  ),
  organizers: fc.array(fc.record({ status, password: fc.boolean(), name: word, email: word }), { maxLength: 2 }),
  events: fc.array(
    fc.record({
      status,
      password: fc.boolean(),
      title: word,
      text: word,
      venue: fc.option(fc.nat(2), { nil: null }),
      organizers: fc.uniqueArray(fc.nat(1), { maxLength: 2 }),
      categories: fc.subarray([...CATEGORIES]),
      tags: fc.subarray([...TAGS]),
      featured: fc.boolean(),
      day: fc.integer({ min: 1, max: 27 }),
    }),
    { minLength: 1, maxLength: 5 },
  ),
});

/** What anonymous callers see of a post: published ones only. */
const shown = (spec: { status: Status }) => spec.status === 'publish';

/** The writes of a scenario; without `withHidden`, what anonymous callers may not see is left out. */
function venueBody(spec: VenueSpec, withHidden: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { status: spec.status, venue: spec.name };
  if (spec.password) body.password = 'pw';
  if (!withHidden && !shown(spec)) return { ...body, venue: 'x' };
  if (!withHidden && spec.password) return body;
  const point = spec.point === null ? undefined : POINTS[spec.point];
  return {
    ...body,
    city: spec.city,
    address: `${spec.city} street`,
    ...(point === undefined ? {} : { geo_lat: point[0], geo_lng: point[1] }),
  };
}

function organizerBody(spec: OrganizerSpec, withHidden: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { status: spec.status, organizer: spec.name };
  if (spec.password) body.password = 'pw';
  if (!withHidden && !shown(spec)) return { ...body, organizer: 'x' };
  if (!withHidden && spec.password) return body;
  return { ...body, email: `${spec.email}@example.org` };
}

function eventBody(
  spec: EventSpec,
  scenario: Scenario,
  ids: { venues: number[]; organizers: number[] },
  year: number,
  withHidden: boolean,
) {
  const day = String(spec.day).padStart(2, '0');
  const body: Record<string, unknown> = {
    status: spec.status,
    title: spec.title,
    start_date: `${year}-06-${day} 10:00`,
    end_date: `${year}-06-${day} 11:00`,
  };
  if (spec.password) body.password = 'pw';
  if (!withHidden && !shown(spec)) return { ...body, title: 'x' };
  if (!withHidden && spec.password) return body;
  const venue = spec.venue === null ? undefined : scenario.venues[spec.venue];
  const venueShown = (index: number) => withHidden || shown(scenario.venues[index]!);
  const organizers = spec.organizers.filter((index) => index < scenario.organizers.length);
  return {
    ...body,
    description: spec.text,
    featured: spec.featured,
    categories: spec.categories,
    tags: spec.tags,
    ...(venue !== undefined && venueShown(spec.venue!) ? { venue: ids.venues[spec.venue!] } : {}),
    organizer: organizers.filter((index) => withHidden || shown(scenario.organizers[index]!)).map((index) => ids.organizers[index]),
  };
}

/** An answer reduced to what may differ if hidden content leaked: status, error code, listed ids, totals, counts. */
function digest(status: number, body: any): unknown {
  if (status !== 200) return { status, code: body?.code };
  const key = ['events', 'venues', 'organizers', 'categories', 'tags'].find((name) => Array.isArray(body?.[name]));
  if (key === undefined) return { status };
  const items = (body[key] as { id: number; count?: number }[]).map((item) => (item.count === undefined ? item.id : [item.id, item.count]));
  return { status, total: body.total, items };
}

describe('invisible means absent: the anonymous answers over hidden content equal those without it', () => {
  let full: TestServer;
  let model: TestServer;
  let fullAdmin: Credentials;
  let modelAdmin: Credentials;
  before(async () => {
    [full, model] = await Promise.all([startTestServer(), startTestServer()]);
    [fullAdmin, modelAdmin] = await Promise.all([full.admin(), model.admin()]);
    // Terms exist on both from the start: creating one through a hidden link would itself be a difference.
    for (const [taxonomy, names] of [
      ['categories', CATEGORIES],
      ['tags', TAGS],
    ] as const) {
      for (const name of names) {
        for (const [server, admin] of [
          [full, fullAdmin],
          [model, modelAdmin],
        ] as const) {
          const created = await server.request(`${NS}/${taxonomy}`, { method: 'POST', auth: admin, body: { name } });
          assert.equal(created.status, 201, created.text);
        }
      }
    }
  });
  after(async () => Promise.all([full.close(), model.close()]));

  let run = 0;
  const create = async (path: string, bodies: [Record<string, unknown>, Record<string, unknown>]) => {
    const [a, b] = await Promise.all([
      full.request(path, { method: 'POST', auth: fullAdmin, body: bodies[0] }),
      model.request(path, { method: 'POST', auth: modelAdmin, body: bodies[1] }),
    ]);
    assert.equal(a.status, 201, a.text);
    assert.equal(b.status, 201, b.text);
    assert.equal(a.body.id, b.body.id, 'both servers give the same ids');
    return a.body.id as number;
  };

  it('holds for random content and the query family', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        run += 1;
        const year = 2040 + run;
        const ids = { venues: [] as number[], organizers: [] as number[], events: [] as number[] };
        for (const spec of scenario.venues) ids.venues.push(await create(VENUES, [venueBody(spec, true), venueBody(spec, false)]));
        for (const spec of scenario.organizers)
          ids.organizers.push(await create(ORGANIZERS, [organizerBody(spec, true), organizerBody(spec, false)]));
        for (const spec of scenario.events) {
          ids.events.push(await create(EVENTS, [eventBody(spec, scenario, ids, year, true), eventBody(spec, scenario, ids, year, false)]));
        }

        const window = `start_date=${year}-06-01&end_date=${year}-06-30&per_page=50`;
        const queries = [
          ...WORDS.flatMap((term) => [
            `${EVENTS}?${window}&search=${term}`,
            `${VENUES}?per_page=50&search=${term}`,
            `${ORGANIZERS}?per_page=50&search=${term}`,
          ]),
          ...ids.venues.map((id) => `${EVENTS}?${window}&venue=${id}`),
          ...ids.organizers.map((id) => `${EVENTS}?${window}&organizer=${id}`),
          ...[...CATEGORIES].map((slug) => `${EVENTS}?${window}&categories=${slug}`),
          ...[...TAGS].map((slug) => `${EVENTS}?${window}&tags=${slug}`),
          ...['true', 'false'].flatMap((flag) => [`${EVENTS}?${window}&featured=${flag}`, `${EVENTS}?${window}&geoloc=${flag}`]),
          ...POINTS.map(([lat, lng]) => `${EVENTS}?${window}&geoloc_lat=${lat}&geoloc_lng=${lng}&geoloc_radius=10`),
          ...ids.events.flatMap((id) => [
            `${VENUES}?event=${id}`,
            `${ORGANIZERS}?event=${id}`,
            `${NS}/categories?hide_empty=false&event=${id}`,
            `${NS}/tags?hide_empty=false&event=${id}`,
          ]),
          `${VENUES}?per_page=50&has_events=true`,
          `${ORGANIZERS}?per_page=50&has_events=true`,
          `${VENUES}?per_page=50&only_with_upcoming=true`,
          `${NS}/categories`,
          `${NS}/tags`,
          `${NS}/categories?hide_empty=false&orderby=count`,
        ];
        for (const query of queries) {
          const [a, b] = await Promise.all([full.request(query), model.request(query)]);
          assert.deepEqual(digest(a.status, a.body), digest(b.status, b.body), `${query} answers as if the hidden content did not exist`);
        }
      }),
      // The servers keep every earlier run's content, so a shrunk scenario would not be the one that failed.
      { numRuns: 12, endOnFailure: true },
    );
  });
});
