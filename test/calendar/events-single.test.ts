import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Role } from '../../src/platform/auth/capabilities.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from './events.factories.ts';

const ROLES: Role[] = ['subscriber', 'contributor', 'author', 'editor', 'administrator'];

describe('single events', () => {
  let server: TestServer;
  let admin: Credentials;
  const users = new Map<Role, Credentials>();
  before(async () => {
    server = await startTestServer({ AUTH_MAX_FAILURES: '3' });
    admin = await server.admin();
    for (const role of ROLES) users.set(role, role === 'administrator' ? admin : await server.createUser(role));
  });
  after(async () => server.close());
  const user = (role: Role) => users.get(role) as Credentials;
  const as = (role: Role | 'anonymous') => (role === 'anonymous' ? {} : { auth: user(role) });

  describe('errors of GET /events/{id}', () => {
    it('404 rest-event-not-found for unknown ids, 0 included', async () => {
      for (const id of [0, 13, 999999, 99999999999]) {
        const response = await server.request(`${EVENTS}/${id}`);
        assert.equal(response.status, 404);
        assert.deepEqual(response.body, {
          code: 'rest-event-not-found',
          message: `Event with ID ${id} does not exist.`,
          data: { status: 404 },
        });
      }
    });

    it('400 rest-invalid-event-id for the id of a venue or organizer', async () => {
      const event = await makeEvent(server, admin, { venue: { venue: 'Somewhere', address: 'x' } });
      const response = await server.request(`${EVENTS}/${event.venue.id}`);
      assert.equal(response.status, 400);
      assert.equal(response.body.code, 'rest-invalid-event-id');
      for (const method of ['DELETE', 'POST']) {
        const write = await server.request(`${EVENTS}/${event.venue.id}`, {
          method,
          auth: admin,
          body: method === 'POST' ? { title: 'x' } : undefined,
        });
        assert.equal(write.body.code, 'rest-invalid-event-id', method);
      }
    });

    it('404 rest_no_route for non-numeric ids and an empty slug', async () => {
      for (const path of [`${EVENTS}/foo`, `${EVENTS}/by-slug/`, `${EVENTS}/12abc`]) {
        const response = await server.request(path);
        assert.equal(response.status, 404, path);
        assert.equal(response.body.code, 'rest_no_route');
      }
    });

    it('400 rest_invalid_param for an unknown slug', async () => {
      const response = await server.request(`${EVENTS}/by-slug/non-existing-event`);
      assert.equal(response.status, 400);
      assert.equal(response.body.code, 'rest_invalid_param');
      assert.ok('slug' in response.body.data.params);
    });

    it('finds events by any language slug, sanitized like WordPress', async () => {
      const event = await makeEvent(server, admin, { title: 'Concerto di Natale' });
      await server.request(`${EVENTS}/${event.id}?translation_language=it`, {
        method: 'POST',
        auth: admin,
        body: { slug: 'concerto-natale' },
      });
      for (const slug of [event.slug, 'concerto-natale', 'Concerto.Natale']) {
        const response = await server.request(`${EVENTS}/by-slug/${slug}`);
        assert.equal(response.status, 200, slug);
        assert.equal(response.body.id, event.id);
      }
      const italian = await server.request(`${EVENTS}/${event.id}?translation_language=it`);
      assert.equal(italian.body.slug, 'concerto-natale');
      assert.equal(italian.headers.get('content-language'), 'it');
    });

    it('403 event-no-longer-available for a trashed event, even for administrators', async () => {
      const event = await makeEvent(server, admin);
      await server.request(`${EVENTS}/${event.id}`, { method: 'DELETE', auth: admin });
      const response = await server.request(`${EVENTS}/${event.id}`, { auth: admin });
      assert.equal(response.status, 403);
      assert.deepEqual(response.body, {
        code: 'event-no-longer-available',
        message: 'This event is no longer available',
        data: { status: 403 },
      });
    });

    it('returns the single representation with json_ld, in the reference order', async () => {
      const event = await makeEvent(server, admin, {
        cost: '$23',
        timezone: 'America/New_York',
        start_date: '2030-01-05 14:23:36',
        end_date: '2030-01-05 16:23:36',
      });
      const response = await server.request(`${EVENTS}/${event.id}`);
      assert.equal(response.status, 200);
      assert.deepEqual(Object.keys(response.body), [
        'id',
        'global_id',
        'global_id_lineage',
        'author',
        'status',
        'date',
        'date_utc',
        'modified',
        'modified_utc',
        'url',
        'rest_url',
        'title',
        'description',
        'excerpt',
        'slug',
        'image',
        'all_day',
        'start_date',
        'start_date_details',
        'end_date',
        'end_date_details',
        'utc_start_date',
        'utc_start_date_details',
        'utc_end_date',
        'utc_end_date_details',
        'timezone',
        'timezone_abbr',
        'cost',
        'cost_details',
        'website',
        'show_map',
        'show_map_link',
        'hide_from_listings',
        'sticky',
        'featured',
        'categories',
        'tags',
        'venue',
        'organizer',
        'custom_fields',
        'json_ld',
      ]);
      assert.equal(response.body.author, String(admin.id));
      assert.equal(response.body.json_ld['@type'], 'Event');
      assert.equal(response.body.json_ld.startDate, '2030-01-05T14:23:36-05:00');
      assert.equal(response.body.timezone_abbr, 'EST');
      assert.equal(event.json_ld, undefined);
    });
  });

  describe('permissions', () => {
    it('read: drafts and private events only for who may read them', async () => {
      const contributor = user('contributor');
      const draft = await makeEvent(server, contributor, { status: 'draft' });
      const privateOne = await makeEvent(server, admin, { status: 'private' });
      const expected: Record<string, [number, number]> = {
        anonymous: [403, 403],
        subscriber: [403, 403],
        contributor: [200, 403],
        author: [403, 403],
        editor: [200, 200],
        administrator: [200, 200],
      };
      for (const [role, [draftStatus, privateStatus]] of Object.entries(expected)) {
        for (const [event, status] of [
          [draft, draftStatus],
          [privateOne, privateStatus],
        ] as const) {
          for (const path of [`${EVENTS}/${event.id}`, `${EVENTS}/by-slug/${event.slug}`]) {
            const response = await server.request(path, as(role as Role | 'anonymous'));
            assert.equal(response.status, status, `${role} ${path}`);
            if (status === 403) assert.equal(response.body.code, 'event-not-accessible');
          }
        }
      }
    });

    it('create: anonymous 401, subscriber 403, contributors get pending for publish', async () => {
      const body = { title: 'Mine', start_date: 'tomorrow 9am', end_date: 'tomorrow 10am', status: 'publish' };
      const anonymous = await server.request(EVENTS, { method: 'POST', body });
      assert.deepEqual([anonymous.status, anonymous.body.code], [401, 'rest_forbidden']);
      const subscriber = await server.request(EVENTS, { method: 'POST', body, auth: user('subscriber') });
      assert.deepEqual([subscriber.status, subscriber.body.code], [403, 'rest_forbidden']);
      const statuses: Record<string, string> = { contributor: 'pending', author: 'publish', editor: 'publish', administrator: 'publish' };
      for (const [role, status] of Object.entries(statuses)) {
        const response = await server.request(EVENTS, { method: 'POST', body, auth: user(role as Role) });
        assert.equal(response.status, 201, role);
        assert.equal(response.body.status, status, role);
      }
      for (const status of ['future', 'private']) {
        const response = await server.request(EVENTS, { method: 'POST', body: { ...body, status }, auth: user('contributor') });
        assert.equal(response.body.status, 'pending');
      }
      const draft = await server.request(EVENTS, { method: 'POST', body: { ...body, status: 'draft' }, auth: user('contributor') });
      assert.equal(draft.body.status, 'draft');
      const none = await server.request(EVENTS, { method: 'POST', body: { ...body, status: undefined }, auth: user('contributor') });
      assert.equal(none.body.status, 'draft');
    });

    it("update and delete of an administrator's event, by id and by slug", async () => {
      const expected: Record<string, number> = {
        anonymous: 401,
        subscriber: 403,
        contributor: 403,
        author: 403,
        editor: 200,
        administrator: 200,
      };
      for (const [role, status] of Object.entries(expected)) {
        for (const bySlug of [false, true]) {
          const event = await makeEvent(server, admin);
          const path = bySlug ? `${EVENTS}/by-slug/${event.slug}` : `${EVENTS}/${event.id}`;
          const update = await server.request(path, {
            method: 'PATCH',
            body: { title: `Changed by ${role}` },
            ...as(role as Role | 'anonymous'),
          });
          assert.equal(update.status, status, `update ${role} ${path}`);
          if (status !== 200) assert.equal(update.body.code, 'rest_forbidden');
          const remove = await server.request(path, { method: 'DELETE', ...as(role as Role | 'anonymous') });
          assert.equal(remove.status, status, `delete ${role} ${path}`);
          const after = await server.request(`${EVENTS}/${event.id}`, { auth: admin });
          if (status === 200) assert.equal(after.status, 403);
          else assert.equal(after.body.title, event.title, 'nothing changed');
        }
      }
    });

    it('contributors edit and delete only their own unpublished events; authors their own', async () => {
      const contributor = user('contributor');
      const author = user('author');
      const ownDraft = await makeEvent(server, contributor, { status: 'draft' });
      const ownPublished = await makeEvent(server, admin, { author: contributor.id });
      assert.equal(ownPublished.author, String(contributor.id));
      assert.equal(
        (await server.request(`${EVENTS}/${ownDraft.id}`, { method: 'POST', auth: contributor, body: { title: 'ok' } })).status,
        200,
      );
      assert.equal(
        (await server.request(`${EVENTS}/by-slug/${ownPublished.slug}`, { method: 'PUT', auth: contributor, body: { title: 'no' } }))
          .status,
        403,
      );
      assert.equal((await server.request(`${EVENTS}/by-slug/${ownPublished.slug}`, { method: 'DELETE', auth: contributor })).status, 403);
      assert.equal((await server.request(`${EVENTS}/by-slug/${ownDraft.slug}`, { method: 'DELETE', auth: contributor })).status, 200);
      const authorsOwn = await makeEvent(server, author);
      assert.equal(authorsOwn.status, 'publish');
      assert.equal(
        (await server.request(`${EVENTS}/${authorsOwn.id}`, { method: 'PATCH', auth: author, body: { title: 'mine' } })).status,
        200,
      );
      assert.equal((await server.request(`${EVENTS}/${authorsOwn.id}`, { method: 'DELETE', auth: author })).status, 200);
    });

    it('only editors and above may give an event to another user (403 and nothing changes)', async () => {
      const author = user('author');
      const event = await makeEvent(server, author);
      const refused = await server.request(`${EVENTS}/${event.id}`, {
        method: 'POST',
        auth: author,
        body: { author: admin.id, title: 'stolen' },
      });
      assert.deepEqual([refused.status, refused.body.code], [403, 'rest_forbidden']);
      assert.equal((await server.request(`${EVENTS}/${event.id}`)).body.title, event.title);
      const created = await server.request(EVENTS, {
        method: 'POST',
        auth: author,
        body: { title: 't', start_date: 'tomorrow', end_date: 'tomorrow 1am', author: admin.id },
      });
      assert.equal(created.status, 403);
      const given = await server.request(`${EVENTS}/${event.id}`, { method: 'POST', auth: user('editor'), body: { author: author.id } });
      assert.equal(given.status, 200);
      for (const bad of [999999, 'foo', '']) {
        const response = await server.request(`${EVENTS}/${event.id}`, { method: 'POST', auth: admin, body: { author: bad } });
        assert.equal(response.status, 400, String(bad));
        assert.ok('author' in response.body.data.params);
      }
    });
  });

  describe('translations', () => {
    it('writes in the request language, leaves the other untouched, and falls back field by field', async () => {
      const created = await server.request(`${EVENTS}?translation_language=it`, {
        method: 'POST',
        auth: admin,
        body: { title: 'Sagra del tartufo', description: 'Degustazioni', start_date: 'tomorrow 10am', end_date: 'tomorrow 6pm' },
      });
      assert.equal(created.status, 201);
      assert.equal(created.headers.get('content-language'), 'it');
      const id = created.body.id;
      const english = await server.request(`${EVENTS}/${id}`);
      assert.deepEqual(
        [english.body.title, english.body.description],
        ['Sagra del tartufo', '<p>Degustazioni</p>'],
        'falls back to Italian',
      );
      await server.request(`${EVENTS}/${id}`, { method: 'PATCH', auth: admin, body: { title: 'Truffle fair' } });
      const both = await server.request(`${EVENTS}/${id}`);
      assert.deepEqual([both.body.title, both.body.description], ['Truffle fair', '<p>Degustazioni</p>']);
      assert.equal((await server.request(`${EVENTS}/${id}?translation_language=it`)).body.title, 'Sagra del tartufo');
      const found = await server.request(`${EVENTS}?search=tartufo&translation_language=it`);
      assert.deepEqual(
        found.body.events.map((event: any) => event.id),
        [id],
      );
      assert.match(found.body.rest_url, /translation_language=it$/);
    });
  });

  describe('discovery', () => {
    it('describes every events route and its arguments in the namespace index and /doc', async () => {
      const index = (await server.request('/calendar/events/v1/')).body;
      const archive = index.routes['/calendar/events/v1/events'];
      assert.deepEqual(archive.methods, ['GET', 'POST']);
      assert.equal(archive.endpoints[0].args.page.required, false);
      assert.equal(archive.endpoints[0].args.page.default, 1);
      assert.ok(
        ['start_date', 'categories', 'geoloc_radius', 'strict_dates', 'translation_language'].every(
          (arg) => arg in archive.endpoints[0].args,
        ),
      );
      assert.equal(archive.endpoints[1].args.title.required, true);
      assert.deepEqual(index.routes['/calendar/events/v1/events/(?P<id>\\d+)'].methods, ['GET', 'DELETE', 'POST', 'PUT', 'PATCH']);
      assert.ok('/calendar/events/v1/events/by-slug/(?P<slug>[^/]+)' in index.routes);
      const doc = (await server.request('/calendar/events/v1/doc')).body;
      assert.deepEqual(Object.keys(doc.paths['/events']), ['get', 'post', 'options']);
      assert.deepEqual(Object.keys(doc.paths['/events/{id}']).sort(), ['delete', 'get', 'options', 'patch', 'post', 'put']);
      assert.ok(doc.paths['/events/by-slug/{slug}'].get);
    });

    it('validates arguments before checking permissions, as WordPress does', async () => {
      const response = await server.request(EVENTS, {
        method: 'POST',
        body: { title: 'x', start_date: 'tomorrow', end_date: 'tomorrow', all_day: 'maybe' },
      });
      assert.equal(response.status, 400);
      const missing = await server.request(EVENTS, { method: 'POST', body: {} });
      assert.equal(missing.body.code, 'rest_missing_callback_param');
      const forbidden = await server.request(EVENTS, {
        method: 'POST',
        body: { title: 'x', start_date: 'tomorrow', end_date: 'tomorrow' },
      });
      assert.equal(forbidden.status, 401);
    });
  });

  describe('trash, force and restore', () => {
    it('trashes first, answers 410 the second time, restores by status and deletes for good with force', async () => {
      const event = await makeEvent(server, admin);
      const trashed = await server.request(`${EVENTS}/${event.id}`, { method: 'DELETE', auth: admin });
      assert.equal(trashed.status, 200);
      assert.equal(trashed.body.status, 'trash');
      assert.equal(trashed.body.json_ld, undefined);
      const again = await server.request(`${EVENTS}/${event.id}`, { method: 'DELETE', auth: admin });
      assert.deepEqual(again.body, { code: 'event-is-in-trash', message: 'The event is already trashed', data: { status: 410 } });
      assert.equal(again.status, 410);
      const restored = await server.request(`${EVENTS}/${event.id}`, { method: 'PATCH', auth: admin, body: { status: 'publish' } });
      assert.equal(restored.body.status, 'publish');
      assert.equal((await server.request(`${EVENTS}/${event.id}`)).status, 200);
      const author = user('author');
      const own = await makeEvent(server, author);
      const refused = await server.request(`${EVENTS}/${own.id}?force=true`, { method: 'DELETE', auth: author });
      assert.deepEqual([refused.status, refused.body.code], [403, 'rest_forbidden']);
      assert.equal((await server.request(`${EVENTS}/${own.id}`)).status, 200, 'nothing changed');
      const gone = await server.request(`${EVENTS}/${event.id}?force=true&password=ignored`, { method: 'DELETE', auth: admin });
      assert.equal(gone.status, 200);
      assert.equal(gone.body.id, event.id);
      assert.equal((await server.request(`${EVENTS}/${event.id}`)).status, 404);
      assert.equal((await server.request(`${EVENTS}/by-slug/${event.slug}`)).status, 400);
      assert.equal((await server.request(`${EVENTS}/${event.id}`, { method: 'DELETE', auth: admin })).status, 404);
    });

    it('path ids win over query and body ids', async () => {
      const kept = await makeEvent(server, admin);
      const removed = await makeEvent(server, admin);
      const response = await server.request(`${EVENTS}/${removed.id}?id=${kept.id}`, { method: 'DELETE', auth: admin });
      assert.equal(response.body.id, removed.id);
      assert.equal((await server.request(`${EVENTS}/${kept.id}`)).status, 200);
    });
  });

  describe('password-protected events', () => {
    it('403 event-password-protected until the right password; no json_ld; never returns the password', async () => {
      const event = await makeEvent(server, admin, { password: 'open sesame', description: 'inside' });
      assert.equal(event.password, undefined);
      assert.doesNotMatch(JSON.stringify(event), /sesame/);
      const locked = await server.request(`${EVENTS}/${event.id}`);
      assert.deepEqual(locked.body, {
        code: 'event-password-protected',
        message: 'The requested event is not accessible without a password',
        data: { status: 403 },
      });
      assert.equal((await server.request(`${EVENTS}/${event.id}`, { auth: admin })).status, 403, 'editors need context=edit');
      assert.equal((await server.request(`${EVENTS}/${event.id}?context=edit`, { auth: admin })).status, 200);
      assert.equal((await server.request(`${EVENTS}/${event.id}?context=edit`, { auth: user('author') })).status, 403);
      const open = await server.request(`${EVENTS}/${event.id}?password=open%20sesame`);
      assert.equal(open.status, 200);
      assert.equal(open.body.description, '<p>inside</p>');
      assert.equal(open.body.json_ld, undefined);
      assert.equal((await server.request(`${EVENTS}/by-slug/${event.slug}?password=open%20sesame`)).status, 200);
      assert.equal((await server.request(`${EVENTS}/${event.id}?password=`)).status, 400);
      assert.ok(!server.logs.join('').includes('open sesame'), 'the password is redacted from logs');
    });

    it('throttles wrong passwords per address, for every protected post', async () => {
      const event = await makeEvent(server, admin, { password: 'right' });
      for (let attempt = 0; attempt < 3; attempt += 1) {
        assert.equal((await server.request(`${EVENTS}/${event.id}?password=wrong${attempt}`)).status, 403);
      }
      const throttled = await server.request(`${EVENTS}/${event.id}?password=right`);
      assert.equal(throttled.status, 429);
      assert.ok(throttled.headers.get('retry-after'));
      const other = await makeEvent(server, admin, { password: 'right' });
      assert.equal(
        (await server.request(`${EVENTS}/${other.id}?password=right`)).status,
        429,
        'a lock on one post would let lists guess on',
      );
      assert.equal((await server.request(`${EVENTS}/${other.id}`)).status, 403, 'without a password: no attempt, no 429');
    });

    it('sets and removes the password on update; DELETE accepts and ignores one', async () => {
      const event = await makeEvent(server, admin);
      await server.request(`${EVENTS}/${event.id}`, { method: 'PATCH', auth: admin, body: { password: 'pw' } });
      assert.equal((await server.request(`${EVENTS}/${event.id}`)).status, 403);
      await server.request(`${EVENTS}/${event.id}`, { method: 'PATCH', auth: admin, body: { password: '' } });
      assert.equal((await server.request(`${EVENTS}/${event.id}`)).status, 200);
    });
  });
});
