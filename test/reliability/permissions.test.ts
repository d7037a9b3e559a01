/**
 * The permission matrix: route × caller × resource state → expected status,
 * and leak checks (nothing a caller may not read shows up anywhere).
 *
 * Expected statuses come from the reference's meta-capabilities
 * (docs/calendar-compatibility.md: roles, password-protected posts) with
 * deviation 8 (per-object checks on by-slug routes too), the rights of
 * docs/entity-management.md and docs/soap.md. A group whose routes are
 * missing from `/docs/openapi.json` fails.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { can } from '../../src/calendar/calendar.capabilities.ts';
import { can as canOnEntities } from '../../src/entity-management/entity-management.capabilities.ts';
import type { Role } from '../../src/platform/auth/capabilities.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { CALLERS, castOf, ROLE_CALLERS, type Caller } from './support/callers.ts';
import { send } from './support/client.ts';
import { operationsOf, surfacesOf } from './support/openapi.ts';
import { CALENDAR, calendarBody, ENTITIES } from './support/seed.ts';

const server: TestServer = await startTestServer({ AUTH_MAX_FAILURES: '0', AUTH_MAX_FAILURES_PER_ADDRESS: '0' });
const cast = await castOf(server);
const admin = cast.users.administrator;
const surfaces = surfacesOf(operationsOf((await server.request('/docs/openapi.json')).body), CALENDAR);

after(async () => server.close());

/** Sends as a caller; never throws on a status (a 5xx fails the cell, with its body). */
async function call(caller: Caller, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = {};
  const authorization = cast.header(caller);
  if (authorization !== undefined) headers.authorization = authorization;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return send({ method, url: `${server.url}${path}`, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

// ---------------------------------------------------------------------------
// Calendar posts: events, venues, organizers
// ---------------------------------------------------------------------------

const STATES = ['publish', 'draft', 'pending', 'future', 'private', 'password', 'trash'] as const;
type State = (typeof STATES)[number];
type Ownership = 'own' | 'others';
type PostResource = 'events' | 'venues' | 'organizers';
const TABLES: Record<PostResource, 'events' | 'venues' | 'organizers'> = { events: 'events', venues: 'venues', organizers: 'organizers' };
const NAME_FIELD: Record<PostResource, string> = { events: 'title', venues: 'venue', organizers: 'organizer' };

const OPS = ['read', 'read-by-slug', 'update', 'update-by-slug', 'delete', 'delete-by-slug'] as const;
type Op = (typeof OPS)[number];

const isEditorPlus = (role: Role) => can(role, 'edit_others');

/** WordPress `edit_post`: own unpublished with edit, own published with edit_published, others' with edit_others. */
function mayEdit(role: Role, ownership: Ownership, state: State): boolean {
  if (ownership === 'others') return isEditorPlus(role);
  if (state === 'publish' || state === 'password' || state === 'private') return can(role, 'edit_published');
  return can(role, 'edit');
}

function mayDelete(role: Role, ownership: Ownership, state: State): boolean {
  if (ownership === 'others') return can(role, 'delete_others');
  if (state === 'publish' || state === 'password' || state === 'private') return can(role, 'delete_published');
  return can(role, 'delete');
}

/** `read_post`: published for anyone; private for its author or editors; the rest for who may edit it; trash for nobody. */
function mayRead(role: Role | null, ownership: Ownership, state: State): boolean {
  if (state === 'publish' || state === 'password') return true;
  if (role === null || state === 'trash') return false;
  if (state === 'private') return ownership === 'own' || can(role, 'read_private');
  return mayEdit(role, ownership, state);
}

function expectedPost(resource: PostResource, op: Op, caller: Caller, ownership: Ownership, state: State): number[] {
  if (caller === 'wrong-password' || caller === 'revoked-token') return [401];
  const role = caller === 'anonymous' ? null : caller;
  if (op === 'read' || op === 'read-by-slug') {
    // A trashed post is "no longer available" (events) / not accessible (venues, organizers) for everyone;
    // by slug it may not resolve at all (400), which reveals no more.
    if (state === 'trash') return op === 'read-by-slug' ? [400, 403] : [403];
    if (!mayRead(role, ownership, state)) return [403];
    // A locked event is refused; a locked venue or organizer is served stripped (§7).
    if (state === 'password') return resource === 'events' ? [403] : [200];
    return [200];
  }
  if (role === null) return [401];
  if (op === 'update' || op === 'update-by-slug') {
    if (!can(role, 'edit')) return [403];
    return mayEdit(role, ownership, state) ? [200] : [403];
  }
  if (!can(role, 'delete')) return [403];
  if (!mayDelete(role, ownership, state)) return [403];
  return state === 'trash' ? [410] : [200];
}

/** Whose item a caller works on: their own, or somebody else's (the administrator's, or the editor's for the administrator). */
function ownerOf(caller: Caller, ownership: Ownership): number {
  if (ownership === 'own') return cast.idOf(caller) ?? admin.id;
  return caller === 'administrator' ? cast.users.editor.id : admin.id;
}

const FUTURE_UTC = '2099-06-01 10:00:00';

/** Creates an item through the API as the administrator, then puts it in the wanted state and ownership. */
async function postIn(resource: PostResource, state: State, ownerId: number, marker: string) {
  const name = `${resource} ${state} ${marker}`;
  const extra: Record<string, unknown> = state === 'password' ? { password: 'sesame-42' } : {};
  const created = await server.request(`${CALENDAR}/${resource}`, {
    method: 'POST',
    auth: admin,
    body: calendarBody(resource, name, { ...extra, status: 'publish', description: `Body ${marker}` }),
  });
  assert.equal(created.status, 201, `creating a ${resource} item: ${created.text.slice(0, 300)}`);
  const id: number = created.body.id;
  const dbStatus = state === 'password' ? 'publish' : state;
  const db = server.server.store.db;
  await db
    .updateTable(TABLES[resource])
    .set(
      state === 'future'
        ? { status: dbStatus, author_id: ownerId, date_utc: FUTURE_UTC, date: FUTURE_UTC }
        : { status: dbStatus, author_id: ownerId },
    )
    .where('id', '=', id)
    .execute();
  return { id, slug: created.body.slug as string };
}

function requestFor(resource: PostResource, op: Op, item: { id: number; slug: string }): [string, string, unknown] {
  const byId = `${CALENDAR}/${resource}/${item.id}`;
  const bySlug = `${CALENDAR}/${resource}/by-slug/${encodeURIComponent(item.slug)}`;
  const rename = { [NAME_FIELD[resource]]: `renamed ${randomBytes(3).toString('hex')}` };
  switch (op) {
    case 'read':
      return ['GET', byId, undefined];
    case 'read-by-slug':
      return ['GET', bySlug, undefined];
    case 'update':
      return ['POST', byId, rename];
    case 'update-by-slug':
      return ['POST', bySlug, rename];
    case 'delete':
      return ['DELETE', byId, undefined];
    case 'delete-by-slug':
      return ['DELETE', bySlug, undefined];
  }
}

interface Cell {
  readonly op: Op;
  readonly caller: Caller;
  readonly ownership: Ownership;
  readonly state: State;
}

function cellsFor(): Cell[] {
  const cells: Cell[] = [];
  for (const op of OPS) {
    for (const caller of CALLERS) {
      const ownerships: Ownership[] =
        caller === 'contributor' || caller === 'author' || caller === 'editor' || caller === 'administrator'
          ? ['own', 'others']
          : ['others'];
      for (const ownership of ownerships) for (const state of STATES) cells.push({ op, caller, ownership, state });
    }
  }
  return cells;
}

/**
 * Known defects in other surfaces, kept out of the default run until fixed
 * (PERMISSIONS_KNOWN_DEFECTS=1 runs them): resource + cell predicate + why.
 */
const KNOWN_DEFECTS: readonly { readonly resource: PostResource; readonly matches: (cell: Cell) => boolean; readonly note: string }[] = [];

let matrixCells = 0;

for (const resource of ['events', 'venues', 'organizers'] as const) {
  describe(`permission matrix: ${resource}`, () => {
    it(`route × caller × state → status, and no content of a refused item in the answer`, async () => {
      // The matrix is built from the served document: a route missing from it is a failure, not a smaller matrix.
      assert.ok(surfaces[resource], `${resource} routes are missing from /docs/openapi.json`);
      const failures: string[] = [];
      const cells = cellsFor().filter(
        (cell) => process.env.PERMISSIONS_KNOWN_DEFECTS === '1' || !KNOWN_DEFECTS.some((d) => d.resource === resource && d.matches(cell)),
      );
      // Reads share one item per (owner, state); every write cell gets its own item.
      const shared = new Map<string, Promise<{ id: number; slug: string }>>();
      const itemFor = (cell: Cell, marker: string) => {
        const ownerId = ownerOf(cell.caller, cell.ownership);
        if (cell.op.startsWith('read')) {
          const key = `${ownerId}:${cell.state}`;
          if (!shared.has(key)) shared.set(key, postIn(resource, cell.state, ownerId, marker));
          return shared.get(key)!;
        }
        return postIn(resource, cell.state, ownerId, marker);
      };
      const BATCH = 8;
      for (let start = 0; start < cells.length; start += BATCH) {
        await Promise.all(
          cells.slice(start, start + BATCH).map(async (cell) => {
            const marker = `MK${randomBytes(5).toString('hex')}`;
            const item = await itemFor(cell, marker);
            const [method, path, body] = requestFor(resource, cell.op, item);
            const response = await call(cell.caller, method, path, body);
            const expected = expectedPost(resource, cell.op, cell.caller, cell.ownership, cell.state);
            const label = `${cell.op} as ${cell.caller} on ${cell.ownership} ${cell.state} (${method} ${path})`;
            if (!expected.includes(response.status)) {
              failures.push(`${label}: expected ${expected.join('|')}, got ${response.status} ${response.text.slice(0, 160)}`);
            }
            // A refused read, and a stripped password-protected one, never shows the item's content.
            const refusedRead = cell.op.startsWith('read') && (response.status !== 200 || cell.state === 'password');
            const refusedWrite = !cell.op.startsWith('read') && response.status >= 400;
            const leaked = cell.state === 'password' ? `Body ${marker}` : marker;
            if ((refusedRead || refusedWrite) && response.text.toLowerCase().includes(leaked.toLowerCase())) {
              failures.push(`${label}: the ${response.status} answer contains the item's content`);
            }
          }),
        );
      }
      matrixCells += cells.length;
      assert.deepEqual(failures, [], `${failures.length} of ${cells.length} cells differ:\n${failures.slice(0, 40).join('\n')}`);
    });
  });
}

// ---------------------------------------------------------------------------
// Terms
// ---------------------------------------------------------------------------

for (const taxonomy of ['categories', 'tags'] as const) {
  describe(`permission matrix: ${taxonomy}`, () => {
    it('read is public; create, update and delete need the taxonomy right', async () => {
      assert.ok(surfaces[taxonomy], `${taxonomy} routes are missing from /docs/openapi.json`);
      const manage = taxonomy === 'categories' ? 'manage_categories' : 'manage_tags';
      const failures: string[] = [];
      const newTerm = async () => {
        const response = await server.request(`${CALENDAR}/${taxonomy}`, {
          method: 'POST',
          auth: admin,
          body: { name: `term ${randomBytes(5).toString('hex')}` },
        });
        assert.equal(response.status, 201, response.text);
        return response.body.id as number;
      };
      const readable = await newTerm();
      await Promise.all(
        CALLERS.map(async (caller) => {
          const role = caller === 'anonymous' || caller === 'wrong-password' || caller === 'revoked-token' ? null : caller;
          const denied =
            caller === 'wrong-password' || caller === 'revoked-token' || role === null ? 401 : can(role, manage) ? undefined : 403;
          const cases: [string, string, string, unknown, number][] = [
            [
              'read',
              'GET',
              `${CALENDAR}/${taxonomy}/${readable}`,
              undefined,
              caller === 'wrong-password' || caller === 'revoked-token' ? 401 : 200,
            ],
            ['create', 'POST', `${CALENDAR}/${taxonomy}`, { name: `term ${randomBytes(5).toString('hex')}` }, denied ?? 201],
            ['update', 'POST', `${CALENDAR}/${taxonomy}/${await newTerm()}`, { description: 'changed' }, denied ?? 200],
            ['delete', 'DELETE', `${CALENDAR}/${taxonomy}/${await newTerm()}`, undefined, denied ?? 200],
          ];
          for (const [name, method, path, body, expected] of cases) {
            const response = await call(caller, method, path, body);
            matrixCells += 1;
            if (response.status !== expected)
              failures.push(`${name} as ${caller}: expected ${expected}, got ${response.status} ${response.text.slice(0, 160)}`);
          }
        }),
      );
      assert.deepEqual(failures, []);
    });
  });
}

// ---------------------------------------------------------------------------
// Entity management and the SOAP ping log
// ---------------------------------------------------------------------------

describe('permission matrix: entity management', () => {
  it('every route needs a signed-in user; writes need editor or above; reload needs administrator', async () => {
    assert.ok(surfaces.entities, 'entity-management routes are missing from /docs/openapi.json');
    const failures: string[] = [];
    const key = () => `K${randomBytes(5).toString('hex')}`;
    const seeded = async () => {
      const k = key();
      const response = await server.request(`${ENTITIES}/customers`, {
        method: 'POST',
        auth: admin,
        body: { key: k, CompanyName: 'Seeded S.r.l.' },
      });
      assert.equal(response.status, 201, response.text);
      return k;
    };
    const existing = await seeded();
    for (const caller of CALLERS) {
      const role = caller === 'anonymous' || caller === 'wrong-password' || caller === 'revoked-token' ? null : caller;
      const refused = role === null ? 401 : undefined;
      const writer = role !== null && canOnEntities(role, 'entities_write');
      const cases: [string, string, string, unknown, number][] = [
        ['list', 'GET', `${ENTITIES}/customers`, undefined, refused ?? 200],
        ['get', 'GET', `${ENTITIES}/customers/${existing}`, undefined, refused ?? 200],
        ['create', 'POST', `${ENTITIES}/customers`, { key: key(), CompanyName: 'New S.p.A.' }, refused ?? (writer ? 201 : 403)],
        ['update', 'PUT', `${ENTITIES}/customers/${await seeded()}`, { CompanyName: 'Changed' }, refused ?? (writer ? 200 : 403)],
        ['delete', 'DELETE', `${ENTITIES}/customers/${await seeded()}`, undefined, refused ?? (writer ? 200 : 403)],
      ];
      if (surfaces.actions) {
        cases.push(['actions', 'GET', '/apiservice/api/services/actions', undefined, refused ?? 200]);
        cases.push(['reload', 'POST', '/apiservice/api/services/actions/reload', {}, refused ?? (role === 'administrator' ? 200 : 403)]);
      }
      for (const [name, method, path, body, expected] of cases) {
        const response = await call(caller, method, path, body);
        matrixCells += 1;
        if (response.status !== expected)
          failures.push(`${name} as ${caller}: expected ${expected}, got ${response.status} ${response.text.slice(0, 160)}`);
      }
    }
    assert.deepEqual(failures, []);
  });
});

describe('permission matrix: SOAP ping log and ping credentials', () => {
  it('only administrators list pings; bad credentials on a ping are a FailedAuthentication fault', async () => {
    assert.ok(surfaces.soapPings, 'the SOAP ping log is missing from /docs/openapi.json');
    const failures: string[] = [];
    const envelope =
      '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>' +
      '<p:pingStringInput xmlns:p="http://com/ibm/was/wssample/sei/ping/"><pingInput>matrix</pingInput></p:pingStringInput>' +
      '</soap:Body></soap:Envelope>';
    for (const caller of CALLERS) {
      const role = caller === 'anonymous' || caller === 'wrong-password' || caller === 'revoked-token' ? null : caller;
      const list = await call(caller, 'GET', '/soap/pings');
      const expected = role === null ? 401 : role === 'administrator' ? 200 : 403;
      if (list.status !== expected) failures.push(`GET /soap/pings as ${caller}: expected ${expected}, got ${list.status}`);
      const headers: Record<string, string> = { 'content-type': 'text/xml; charset=utf-8', soapaction: '"pingOperation"' };
      const authorization = cast.header(caller);
      if (authorization !== undefined) headers.authorization = authorization;
      const ping = await send({ method: 'POST', url: `${server.url}/soap/PingService`, headers, body: envelope });
      const badCredentials = caller === 'wrong-password' || caller === 'revoked-token';
      const pingOk = badCredentials ? ping.status === 500 && /FailedAuthentication/.test(ping.text) : ping.status === 202;
      if (!pingOk) failures.push(`ping as ${caller}: got ${ping.status} ${ping.text.slice(0, 160)}`);
      matrixCells += 2;
    }
    assert.deepEqual(failures, []);
  });
});

// ---------------------------------------------------------------------------
// Leaks: lists, embedded objects, discovery documents, error messages
// ---------------------------------------------------------------------------

describe('leak checks', () => {
  it('no list, embedded object, discovery document or error message shows an unreadable item to anonymous, subscriber, contributor or author callers', async () => {
    assert.ok(surfaces.events && surfaces.venues && surfaces.organizers, '/docs/openapi.json lacks event, venue or organizer routes');
    const markers = new Map<string, string>();
    const plant = (what: string) => {
      const marker = `LK${randomBytes(6).toString('hex')}`;
      markers.set(marker, what);
      return marker;
    };
    const items: { resource: PostResource; id: number; slug: string }[] = [];
    for (const resource of (['events', 'venues', 'organizers'] as const).filter((r) => surfaces[r])) {
      for (const state of ['draft', 'pending', 'future', 'private', 'trash'] as const) {
        const marker = plant(`${state} ${resource} title/description`);
        items.push({ resource, ...(await postIn(resource, state, admin.id, marker)) });
      }
      // Title and slug of a password-protected item are public (as in the reference); its content is not.
      const marker = plant(`password-protected ${resource} description`);
      const locked = await postIn(resource, 'password', admin.id, `open-${randomBytes(3).toString('hex')}`);
      await server.request(`${CALENDAR}/${resource}/${locked.id}`, {
        method: 'POST',
        auth: admin,
        body: { description: `Body ${marker}` },
      });
      items.push({ resource, ...locked });
    }
    // A published event that links a private venue and a draft organizer: the embedded objects must not show them.
    const linked: Record<string, unknown> = {};
    if (surfaces.venues) {
      const venue = await postIn('venues', 'private', admin.id, plant('private venue embedded in a published event'));
      linked.venue = venue.id;
    }
    if (surfaces.organizers) {
      const organizer = await postIn('organizers', 'draft', admin.id, plant('draft organizer embedded in a published event'));
      linked.organizer = [organizer.id];
    }
    const pages = ['/', CALENDAR, `${CALENDAR}/doc`, '/docs/openapi.json'];
    if (surfaces.events) {
      const host = await server.request(`${CALENDAR}/events`, {
        method: 'POST',
        auth: admin,
        body: calendarBody('events', 'Public host event', { ...linked, status: 'publish' }),
      });
      assert.equal(host.status, 201, host.text);
      pages.push(`${CALENDAR}/events/${host.body.id}`, `${CALENDAR}/events/by-slug/${host.body.slug}`);
      pages.push(
        `${CALENDAR}/events?start_date=2000-01-01&end_date=2100-01-01&per_page=50`,
        `${CALENDAR}/events?start_date=2000-01-01&end_date=2100-01-01&status=any&per_page=50`,
      );
      for (const [marker] of markers) pages.push(`${CALENDAR}/events?search=${marker}&start_date=2000-01-01`);
    }
    for (const resource of (['events', 'venues', 'organizers'] as const).filter((r) => surfaces[r])) {
      pages.push(
        `${CALENDAR}/${resource}`,
        `${CALENDAR}/${resource}?per_page=50`,
        `${CALENDAR}/${resource}?status=any&per_page=50`,
        `${CALENDAR}/${resource}?status=draft`,
        `${CALENDAR}/${resource}?status=private`,
        `${CALENDAR}/${resource}?search=LK`,
      );
    }
    for (const item of items) {
      pages.push(`${CALENDAR}/${item.resource}/${item.id}`, `${CALENDAR}/${item.resource}/by-slug/${encodeURIComponent(item.slug)}`);
    }
    for (const [marker] of markers) {
      for (const resource of (['venues', 'organizers'] as const).filter((r) => surfaces[r]))
        pages.push(`${CALENDAR}/${resource}?search=${marker}`);
    }
    if (surfaces.categories) pages.push(`${CALENDAR}/categories?hide_empty=false`);
    if (surfaces.tags) pages.push(`${CALENDAR}/tags?hide_empty=false`);

    const leaks: string[] = [];
    for (const caller of ['anonymous', 'subscriber', 'contributor', 'author'] as const) {
      for (const page of pages) {
        const response = await call(caller, 'GET', page);
        if (response.status >= 500) leaks.push(`${caller} GET ${page}: ${response.status}`);
        // A search term is echoed in `rest_url`: that is the caller's own input, not a leak.
        const text = response.text.toLowerCase().replace(/search=lk[0-9a-f]{12}/g, 'search=');
        for (const [marker, what] of markers) {
          if (text.includes(marker.toLowerCase())) leaks.push(`${caller} GET ${page} (${response.status}) shows the ${what}`);
        }
      }
    }
    matrixCells += 4 * pages.length;
    assert.deepEqual(leaks, [], `${leaks.length} leak(s):\n${leaks.slice(0, 40).join('\n')}`);
  });
});

describe('matrix size', () => {
  it('reports the number of cells checked', () => {
    console.log(`permissions: ${matrixCells} cells checked (roles: ${ROLE_CALLERS.length} + anonymous + 2 bad credentials)`);
  });
});
