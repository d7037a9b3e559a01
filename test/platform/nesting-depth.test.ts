/**
 * Bounded nesting: a JSON body nested deeper than JSON_LIMITS.depth is a 400
 * in each surface's error shape before any recursive code sees it, a form
 * body or query string deeper than PARAMETER_LIMITS.depth likewise, and the
 * depth count itself cannot overflow whatever it is given.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { JSON_LIMITS, jsonNestingDepth, nonFinitePath } from '../../src/platform/http/json-limits.ts';
import { PARAMETER_LIMITS } from '../../src/platform/http/querystring.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { ACTIONS, ENTITIES, makeCustomer } from '../entity-management/factories.ts';

const CALENDAR = '/calendar/events/v1';
const LIMIT = JSON_LIMITS.depth;

/** What the red team sent: thousands of levels, far past any stack. */
const DEEP = 9000;

/** JSON text of `levels` arrays inside one another. */
function nestedArrays(levels: number): string {
  return `${'['.repeat(levels)}${']'.repeat(levels)}`;
}

/** JSON text of `levels` objects inside one another, a string at the bottom. */
function nestedObjects(levels: number): string {
  return `${'{"a":'.repeat(levels)}"x"${'}'.repeat(levels)}`;
}

/** The depth the parser's count must agree with, by plain recursion (shallow values only). */
function referenceDepth(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  return 1 + Math.max(0, ...Object.values(value).map(referenceDepth));
}

function unique(prefix: string): string {
  return `${prefix} ${randomBytes(4).toString('hex')}`;
}

describe('jsonNestingDepth', () => {
  // Strings full of brackets, quotes and backslashes: only brackets outside strings count.
  const tricky = fc.string({ unit: fc.constantFrom('"', '\\', '[', ']', '{', '}', ',', ':', 'a', ' ', '\u00e9'), maxLength: 8 });
  const scalar = fc.oneof(fc.constant(null), fc.boolean(), fc.double({ noNaN: true, noDefaultInfinity: true }), tricky);
  // Containers as likely as scalars, so depths up to ten or so come up in every run.
  const { value: jsonValue } = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'medium', maxDepth: 12 }, scalar, tie('array'), tie('object')),
    array: fc.array(tie('value'), { maxLength: 3 }),
    object: fc.dictionary(tricky, tie('value'), { maxKeys: 3 }),
  }));

  it('equals the recursive depth of any JSON value, however it is spaced', () => {
    fc.assert(
      fc.property(jsonValue, fc.constantFrom(undefined, 1, '\t'), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        const depth = referenceDepth(value);
        assert.equal(jsonNestingDepth(text), depth);
        // Stopping early never hides a depth over the bound.
        assert.equal(jsonNestingDepth(text, 2) > 2, depth > 2);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on deep text, counts it exactly, and stops as soon as it passes the bound', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('array', 'object'), { minLength: 1_000, maxLength: 20_000 }), tricky, (kinds, bottom) => {
        const open = kinds.map((kind) => (kind === 'array' ? '[' : '{"k\\"[":')).join('');
        const close = kinds
          .map((kind) => (kind === 'array' ? ']' : '}'))
          .reverse()
          .join('');
        const text = `${open}${JSON.stringify(bottom)}${close}`;
        assert.equal(jsonNestingDepth(text), kinds.length);
        assert.equal(jsonNestingDepth(text, LIMIT), LIMIT + 1);
        // V8's JSON.parse copes with the depth; the walk for non-finite numbers must too.
        const withInfinity = JSON.parse(`${open}1e309${close}`) as unknown;
        assert.equal(nonFinitePath(withInfinity)?.length, kinds.length);
        assert.equal(nonFinitePath(JSON.parse(text)), undefined);
      }),
      { numRuns: 25 },
    );
  });

  it('counts unbalanced or broken text without throwing (the parser refuses it afterwards)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a'), maxLength: 200 }), (text) => {
        const depth = jsonNestingDepth(text);
        assert.ok(Number.isInteger(depth) && depth >= 0);
      }),
    );
  });
});

describe('nonFinitePath', () => {
  it('finds the number JSON.parse read as Infinity, by the keys leading to it', () => {
    assert.deepEqual(nonFinitePath(JSON.parse('{"a":[1,{"b":-1e309}]}')), ['a', '1', 'b']);
    assert.deepEqual(nonFinitePath(JSON.parse('1e309')), []);
    assert.equal(nonFinitePath(JSON.parse('{"a":[1e308,-1e308,"1e309"]}')), undefined);
  });
});

describe('nesting depth of request bodies and query strings', () => {
  let server: TestServer;
  let admin: Credentials;

  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  const postJson = (path: string, text: string, method = 'POST') =>
    server.request(path, { method, body: text, auth: admin, headers: { 'content-type': 'application/json' } });

  const eventBody = (title: string, rest: string) =>
    `{"title":${JSON.stringify(title)},"start_date":"tomorrow","end_date":"tomorrow",${rest}}`;

  const eventsTitled = async (title: string) =>
    (await server.request(`${CALENDAR}/events?status=any&search=${encodeURIComponent(title)}`, { auth: admin })).body.events.length;

  function assertTooDeepOnCalendar(response: { status: number; body: any }): void {
    assert.equal(response.status, 400, JSON.stringify(response.body));
    assert.equal(response.body.code, 'rest_invalid_json');
    assert.match(response.body.message, new RegExp(`deeper than ${LIMIT} levels`));
    assert.equal(response.body.data.max_depth, LIMIT);
  }

  function assertTooDeepOnEntities(response: { status: number; body: any }): void {
    assert.equal(response.status, 400, JSON.stringify(response.body));
    assert.equal(response.body.payload, null);
    assert.equal(response.body.messages[0].code, 'INVALID_PARAMETER');
    assert.match(response.body.messages[0].text, new RegExp(`deeper than ${LIMIT} levels`));
    assert.deepEqual(response.body.messages[0].details, { max_depth: LIMIT });
  }

  it('refuses an event whose organizer is nested thousands of arrays or objects deep with rest_invalid_json, writing nothing', async () => {
    for (const nested of [nestedArrays(DEEP), nestedObjects(DEEP), nestedArrays(LIMIT)]) {
      const title = unique('Deep organizer');
      assertTooDeepOnCalendar(await postJson(`${CALENDAR}/events`, eventBody(title, `"organizer":${nested}`)));
      assert.equal(await eventsTitled(title), 0);
    }
    assertTooDeepOnCalendar(await postJson(`${CALENDAR}/events`, nestedArrays(DEEP)));
  });

  it('refuses deep bodies on event updates and venue writes too', async () => {
    const title = unique('Shallow');
    const created = await postJson(`${CALENDAR}/events`, eventBody(title, '"status":"draft"'));
    assert.equal(created.status, 201, created.text);
    assertTooDeepOnCalendar(await postJson(`${CALENDAR}/events/${created.body.id}`, `{"title":"changed","venue":${nestedObjects(DEEP)}}`));
    assert.equal((await server.request(`${CALENDAR}/events/${created.body.id}`, { auth: admin })).body.title, title);
    const venue = unique('Deep hall');
    assertTooDeepOnCalendar(await postJson(`${CALENDAR}/venues`, `{"venue":${JSON.stringify(venue)},"city":${nestedArrays(DEEP)}}`));
    const venues = await server.request(`${CALENDAR}/venues?status=any&search=${encodeURIComponent(venue)}`, { auth: admin });
    assert.equal(venues.body.venues.length, 0);
  });

  it('takes an event whose inline venue reaches exactly the limit, and refuses one level more', async () => {
    // The body is level 1, the venue object level 2: its ignored extra argument fills the rest.
    const atLimit = unique('At the limit');
    const accepted = await postJson(
      `${CALENDAR}/events`,
      eventBody(atLimit, `"venue":{"venue":${JSON.stringify(atLimit)},"extra":${nestedArrays(LIMIT - 2)}}`),
    );
    assert.equal(accepted.status, 201, accepted.text);
    assert.equal(accepted.body.venue.venue, atLimit);
    const overLimit = unique('Over the limit');
    assertTooDeepOnCalendar(
      await postJson(
        `${CALENDAR}/events`,
        eventBody(overLimit, `"venue":{"venue":${JSON.stringify(overLimit)},"extra":${nestedArrays(LIMIT - 1)}}`),
      ),
    );
    assert.equal(await eventsTitled(overLimit), 0);
  });

  it('refuses deep bodies on entity writes and action runs in the envelope, writing nothing', async () => {
    const customer = makeCustomer();
    const key = String(customer.key);
    for (const nested of [nestedArrays(DEEP), nestedObjects(DEEP)]) {
      assertTooDeepOnEntities(await postJson(`${ENTITIES}/customers`, `{"key":"${key}","CompanyName":${nested}}`));
      assert.equal((await server.request(`${ENTITIES}/customers/${key}`, { auth: admin })).status, 404);
    }
    const created = await server.request(`${ENTITIES}/customers`, { method: 'POST', body: customer, auth: admin });
    assert.equal(created.status, 201, created.text);
    assertTooDeepOnEntities(await postJson(`${ENTITIES}/customers/${key}`, `{"CompanyName":${nestedArrays(DEEP)}}`, 'PUT'));
    assertTooDeepOnEntities(await postJson(`${ENTITIES}/customers`, `{"key":"${key}","CompanyName":${nestedObjects(DEEP)}}`, 'PUT'));
    const stored = await server.request(`${ENTITIES}/customers/${key}`, { auth: admin });
    assert.equal(stored.body.payload.CompanyName, customer.CompanyName);
    assertTooDeepOnEntities(await postJson(`${ACTIONS}/CUSTOMERS_BY_CITY/run`, `{"city":${nestedArrays(DEEP)}}`));
  });

  it('lets an action run body at exactly the limit reach the parameter check, and refuses one level more', async () => {
    const atLimit = await postJson(`${ACTIONS}/CUSTOMERS_BY_CITY/run`, `{"city":${nestedArrays(LIMIT - 1)}}`);
    assert.equal(atLimit.status, 422, atLimit.text);
    assert.equal(atLimit.body.messages[0].code, 'ACTION_PARAMS_INVALID');
    assert.deepEqual(Object.keys(atLimit.body.messages[0].details), ['city']);
    assertTooDeepOnEntities(await postJson(`${ACTIONS}/CUSTOMERS_BY_CITY/run`, `{"city":${nestedArrays(LIMIT)}}`));
  });

  it('refuses form bodies nested past the bracket limit, by name, on both surfaces', async () => {
    const deepName = (name: string, levels: number) => `${name}${'[0]'.repeat(levels)}`;
    const title = unique('Deep form');
    for (const levels of [PARAMETER_LIMITS.depth + 1, DEEP]) {
      const event = await server.request(`${CALENDAR}/events`, {
        method: 'POST',
        auth: admin,
        form: { title, start_date: 'tomorrow', end_date: 'tomorrow', [deepName('organizer', levels)]: '1' },
      });
      assert.equal(event.status, 400, event.text);
      assert.equal(event.body.code, 'rest_invalid_param');
      assert.match(event.body.data.params.organizer, new RegExp(`deeper than ${PARAMETER_LIMITS.depth} levels`));
      const key = `DEEPFORM-${levels}`;
      const record = await server.request(`${ENTITIES}/customers`, {
        method: 'POST',
        auth: admin,
        form: { key, [deepName('CompanyName', levels)]: 'x' },
      });
      assert.equal(record.status, 400, record.text);
      assert.equal(record.body.messages[0].code, 'INVALID_PARAMETER');
      assert.match(record.body.messages[0].details.CompanyName, /deeper than/);
      assert.equal((await server.request(`${ENTITIES}/customers/${key}`, { auth: admin })).status, 404);
    }
    assert.equal(await eventsTitled(title), 0);
  });

  it('refuses query strings nested past the bracket limit, by name, on both surfaces', async () => {
    const deep = (name: string, levels: number) => `${name}${'[x]'.repeat(levels)}=1`;
    for (const levels of [PARAMETER_LIMITS.depth + 1, 2000]) {
      const events = await server.request(`${CALENDAR}/events?${deep('venue', levels)}`, { auth: admin });
      assert.equal(events.status, 400, events.text);
      assert.equal(events.body.code, 'rest_invalid_param');
      assert.match(events.body.data.params.venue, /deeper than/);
      const records = await server.request(`${ENTITIES}/customers?${deep('filter', levels)}`, { auth: admin });
      assert.equal(records.status, 400, records.text);
      assert.equal(records.body.messages[0].code, 'INVALID_PARAMETER');
      assert.match(records.body.messages[0].details.filter, /deeper than/);
    }
    // At the limit the value is read, and refused for what it is rather than for its depth.
    const atLimit = await server.request(`${ENTITIES}/customers?${deep('filter', PARAMETER_LIMITS.depth)}`, { auth: admin });
    assert.equal(atLimit.status, 400);
    assert.doesNotMatch(atLimit.body.messages[0].details.filter, /deeper than/);
  });
});
