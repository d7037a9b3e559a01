/**
 * Concurrent writers: no lost or torn update (the final state is exactly one
 * of the writes: last write wins, per item), unique slugs and keys under
 * parallel creates, correct term counts under parallel assignment, no 500,
 * no deadlock (every request answers within the client's timeout).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { send } from './support/client.ts';
import { operationsOf, surfacesOf } from './support/openapi.ts';
import { CALENDAR, calendarBody, createCalendarItem, createCustomer, ENTITIES } from './support/seed.ts';

const PARALLEL = 16;
const server: TestServer = await startTestServer();
const admin: Credentials = await server.admin();
const surfaces = surfacesOf(operationsOf((await server.request('/docs/openapi.json')).body), CALENDAR);
after(async () => server.close());

/** Fires `count` requests at once; each answer is checked to be below 500. */
async function burst(count: number, request: (i: number) => { method: string; path: string; body?: unknown }) {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const { method, path, body } = request(i);
      const response = await send({
        method,
        url: `${server.url}${path}`,
        headers: { authorization: admin.bearer, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      assert.ok(response.status > 0 && response.status < 500, `${method} ${path}: ${response.status} ${response.text.slice(0, 300)}`);
      return response;
    }),
  );
}

const NAME_FIELD = { events: 'title', venues: 'venue', organizers: 'organizer' } as const;

for (const resource of ['events', 'venues', 'organizers'] as const) {
  describe(`concurrent writes: ${resource}`, () => {
    it(`${PARALLEL} parallel updates of one item leave exactly one of the writes`, async () => {
      assert.ok(surfaces[resource], `${resource} routes are missing from /docs/openapi.json`);
      const item = await createCalendarItem(server, resource, admin);
      const name = NAME_FIELD[resource];
      const responses = await burst(PARALLEL, (i) => ({
        method: 'POST',
        path: `${CALENDAR}/${resource}/${item.id}`,
        body: { [name]: `write ${i}`, description: `description of write ${i}` },
      }));
      assert.deepEqual(
        responses.map((r) => r.status),
        Array(PARALLEL).fill(200),
      );
      const final = (await server.request(`${CALENDAR}/${resource}/${item.id}`, { auth: admin })).body;
      const winner = /^write (\d+)$/.exec(final[name])?.[1];
      assert.ok(winner !== undefined, `final ${name} is not one of the writes: ${final[name]}`);
      assert.match(final.description, new RegExp(`description of write ${winner}\\b`), 'fields of different writes are mixed');
    });

    it(`${PARALLEL} parallel creates with one slug get ${PARALLEL} unique slugs`, async () => {
      assert.ok(surfaces[resource], `${resource} routes are missing from /docs/openapi.json`);
      const slug = `same-${randomBytes(4).toString('hex')}`;
      const responses = await burst(PARALLEL, () => ({
        method: 'POST',
        path: `${CALENDAR}/${resource}`,
        body: calendarBody(resource, 'Same name', { slug, status: 'publish' }),
      }));
      assert.deepEqual(
        responses.map((r) => r.status),
        Array(PARALLEL).fill(201),
      );
      const slugs = responses.map((r) => (r.json as { slug: string }).slug);
      assert.equal(new Set(slugs).size, PARALLEL, `duplicate slugs: ${slugs.join(', ')}`);
      assert.ok(slugs.includes(slug));
      for (const created of slugs) {
        const bySlug = await server.request(`${CALENDAR}/${resource}/by-slug/${created}`, { auth: admin });
        assert.equal(bySlug.status, 200, `${created} does not resolve`);
      }
    });
  });
}

for (const taxonomy of ['categories', 'tags'] as const) {
  describe(`concurrent writes: ${taxonomy}`, () => {
    it(`${PARALLEL} parallel creates of one name make exactly one term`, async () => {
      assert.ok(surfaces[taxonomy], `${taxonomy} routes are missing from /docs/openapi.json`);
      const name = `Same ${randomBytes(4).toString('hex')}`;
      const responses = await burst(PARALLEL, () => ({ method: 'POST', path: `${CALENDAR}/${taxonomy}`, body: { name } }));
      const statuses = responses.map((r) => r.status).sort();
      assert.deepEqual(statuses, [201, ...Array(PARALLEL - 1).fill(400)], `statuses: ${statuses.join(',')}`);
      const list = await server.request(`${CALENDAR}/${taxonomy}?search=${encodeURIComponent(name)}&hide_empty=false`, { auth: admin });
      assert.equal(list.body[taxonomy].length, 1);
    });
  });
}

describe('concurrent term assignment', () => {
  it(`${PARALLEL} events tagged in parallel with the same terms give exact counts`, async () => {
    assert.ok(surfaces.events && surfaces.categories && surfaces.tags, 'events, categories and tags are not all in /docs/openapi.json');
    const categories = await Promise.all([0, 1, 2].map(() => createCalendarItem(server, 'categories', admin)));
    const tags = await Promise.all([0, 1].map(() => createCalendarItem(server, 'tags', admin)));
    const events = await Promise.all(
      Array.from({ length: PARALLEL }, () => createCalendarItem(server, 'events', admin, { status: 'publish' })),
    );
    await burst(PARALLEL, (i) => ({
      method: 'POST',
      path: `${CALENDAR}/events/${events[i]!.id}`,
      body: { categories: categories.map((c) => c.id), tags: tags.map((tag) => tag.id) },
    }));
    // And the same event re-tagged by 16 writers at once: it ends with one of the sets, no duplicates.
    const contested = events[0]!;
    await burst(PARALLEL, (i) => ({
      method: 'POST',
      path: `${CALENDAR}/events/${contested.id}`,
      body: { categories: [categories[i % 3]!.id, categories[(i + 1) % 3]!.id] },
    }));
    const final = (await server.request(`${CALENDAR}/events/${contested.id}`, { auth: admin })).body;
    const ids = (final.categories as { id: number }[]).map((c) => c.id);
    assert.equal(ids.length, 2, `categories of the contested event: ${ids.join(',')}`);
    assert.equal(new Set(ids).size, 2);

    for (const term of categories) {
      const read = (await server.request(`${CALENDAR}/categories/${term.id}`, { auth: admin })).body;
      const expected = PARALLEL - 1 + (ids.includes(term.id) ? 1 : 0);
      assert.equal(read.count, expected, `category ${term.id} count`);
    }
    for (const term of tags) {
      const read = (await server.request(`${CALENDAR}/tags/${term.id}`, { auth: admin })).body;
      assert.equal(read.count, PARALLEL, `tag ${term.id} count`);
    }
  });
});

describe('concurrent writes: entity management', () => {
  it(`${PARALLEL} parallel updates of one record leave one of the writes; parallel creates of one key make one record`, async () => {
    assert.ok(surfaces.entities, 'entity-management routes are missing from /docs/openapi.json');
    const key = await createCustomer(server, admin);
    const updates = await burst(PARALLEL, (i) => ({
      method: 'PUT',
      path: `${ENTITIES}/customers/${key}`,
      body: { CompanyName: `write ${i}`, VatNumber: `IT${String(i).padStart(11, '0')}` },
    }));
    assert.deepEqual(
      updates.map((r) => r.status),
      Array(PARALLEL).fill(200),
    );
    const final = (await server.request(`${ENTITIES}/customers/${key}`, { auth: admin })).body.payload;
    const winner = /^write (\d+)$/.exec(final.CompanyName)?.[1];
    assert.ok(winner !== undefined, `final CompanyName: ${final.CompanyName}`);
    assert.equal(final.VatNumber, `IT${winner.padStart(11, '0')}`, 'fields of different writes are mixed');

    const same = `K${randomBytes(5).toString('hex')}`;
    const creates = await burst(PARALLEL, (i) => ({
      method: 'POST',
      path: `${ENTITIES}/customers`,
      body: { key: same, CompanyName: `creator ${i}` },
    }));
    const statuses = creates.map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, ...Array(PARALLEL - 1).fill(409)]);
  });
});
