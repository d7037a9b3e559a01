/**
 * The calendar as real WordPress clients call it, beyond JSON: PHP/jQuery
 * bracket parameters, method overrides, empty bodies, `_fields`,
 * `_envelope`, `rest_route`, `OPTIONS`, discovery and WordPress's paging
 * headers (issue 18). Each case is what a client nobody here wrote sends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PARAMETER_LIMITS } from '../../src/platform/http/querystring.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from './events.factories.ts';
import { makeOrganizer, makeVenue, ORGANIZERS, VENUES } from './venues-organizers.factories.ts';

/** A form body as PHP's http_build_query and jQuery's $.param write it. */
function phpForm(pairs: ReadonlyArray<readonly [string, string]>): string {
  return pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&');
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('wire conventions of WordPress clients', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  const count = async () =>
    (await server.request(`${EVENTS}?status=any&per_page=1&start_date=2000-01-01`, { auth: admin })).body.total as number;

  describe('bracket parameters', () => {
    it('creates an event from a PHP form body with organizer ids, an inline venue, categories and a cost array', async () => {
      const first = await makeOrganizer(server, admin);
      const second = await makeOrganizer(server, admin);
      const body = phpForm([
        ['title', 'Jazz at the hall'],
        ['start_date', '2030-03-01 20:00'],
        ['end_date', '2030-03-01 23:00'],
        ['organizer[0]', String(second.id)],
        ['organizer[1]', String(first.id)],
        ['venue[venue]', 'Bracket Hall'],
        ['venue[city]', 'Rome'],
        ['venue[address]', 'Via Roma 1'],
        ['categories[0]', 'music'],
        ['categories[1]', 'jazz'],
        ['cost[0]', '0'],
        ['cost[1]', '20'],
      ]);
      const created = await server.request(EVENTS, { method: 'POST', auth: admin, headers: FORM, body });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(
        created.body.organizer.map((organizer: { id: number }) => organizer.id),
        [second.id, first.id],
      );
      assert.equal(created.body.venue.venue, 'Bracket Hall');
      assert.equal(created.body.venue.city, 'Rome');
      assert.deepEqual(created.body.categories.map((category: { slug: string }) => category.slug).sort(), ['jazz', 'music']);
      assert.deepEqual(created.body.cost_details.values, ['0', '20']);
    });

    it('creates inline organizers from nested brackets (organizer[0][organizer]=…)', async () => {
      const body = phpForm([
        ['title', 'Nested'],
        ['start_date', '2030-03-02 20:00'],
        ['end_date', '2030-03-02 21:00'],
        ['organizer[0][organizer]', 'Ann Bracket'],
        ['organizer[0][email]', 'ann@bracket.example'],
      ]);
      const created = await server.request(EVENTS, { method: 'POST', auth: admin, headers: FORM, body });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.organizer[0].organizer, 'Ann Bracket');
    });

    it('filters lists by organizer[]=, venue[0]= and categories[]= exactly as by CSV', async () => {
      const venue = await makeVenue(server, admin);
      const organizer = await makeOrganizer(server, admin);
      const linked = await makeEvent(server, admin, { venue: venue.id, organizer: [organizer.id], categories: ['brackets'] });
      await makeEvent(server, admin);
      for (const query of [
        `organizer[]=${organizer.id}`,
        `organizer[0]=${organizer.id}`,
        `venue[0]=${venue.id}`,
        `venue[]=${venue.id}`,
        'categories[]=brackets',
        'categories[0]=brackets',
      ]) {
        const list = await server.request(`${EVENTS}?${query}`);
        assert.equal(list.status, 200, query);
        assert.deepEqual(
          list.body.events.map((event: { id: number }) => event.id),
          [linked.id],
          query,
        );
      }
      const none = await server.request(`${EVENTS}?organizer[]=${organizer.id}&venue[]=${venue.id + 100000}`);
      assert.equal(none.status, 400, 'an unknown venue id is a 400, as in the reference');
    });

    it('refuses a bad element of a bracket list by name (include[0]=foo-bar)', async () => {
      const response = await server.request(`${EVENTS}?include[0]=foo-bar`);
      assert.equal(response.status, 400);
      assert.equal(response.body.code, 'rest_invalid_param');
      assert.ok('include' in response.body.data.params);
    });

    it('refuses nesting deeper than the limit, a huge index and too many parameters, by name, writing nothing', async () => {
      const before = await count();
      const deep = await server.request(`${EVENTS}?organizer${'[0]'.repeat(PARAMETER_LIMITS.depth + 1)}=1`);
      assert.equal(deep.status, 400);
      assert.match(deep.body.data.params.organizer, /deeper/);
      const index = await server.request(`${EVENTS}?include[${PARAMETER_LIMITS.arrayItems}]=1`);
      assert.equal(index.status, 400);
      assert.ok('include' in index.body.data.params);
      const many = Array.from({ length: PARAMETER_LIMITS.parameters + 1 }, (_, at) => `x${at}=1`).join('&');
      const tooMany = await server.request(EVENTS, {
        method: 'POST',
        auth: admin,
        headers: FORM,
        body: `title=T&start_date=tomorrow&end_date=tomorrow&${many}`,
      });
      assert.equal(tooMany.status, 400);
      assert.ok('parameters' in tooMany.body.data.params);
      const deepBody = await server.request(EVENTS, {
        method: 'POST',
        auth: admin,
        headers: FORM,
        body: `title=T&start_date=tomorrow&end_date=tomorrow&venue${'[a]'.repeat(9)}=1`,
      });
      assert.equal(deepBody.status, 400);
      assert.equal(await count(), before);
    });

    it('refuses an array where a parameter takes one value, in the query, a form or JSON, changing nothing', async () => {
      const event = await makeEvent(server, admin, { title: 'Unchanged' });
      const refusals = [
        server.request(`${EVENTS}/${event.id}`, { method: 'POST', auth: admin, body: { translation_language: ['it'], title: 'Cambiato' } }),
        server.request(`${EVENTS}/${event.id}`, { method: 'POST', auth: admin, body: { title: ['Changed'] } }),
        server.request(`${EVENTS}/${event.id}?translation_language[]=it`, { method: 'POST', auth: admin, body: { title: 'Cambiato' } }),
        server.request(`${EVENTS}/${event.id}`, { method: 'POST', auth: admin, headers: FORM, body: 'title[]=Changed' }),
        server.request(`${EVENTS}?per_page[]=5`),
        server.request(`${EVENTS}/${event.id}?password[0]=x`),
      ];
      for (const response of await Promise.all(refusals)) {
        assert.equal(response.status, 400, response.text);
        assert.equal(response.body.code, 'rest_invalid_param');
      }
      for (const language of ['en', 'it']) {
        const read = await server.request(`${EVENTS}/${event.id}?translation_language=${language}`);
        assert.equal(read.body.title, 'Unchanged', language);
      }
    });

    it('refuses an array for every single-valued argument of the create route (from the served document)', async () => {
      const document = (await server.request('/calendar/events/v1/doc')).body;
      const schema = document.paths['/events'].post.requestBody.content['application/json'].schema;
      const single = Object.entries<Record<string, unknown>>(schema.properties).filter(
        ([, property]) => property.type !== undefined && property.type !== 'array' && property.anyOf === undefined,
      );
      assert.ok(single.length >= 5, 'the create route has single-valued arguments');
      const before = await count();
      for (const [name] of single) {
        const response = await server.request(EVENTS, {
          method: 'POST',
          auth: admin,
          body: { title: 'T', start_date: 'tomorrow 10am', end_date: 'tomorrow 11am', [name]: ['1'] },
        });
        assert.equal(response.status, 400, `${name}: ${response.text}`);
        assert.ok(name in response.body.data.params, name);
      }
      assert.equal(await count(), before);
    });
  });

  describe('request conventions', () => {
    it('deletes with POST and X-HTTP-Method-Override: DELETE and an empty JSON body, as @wordpress/api-fetch sends it', async () => {
      const event = await makeEvent(server, admin);
      const response = await server.request(`${EVENTS}/${event.id}`, {
        method: 'POST',
        auth: admin,
        headers: { 'x-http-method-override': 'DELETE', 'content-type': 'application/json' },
        body: '',
      });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.status, 'trash');
    });

    it('takes force from a JSON body on DELETE (api-fetch sends its data there)', async () => {
      const event = await makeEvent(server, admin);
      const response = await server.request(`${EVENTS}/${event.id}`, {
        method: 'POST',
        auth: admin,
        headers: { 'x-http-method-override': 'DELETE' },
        body: { force: true },
      });
      assert.equal(response.status, 200, response.text);
      assert.equal((await server.request(`${EVENTS}/${event.id}`, { auth: admin })).status, 404);
    });

    it('honours ?_method=DELETE and ?_method=PATCH on POST', async () => {
      const event = await makeEvent(server, admin, { title: 'Before' });
      const patched = await server.request(`${EVENTS}/${event.id}?_method=PATCH`, {
        method: 'POST',
        auth: admin,
        headers: FORM,
        body: 'title=After',
      });
      assert.equal(patched.body.title, 'After');
      const trashed = await server.request(`${EVENTS}/${event.id}?_method=delete`, { method: 'POST', auth: admin });
      assert.equal(trashed.status, 200);
      assert.equal(trashed.body.status, 'trash');
    });

    it('overrides the method of a POST only, and only into PUT, PATCH or DELETE', async () => {
      const event = await makeEvent(server, admin);
      const fromGet = await server.request(`${EVENTS}/${event.id}?_method=DELETE`, { auth: admin });
      assert.equal(fromGet.status, 400);
      assert.ok('_method' in fromGet.body.data.params);
      const headerFromGet = await server.request(`${EVENTS}/${event.id}`, { auth: admin, headers: { 'x-http-method-override': 'DELETE' } });
      assert.equal(headerFromGet.status, 400);
      const intoGet = await server.request(`${EVENTS}/${event.id}?_method=GET`, { method: 'POST', auth: admin, body: {} });
      assert.equal(intoGet.status, 400);
      assert.equal((await server.request(`${EVENTS}/${event.id}`)).body.status, 'publish', 'nothing was deleted');
    });

    it('overrides methods on the entity-management surface too', async () => {
      const key = `OVR${Date.now()}`;
      const entities = '/apiservice/api/services/entity-management/customers';
      const created = await server.request(entities, { method: 'POST', auth: admin, body: { key, CompanyName: 'Override S.r.l.' } });
      assert.equal(created.status, 201, created.text);
      const removed = await server.request(`${entities}/${key}`, {
        method: 'POST',
        auth: admin,
        headers: { 'x-http-method-override': 'DELETE' },
      });
      assert.equal(removed.status, 200, removed.text);
      assert.equal((await server.request(`${entities}/${key}`, { auth: admin })).status, 404);
    });

    it('reads an empty JSON body and a body-less POST as no arguments', async () => {
      const emptyJson = await server.request(EVENTS, {
        method: 'POST',
        auth: admin,
        headers: { 'content-type': 'application/json' },
        body: '',
      });
      assert.equal(emptyJson.body.code, 'rest_missing_callback_param');
      const noBody = await server.request(EVENTS, { method: 'POST', auth: admin });
      assert.equal(noBody.body.code, 'rest_missing_callback_param');
      const venue = await makeVenue(server, admin, { venue: 'Quiet hall' });
      const touched = await server.request(`${VENUES}/${venue.id}`, { method: 'POST', auth: admin });
      assert.equal(touched.status, 200, touched.text);
      assert.equal(touched.body.venue, 'Quiet hall');
      const reload = await server.request('/apiservice/api/services/actions/reload', {
        method: 'POST',
        auth: admin,
        headers: { 'content-type': 'application/json' },
        body: '',
      });
      assert.equal(reload.status, 200, reload.text);
    });

    it('routes ?rest_route= on the site root, and answers 404 for an unknown route (never the index)', async () => {
      const event = await makeEvent(server, admin, { title: 'Plain permalinks' });
      const read = await server.request(`/?rest_route=/calendar/events/v1/events/${event.id}`);
      assert.equal(read.status, 200);
      assert.equal(read.body.title, 'Plain permalinks');
      const encoded = await server.request(`/index.php?rest_route=${encodeURIComponent('/calendar/events/v1/events')}&per_page=1`);
      assert.equal(encoded.status, 200);
      assert.equal(encoded.body.events.length, 1);
      const unknown = await server.request('/?rest_route=/calendar/events/v1/nothing-here');
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.code, 'rest_no_route');
      const created = await server.request(`/?rest_route=/calendar/events/v1/events`, {
        method: 'POST',
        auth: admin,
        body: { title: 'Via rest_route', start_date: 'tomorrow', end_date: 'tomorrow' },
      });
      assert.equal(created.status, 201, created.text);
    });

    it('refuses _jsonp as a site with JSONP disabled does', async () => {
      const response = await server.request(`${EVENTS}?_jsonp=callback`);
      assert.equal(response.status, 400);
      assert.equal(response.body.code, 'rest_callback_disabled');
    });
  });

  describe('response conventions', () => {
    it('_fields keeps only the fields named, nested ones included, on an item and on each item of a list', async () => {
      const venue = await makeVenue(server, admin, { venue: 'Fields hall' });
      const event = await makeEvent(server, admin, { title: 'Fields', venue: venue.id });
      const item = await server.request(`${EVENTS}/${event.id}?_fields=id,title,venue.venue,start_date_details.year`);
      assert.deepEqual(Object.keys(item.body), ['id', 'title', 'start_date_details', 'venue']);
      assert.deepEqual(item.body.venue, { venue: 'Fields hall' });
      assert.deepEqual(Object.keys(item.body.start_date_details), ['year']);
      const list = await server.request(`${EVENTS}?per_page=2&_fields[]=id&_fields[]=title`);
      assert.ok(list.body.events.length > 0);
      for (const listed of list.body.events) assert.deepEqual(Object.keys(listed), ['id', 'title']);
      assert.equal(typeof list.body.total, 'number', 'a list keeps its totals and links');
      assert.equal(typeof list.body.rest_url, 'string');
      const venues = await server.request(`${VENUES}?_fields=venue`);
      for (const listed of venues.body.venues) assert.deepEqual(Object.keys(listed), ['venue']);
    });

    it('_envelope answers 200 with the status, the headers and the body inside', async () => {
      const missing = await server.request(`${EVENTS}/99999?_envelope`);
      assert.equal(missing.status, 200);
      assert.equal(missing.body.status, 404);
      assert.equal(missing.body.body.code, 'rest-event-not-found');
      await makeEvent(server, admin);
      await makeEvent(server, admin);
      const list = await server.request(`${EVENTS}?per_page=1&_envelope=1`);
      assert.equal(list.body.status, 200);
      assert.equal(list.body.headers['X-WP-Total'], String(list.body.body.total));
      assert.match(list.body.headers.Link, /rel="next"/);
    });

    it('lists carry X-WP-Total, X-WP-TotalPages and Link rel next/prev beside X-TEC-Total', async () => {
      for (let made = 0; made < 3; made += 1) await makeEvent(server, admin);
      const page = await server.request(`${EVENTS}?per_page=1&page=2`);
      assert.equal(page.headers.get('x-wp-total'), page.headers.get('x-tec-total'));
      assert.equal(page.headers.get('x-wp-totalpages'), String(page.body.total_pages));
      const link = page.headers.get('link') ?? '';
      assert.ok(link.includes(`<${page.body.next_rest_url}>; rel="next"`), link);
      assert.ok(link.includes(`<${page.body.previous_rest_url}>; rel="prev"`), link);
      for (const path of [VENUES, ORGANIZERS, '/calendar/events/v1/categories', '/calendar/events/v1/tags']) {
        const list = await server.request(path);
        assert.equal(list.headers.get('x-wp-total'), String(list.body.total), path);
      }
    });

    it('is discoverable: a Link to the API root on every answer, HEAD included, and every route in the root index', async () => {
      const head = await server.request('/', { method: 'HEAD' });
      assert.ok((head.headers.get('link') ?? '').includes(`<${server.url}/>; rel="https://api.w.org/"`));
      const index = await server.request('/');
      assert.ok('/calendar/events/v1/events/(?P<id>\\d+)' in index.body.routes);
      assert.deepEqual(index.body.routes['/calendar/events/v1/events'].methods, ['GET', 'POST']);
      assert.equal(index.body.routes['/calendar/events/v1/events']._links.self[0].href, `${server.url}/calendar/events/v1/events`);
      assert.ok('/' in index.body.routes);
    });

    it('answers OPTIONS with the route’s methods and arguments, and Allow for the caller', async () => {
      const anonymous = await server.request(EVENTS, { method: 'OPTIONS' });
      assert.equal(anonymous.status, 200);
      assert.deepEqual(anonymous.body.methods, ['GET', 'POST']);
      assert.equal(anonymous.body.endpoints[1].args.title.required, true);
      assert.equal(anonymous.headers.get('allow'), 'GET');
      const editor = await server.createUser('editor');
      const allowed = await server.request(`${EVENTS}/1`, { method: 'OPTIONS', auth: editor });
      assert.equal(allowed.headers.get('allow'), 'GET, DELETE, POST, PUT, PATCH');
      const subscriber = await server.createUser('subscriber');
      assert.equal((await server.request(`${EVENTS}/1`, { method: 'OPTIONS', auth: subscriber })).headers.get('allow'), 'GET');
    });

    it('reports modified = the publication date of a new post, and the time of the request on updates', async () => {
      const event = await makeEvent(server, admin, { date: '2026-01-02 03:04:05' });
      assert.equal(event.modified, '2026-01-02 03:04:05');
      assert.equal(event.modified_utc, event.date_utc);
      const venue = await makeVenue(server, admin, { date_utc: '2026-02-03 04:05:06' });
      assert.equal(venue.modified_utc, '2026-02-03 04:05:06');
      const updated = await server.request(`${EVENTS}/${event.id}`, { method: 'POST', auth: admin, body: { title: 'Later' } });
      assert.ok(updated.body.modified_utc > '2026-01-02 03:04:05');
    });
  });
});
