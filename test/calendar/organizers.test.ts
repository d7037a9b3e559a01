import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { idsOf, insertEventRow, makeOrganizer, ORGANIZERS } from './venues-organizers.factories.ts';
import { assertInvalidParam as invalid } from '../helpers/assertions.ts';

let server: TestServer;
let admin: Credentials;
let editor: Credentials;
let contributor: Credentials;
const fixtures: Record<string, any> = {};

before(async () => {
  server = await startTestServer();
  admin = await server.admin();
  editor = await server.createUser('editor');
  contributor = await server.createUser('contributor');
  // The reference's organizer search fixtures (§5.1).
  fixtures.one = await makeOrganizer(server, admin, {
    organizer: 'Organizer One',
    email: 'one@common.com',
    website: 'http://one.com',
    phone: '111111111',
  });
  fixtures.two = await makeOrganizer(server, admin, {
    organizer: 'Organizer Two',
    email: 'two@common.com',
    website: 'http://two.com',
    phone: '1111',
  });
  fixtures.three = await makeOrganizer(server, admin, {
    organizer: 'Organizer Three',
    email: 'three@three.com',
    website: 'http://three.com',
    phone: '333',
  });
});
after(async () => server.close());

describe('GET /organizers search', () => {
  for (const [search, count] of [
    ['1111', 2],
    ['111111111', 1],
    ['three@three.com', 1],
    ['common.com', 2],
    ['http://one.com', 1],
    ['@common.com', 2],
  ] as const) {
    it(`"${search}" finds ${count} (as the reference finds them), total included`, async () => {
      const response = await server.request(`${ORGANIZERS}?search=${encodeURIComponent(search)}&per_page=1`);
      assert.equal(response.status, 200);
      assert.equal(response.body.total, count);
      assert.equal(response.body.total_pages, count);
      assert.equal(response.headers.get('x-tec-total'), String(count));
    });
  }
});

describe('POST /organizers', () => {
  it('creates an organizer with the §8.3 representation (falsy fields dropped, no rest_url)', async () => {
    const response = await server.request(ORGANIZERS, {
      method: 'POST',
      auth: admin,
      body: {
        organizer: 'Pro Loco',
        description: 'Local events',
        phone: '+39 02 1234',
        website: 'https://proloco.example/?x=1&y=2',
        email: 'info@proloco.example',
      },
    });
    assert.equal(response.status, 201);
    assert.deepEqual(Object.keys(response.body), [
      'id',
      'author',
      'status',
      'date',
      'date_utc',
      'modified',
      'modified_utc',
      'url',
      'organizer',
      'description',
      'slug',
      'phone',
      'website',
      'email',
      'global_id',
      'global_id_lineage',
    ]);
    assert.equal(response.body.url, `${server.url}/organizer/pro-loco/`);
    assert.equal(response.body.website, 'https://proloco.example/?x=1&y=2');
    const minimal = await makeOrganizer(server, admin, { organizer: 'Minimal' });
    assert.deepEqual(Object.keys(minimal), [
      'id',
      'author',
      'status',
      'date',
      'date_utc',
      'modified',
      'modified_utc',
      'url',
      'organizer',
      'slug',
      'global_id',
      'global_id_lineage',
    ]);
  });

  it('validates the e-mail address (deviation 16) and the website', async () => {
    for (const bad of ['foo', 'a@b', 'a b@example.com', '@example.com', 'x@example..com', 'x@-example.com']) {
      invalid(await server.request(ORGANIZERS, { method: 'POST', auth: admin, body: { organizer: 'Bad mail', email: bad } }), 'email');
    }
    for (const good of ['a@b.co', 'first.last+tag@sub.example.org', '']) {
      assert.equal(
        (await server.request(ORGANIZERS, { method: 'POST', auth: admin, body: { organizer: 'Good mail', email: good } })).status,
        201,
        good,
      );
    }
    invalid(await server.request(ORGANIZERS, { method: 'POST', auth: admin, body: { organizer: 'Bad site', website: 'foo' } }), 'website');
    invalid(await server.request(ORGANIZERS, { method: 'POST', auth: admin, body: { organizer: '' } }), 'organizer');
    invalid(await server.request(ORGANIZERS, { method: 'POST', auth: admin, body: { organizer: 'X', author: 23_000 } }), 'author');
    invalid(await server.request(ORGANIZERS, { method: 'POST', auth: admin, body: { organizer: 'X', date: 'foo' } }), 'date');
    invalid(await server.request(ORGANIZERS, { method: 'POST', auth: admin, body: { organizer: 'X', status: 'nope' } }), 'status');
    const missing = await server.request(ORGANIZERS, { method: 'POST', auth: admin, form: { email: 'a@b.co' } });
    assert.equal(missing.body.code, 'rest_missing_callback_param');
    assert.deepEqual(missing.body.data.params, ['organizer']);
    assert.equal((await server.request(ORGANIZERS, { method: 'POST', body: { organizer: 'Anon' } })).status, 401);
  });

  it('always creates (deviation 10)', async () => {
    const first = await makeOrganizer(server, admin, { organizer: 'Same Org', email: 'same@example.com' });
    const second = await makeOrganizer(server, admin, { organizer: 'same org', email: 'SAME@example.com' });
    assert.notEqual(first.id, second.id);
  });
});

describe('single organizers', () => {
  it('GET by id and slug with json_ld (a Person); 400 for unknown ones; 403 organizer-not-accessible for drafts', async () => {
    const organizer = await makeOrganizer(server, admin, {
      organizer: 'Jane Doe',
      email: 'jane@example.com',
      phone: '555',
      website: 'https://jane.example',
    });
    for (const path of [`${ORGANIZERS}/${organizer.id}`, `${ORGANIZERS}/by-slug/jane-doe`]) {
      const response = await server.request(path);
      assert.equal(response.status, 200);
      assert.deepEqual(Object.keys(response.body).slice(-3), ['json_ld', 'global_id', 'global_id_lineage']);
      assert.deepEqual(response.body.json_ld, {
        '@type': 'Person',
        name: 'Jane Doe',
        url: 'https://jane.example',
        telephone: '555',
        email: 'jane@example.com',
        sameAs: 'https://jane.example',
      });
    }
    invalid(await server.request(`${ORGANIZERS}/23000`), 'id');
    invalid(await server.request(`${ORGANIZERS}/by-slug/non-existing-slug`), 'slug');
    assert.equal((await server.request(`${ORGANIZERS}/foo%20bar`)).body.code, 'rest_no_route');
    const draft = await makeOrganizer(server, admin, { status: 'draft' });
    const denied = await server.request(`${ORGANIZERS}/${draft.id}`);
    assert.deepEqual(denied.body, {
      code: 'organizer-not-accessible',
      message: 'The requested organizer is not accessible',
      data: { status: 403 },
    });
    assert.equal((await server.request(`${ORGANIZERS}/by-slug/${draft.slug}`, { auth: contributor })).status, 403);
    assert.equal((await server.request(`${ORGANIZERS}/by-slug/${draft.slug}`, { auth: editor })).status, 200);
  });

  it('keeps e-mail, phone and website on an update without them; empty values clear them', async () => {
    const organizer = await makeOrganizer(server, admin, { email: 'keep@example.com', phone: '1', website: 'https://keep.example' });
    const renamed = await server.request(`${ORGANIZERS}/${organizer.id}`, {
      method: 'PATCH',
      auth: admin,
      body: { organizer: 'Renamed Org' },
    });
    assert.equal(renamed.body.organizer, 'Renamed Org');
    assert.equal(renamed.body.email, 'keep@example.com');
    assert.equal(renamed.body.phone, '1');
    assert.equal(renamed.body.website, 'https://keep.example');
    assert.equal(renamed.body.slug, organizer.slug, 'the slug stays');
    const cleared = await server.request(`${ORGANIZERS}/by-slug/${organizer.slug}`, {
      method: 'PUT',
      auth: admin,
      body: { email: '', phone: '', website: '' },
    });
    for (const key of ['email', 'phone', 'website']) assert.equal(key in cleared.body, false, key);
    invalid(await server.request(`${ORGANIZERS}/${organizer.id}`, { method: 'POST', auth: admin, body: { email: 'broken' } }), 'email');
    invalid(await server.request(`${ORGANIZERS}/${organizer.id}`, { method: 'POST', auth: admin, body: { organizer: '' } }), 'organizer');
  });

  it('strips a password-protected organizer, keeping its name', async () => {
    const organizer = await makeOrganizer(server, admin, {
      organizer: 'Secret Org',
      email: 's@example.com',
      phone: '9',
      description: 'Hidden',
      password: 'pw',
    });
    const locked = await server.request(`${ORGANIZERS}/${organizer.id}`);
    assert.equal(locked.body.organizer, 'Secret Org');
    assert.equal(locked.body.email, '');
    assert.equal(locked.body.phone, '');
    assert.equal(locked.body.description, '');
    assert.equal((await server.request(`${ORGANIZERS}/${organizer.id}?password=pw`)).body.email, 's@example.com');
  });

  it('throttles wrong passwords per organizer and address: 429 on a single read, stripped in lists', async () => {
    const organizer = await makeOrganizer(server, admin, { organizer: 'Guarded', email: 'g@example.com', password: 'right' });
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const response = await server.request(`${ORGANIZERS}/${organizer.id}?password=wrong${attempt}`);
      assert.equal(response.status, 200);
      assert.equal(response.body.email, '');
    }
    const locked = await server.request(`${ORGANIZERS}/${organizer.id}?password=right`);
    assert.equal(locked.status, 429);
    assert.equal(locked.body.code, 'rest_too_many_requests');
    assert.ok(Number(locked.headers.get('retry-after')) > 0);
    const listed = await server.request(`${ORGANIZERS}?per_page=50&password=right`);
    assert.equal(listed.body.organizers.find((item: any) => item.id === organizer.id).email, '');
  });

  it('trashing removes the organizer from every event, keeping the others in order; then 410', async () => {
    const keep1 = await makeOrganizer(server, admin, {});
    const gone = await makeOrganizer(server, admin, {});
    const keep2 = await makeOrganizer(server, admin, {});
    const event = await insertEventRow(server, { organizerIds: [keep1.id, gone.id, keep2.id] });
    const other = await insertEventRow(server, { organizerIds: [gone.id] });
    const trashed = await server.request(`${ORGANIZERS}/${gone.id}`, { method: 'DELETE', auth: admin });
    assert.equal(trashed.status, 200);
    assert.equal(trashed.body.status, 'trash');
    const links = await server.server.store.db
      .selectFrom('event_organizers')
      .select(['event_id', 'organizer_id'])
      .where('event_id', 'in', [event, other])
      .orderBy('event_id')
      .orderBy('position')
      .execute();
    assert.deepEqual(
      links.map((link) => link.organizer_id),
      [keep1.id, keep2.id],
    );
    const again = await server.request(`${ORGANIZERS}/by-slug/${gone.slug}`, { method: 'DELETE', auth: admin });
    assert.deepEqual(again.body, { code: 'organizer-is-in-trash', message: 'The organizer is already trashed', data: { status: 410 } });
    const forced = await server.request(`${ORGANIZERS}/${keep2.id}?force=true`, { method: 'DELETE', auth: admin });
    assert.equal(forced.status, 200);
    invalid(await server.request(`${ORGANIZERS}/${keep2.id}`), 'id');
    invalid(await server.request(`${ORGANIZERS}/23000`, { method: 'DELETE' }), 'id');
    await server.server.store.db.deleteFrom('events').where('id', 'in', [event, other]).execute();
  });
});

describe('GET /organizers archive and languages', () => {
  it('404 organizer-archive-page-not-found beyond the last page; page and per_page validated', async () => {
    const total = (await server.request(ORGANIZERS)).body.total;
    const beyond = await server.request(`${ORGANIZERS}?page=${total + 1}&per_page=1`);
    assert.deepEqual(beyond.body, {
      code: 'organizer-archive-page-not-found',
      message: 'The requested organizer archive page does not exist',
      data: { status: 404 },
    });
    assert.equal((await server.request(`${ORGANIZERS}?page=${total}&per_page=1`)).status, 200);
    invalid(await server.request(`${ORGANIZERS}?page=0`), 'page');
    invalid(await server.request(`${ORGANIZERS}?per_page=-1`), 'per_page');
    invalid(await server.request(`${ORGANIZERS}?translation_language=fr`), 'translation_language');
  });

  it('stores names per language with field-by-field fallback, and searches the requested language', async () => {
    const created = await server.request(`${ORGANIZERS}?translation_language=it`, {
      method: 'POST',
      auth: admin,
      body: { organizer: 'Associazione Musicale', description: 'Concerti in piazza', email: 'info@musica.example' },
    });
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('content-language'), 'it');
    const id = created.body.id;
    assert.equal((await server.request(`${ORGANIZERS}/${id}`)).body.organizer, 'Associazione Musicale', 'only Italian so far');
    const english = await server.request(`${ORGANIZERS}/${id}`, { method: 'POST', auth: admin, body: { organizer: 'Music Association' } });
    assert.equal(english.body.organizer, 'Music Association');
    assert.equal(english.body.description, '<p>Concerti in piazza</p>', 'the description falls back to Italian');
    assert.equal(english.body.email, 'info@musica.example');
    assert.equal((await server.request(`${ORGANIZERS}/${id}?translation_language=it`)).body.organizer, 'Associazione Musicale');
    assert.equal((await server.request(`${ORGANIZERS}?search=associazione&translation_language=it`)).body.total, 1);
    assert.equal(
      (await server.request(`${ORGANIZERS}?search=associazione`)).body.total,
      0,
      'English is read first, Italian is not its fallback',
    );
    assert.equal(
      (await server.request(`${ORGANIZERS}?search=music%20association&translation_language=it`)).body.total,
      1,
      'the default language is the fallback',
    );
    invalid(await server.request(`${ORGANIZERS}/${id}?translation_language=de`), 'translation_language');
    invalid(
      await server.request(`${ORGANIZERS}/${id}`, { method: 'POST', auth: admin, body: { translation_language: 'xx' } }),
      'translation_language',
    );
  });
});

describe('GET /organizers filters', () => {
  it('event, has_events and only_with_upcoming work on organizer links', async () => {
    const upcoming = await makeOrganizer(server, admin, { organizer: 'Upcoming org' });
    const pastOnly = await makeOrganizer(server, admin, { organizer: 'Past org' });
    const draftOnly = await makeOrganizer(server, admin, { organizer: 'Draft-event org' });
    const events = [
      await insertEventRow(server, { organizerIds: [pastOnly.id, upcoming.id], startsInDays: -3 }),
      ...(await Promise.all(
        Array.from({ length: 15 }, (_, day) => insertEventRow(server, { organizerIds: [fixtures.one.id], startsInDays: day + 1 })),
      )),
      await insertEventRow(server, { organizerIds: [upcoming.id], startsInDays: 100 }),
      await insertEventRow(server, { organizerIds: [draftOnly.id], status: 'pending' }),
    ];
    assert.deepEqual(idsOf((await server.request(`${ORGANIZERS}?event=${events[0]}`)).body.organizers), [upcoming.id, pastOnly.id]);
    invalid(await server.request(`${ORGANIZERS}?event=23000`), 'event');
    assert.deepEqual(
      idsOf((await server.request(`${ORGANIZERS}?has_events=true`)).body.organizers),
      [fixtures.one.id, upcoming.id, pastOnly.id].sort((a, b) => a - b),
    );
    const without = idsOf((await server.request(`${ORGANIZERS}?has_events=false&per_page=50`)).body.organizers);
    assert.ok(without.includes(draftOnly.id) && without.includes(fixtures.two.id) && !without.includes(upcoming.id));
    const withUpcoming = await server.request(`${ORGANIZERS}?only_with_upcoming=1&per_page=1`);
    assert.equal(withUpcoming.body.total, 2);
    assert.deepEqual(idsOf([...withUpcoming.body.organizers, ...(await server.request(withUpcoming.body.next_rest_url)).body.organizers]), [
      fixtures.one.id,
      upcoming.id,
    ]);
    await server.server.store.db.deleteFrom('events').where('id', 'in', events).execute();
  });
});
