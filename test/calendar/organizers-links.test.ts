import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  assertOrganizersReadable,
  organizersForWrite,
  resolveOrganizersForWrite,
  setEventOrganizers,
} from '../../src/calendar/organizers/organizers.links.ts';
import { embedsOf } from './embeds.helper.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { contextOf, insertEventRow, makeOrganizer, NS, ORGANIZERS, postPasswords } from './venues-organizers.factories.ts';
import { rejectsNaming } from '../helpers/assertions.ts';

let server: TestServer;
let admin: Credentials;
let contributor: Credentials;

before(async () => {
  server = await startTestServer();
  admin = await server.admin();
  contributor = await server.createUser('contributor');
});
after(async () => server.close());

const db = () => server.server.store.db;

describe('resolveOrganizersForWrite', () => {
  it('reads an id, ids in order, a CSV string (deviation 13), {id} objects and mixes', async () => {
    const [a, b, c] = [
      await makeOrganizer(server, admin, {}),
      await makeOrganizer(server, admin, {}),
      await makeOrganizer(server, admin, {}),
    ];
    const ctx = contextOf(server, admin);
    assert.deepEqual(await resolveOrganizersForWrite(db(), a.id, ctx, postPasswords(server)), [a.id]);
    assert.deepEqual(await resolveOrganizersForWrite(db(), String(b.id), ctx, postPasswords(server)), [b.id]);
    assert.deepEqual(await resolveOrganizersForWrite(db(), [c.id, a.id, b.id], ctx, postPasswords(server)), [c.id, a.id, b.id]);
    assert.deepEqual(await resolveOrganizersForWrite(db(), `${b.id}, ${c.id},${a.id}`, ctx, postPasswords(server)), [b.id, c.id, a.id]);
    assert.deepEqual(
      await resolveOrganizersForWrite(db(), [{ id: b.id }, String(a.id), { id: String(c.id) }], ctx, postPasswords(server)),
      [b.id, a.id, c.id],
    );
    assert.deepEqual(
      await resolveOrganizersForWrite(db(), [a.id, a.id, b.id], ctx, postPasswords(server)),
      [a.id, b.id],
      'duplicates once',
    );
    assert.deepEqual(
      await resolveOrganizersForWrite(db(), { id: c.id }, ctx, postPasswords(server)),
      [c.id],
      'a single unwrapped object works',
    );
  });

  it('knows the organizers named by id before their check has answered, as it will answer', async () => {
    const [a, b] = [await makeOrganizer(server, admin, {}), await makeOrganizer(server, admin, {})];
    const ctx = contextOf(server, admin);
    for (const input of [
      a.id,
      [b.id, a.id, b.id],
      `${b.id},${a.id}`,
      [{ id: b.id }, String(a.id)],
      [],
      0,
      [{ organizer: 'Inline one' }, a.id],
    ]) {
      const { value: ids, checked } = await organizersForWrite(db(), input, ctx, postPasswords(server));
      assert.deepEqual(ids, await checked, JSON.stringify(input));
    }
  });

  it('refuses a create or an update naming an unknown or trashed organizer among known ones, storing nothing', async () => {
    const [a, b, trashed] = [
      await makeOrganizer(server, admin, {}),
      await makeOrganizer(server, admin, {}),
      await makeOrganizer(server, admin, {}),
    ];
    await server.request(`${ORGANIZERS}/${trashed.id}`, { method: 'DELETE', auth: admin });
    const title = `Organizer check ${Date.now()}`;
    const schedule = { start_date: '2031-04-01 10:00:00', end_date: '2031-04-01 11:00:00', status: 'publish' };
    const create = (organizer: unknown) =>
      server.request(`${NS}/events`, { method: 'POST', auth: admin, body: { title, ...schedule, organizer } });
    const refused = [
      [a.id, 23_000],
      [trashed.id, b.id],
      [a.id, { organizer: 'Made before the refusal' }, 23_000],
    ];
    // With links written behind the refused ones (a category, a tag), the refusal is still the answer.
    const category = (await server.request(`${NS}/categories`, { method: 'POST', auth: admin, body: { name: `c${Date.now()}` } })).body.id;
    for (const organizer of refused) {
      const withTerms = await server.request(`${NS}/events`, {
        method: 'POST',
        auth: admin,
        body: { title, ...schedule, organizer, categories: [category], tags: ['fresh tag of a refused write'] },
      });
      assert.deepEqual([withTerms.status, withTerms.body.code], [400, 'rest_invalid_param'], JSON.stringify(organizer));
    }
    const answers = await Promise.all([create([b.id, a.id]), ...refused.map(create)]);
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [201, 400, 400, 400],
    );
    assert.deepEqual(
      answers[0]!.body.organizer.map((organizer: { id: number }) => organizer.id),
      [b.id, a.id],
    );
    const titled = await db()
      .selectFrom('translations')
      .select('resource_id')
      .where('field', '=', 'title')
      .where('value', '=', title)
      .execute();
    assert.equal(titled.length, 1, 'only the accepted create is stored');
    const inline = await server.request(`${ORGANIZERS}?search=${encodeURIComponent('Made before the refusal')}`, { auth: admin });
    assert.equal(inline.body.total, 0, 'an inline organizer of a refused write is not kept');
    const event = answers[0]!.body;
    for (const organizer of refused) {
      const update = await server.request(`${NS}/events/${event.id}`, { method: 'POST', auth: admin, body: { organizer } });
      assert.equal(update.status, 400, JSON.stringify(organizer));
    }
    const after = await server.request(`${NS}/events/${event.id}`, { auth: admin });
    assert.deepEqual(
      after.body.organizer.map((organizer: { id: number }) => organizer.id),
      [b.id, a.id],
    );
  });

  it('refuses more than 500 organizers, as a list or as CSV, before reading them, and stores nothing', async () => {
    const title = `Too many organizers ${Date.now()}`;
    const known = await makeOrganizer(server, admin, {});
    const many = (count: number) => [known.id, ...Array.from({ length: count - 1 }, (_, index) => 100_000 + index)];
    for (const organizer of [many(501), many(40_000), many(40_000).join(',')]) {
      const answer = await server.request(`${NS}/events`, {
        method: 'POST',
        auth: admin,
        body: { title, start_date: '2031-05-01 10:00:00', end_date: '2031-05-01 11:00:00', organizer },
      });
      assert.deepEqual([answer.status, answer.body.data?.params?.organizer], [400, 'organizer may name at most 500 posts.']);
    }
    const stored = await db()
      .selectFrom('translations')
      .select('resource_id')
      .where('field', '=', 'title')
      .where('value', '=', title)
      .execute();
    assert.deepEqual(stored, []);
    // 500, most of them unknown, are read at once and refused as unknown.
    const unknown = await server.request(`${NS}/events`, {
      method: 'POST',
      auth: admin,
      body: { title, start_date: '2031-05-01 10:00:00', end_date: '2031-05-01 11:00:00', organizer: many(500) },
    });
    assert.deepEqual([unknown.status, unknown.body.data?.params?.organizer], [400, 'Invalid parameter.']);
  });

  it('reads [], "", 0 and null as no organizers', async () => {
    for (const input of [[], '', 0, null, [''], [0, null]]) {
      assert.deepEqual(
        await resolveOrganizersForWrite(db(), input, contextOf(server, admin), postPasswords(server)),
        [],
        JSON.stringify(input),
      );
    }
  });

  it('matches inline organizers by name and e-mail case-insensitively, else creates them in order (deviation 10)', async () => {
    const existing = await makeOrganizer(server, admin, { organizer: 'Festival Team', email: 'team@festival.example' });
    const known = await makeOrganizer(server, admin, {});
    const ids = await resolveOrganizersForWrite(
      db(),
      [
        { organizer: 'New One', email: 'new1@example.com' },
        { id: known.id },
        { organizer: 'FESTIVAL TEAM', email: 'Team@Festival.example', phone: 'not applied' },
        { organizer: 'Festival Team', email: 'other@festival.example' },
        { organizer: 'New Two' },
      ],
      contextOf(server, admin),
      postPasswords(server),
    );
    assert.equal(ids.length, 5);
    assert.equal(ids[1], known.id);
    assert.equal(ids[2], existing.id);
    assert.ok(![existing.id, known.id].includes(ids[3] as number));
    const names = await Promise.all(ids.map(async (id) => (await server.request(`${ORGANIZERS}/${id}`)).body.organizer));
    assert.deepEqual(names, ['New One', names[1], 'Festival Team', 'Festival Team', 'New Two']);
    assert.equal((await server.request(`${ORGANIZERS}/${existing.id}`)).body.phone, undefined, 'a matched organizer is not overwritten');
  });

  it('rejects unknown or trashed ids, invalid inline organizers and junk, naming organizer, creating nothing', async () => {
    const trashed = await makeOrganizer(server, admin, {});
    await server.request(`${ORGANIZERS}/${trashed.id}`, { method: 'DELETE', auth: admin });
    const before = await db()
      .selectFrom('organizers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    for (const input of [
      23_000,
      [23_000],
      `1,foo`,
      trashed.id,
      { organizer: '' },
      [{ email: 'x@example.com' }],
      [{ organizer: 'Bad', email: 'not-an-email' }],
      [{ organizer: 'Bad', website: 'foo' }],
      'foo',
      [true],
      [[1]],
    ]) {
      await assert.rejects(
        resolveOrganizersForWrite(db(), input, contextOf(server, admin), postPasswords(server)),
        rejectsNaming('organizer'),
        JSON.stringify(input),
      );
    }
    const after = await db()
      .selectFrom('organizers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(after.n), Number(before.n));
  });

  it('inline organizers of contributors get the contributor status rules', async () => {
    const [id] = await resolveOrganizersForWrite(
      db(),
      [{ organizer: 'By contributor', status: 'publish' }],
      contextOf(server, contributor, 'contributor'),
      postPasswords(server),
    );
    const organizer = (await server.request(`${ORGANIZERS}/${id}`, { auth: admin })).body;
    assert.equal(organizer.status, 'pending');
    assert.equal(organizer.author, String(contributor.id));
  });
});

describe('setEventOrganizers, embedded organizers, assertOrganizersReadable', () => {
  it('links in order, re-links in a new order, unlinks; loads per event in link order with stripping', async () => {
    const [a, b, c] = [
      await makeOrganizer(server, admin, {}),
      await makeOrganizer(server, admin, {}),
      await makeOrganizer(server, admin, { email: 'c@example.com', password: 'pw' }),
    ];
    const first = await insertEventRow(server);
    const second = await insertEventRow(server);
    const empty = await insertEventRow(server);
    await setEventOrganizers(db(), first, [c.id, a.id]);
    await setEventOrganizers(db(), second, [b.id]);
    const organizersOf = async (ids: number[], ctx: ReturnType<typeof contextOf>) =>
      new Map([...(await embedsOf(db(), ids, ctx))].map(([id, embeds]) => [id, embeds.organizers]));
    let loaded = await organizersOf([first, second, empty], contextOf(server, null));
    assert.deepEqual(
      (loaded.get(first) as any[]).map((organizer) => organizer.id),
      [c.id, a.id],
    );
    assert.equal((loaded.get(first) as any[])[0].email, '', 'stripped: the organizer has a password');
    assert.equal((loaded.get(first) as any[])[0].organizer, c.organizer);
    assert.deepEqual(
      (loaded.get(second) as any[]).map((organizer) => organizer.id),
      [b.id],
    );
    assert.deepEqual(loaded.get(empty), []);
    await setEventOrganizers(db(), first, [a.id, b.id, c.id]);
    loaded = await organizersOf([first], contextOf(server, admin));
    assert.deepEqual(
      (loaded.get(first) as any[]).map((organizer) => organizer.id),
      [a.id, b.id, c.id],
    );
    await setEventOrganizers(db(), first, []);
    assert.deepEqual((await organizersOf([first], contextOf(server, admin))).get(first), []);
  });

  it('assertOrganizersReadable names organizer for an unknown id, and for one the caller may not read', async () => {
    const organizer = await makeOrganizer(server, admin, {});
    const draft = await makeOrganizer(server, admin, { status: 'draft' });
    await assertOrganizersReadable(db(), [organizer.id], contextOf(server, null));
    await assert.rejects(assertOrganizersReadable(db(), [23_000], contextOf(server, null)), rejectsNaming('organizer'));
    await assert.rejects(assertOrganizersReadable(db(), [draft.id], contextOf(server, null)), rejectsNaming('organizer'));
    await assertOrganizersReadable(db(), [draft.id], contextOf(server, admin));
  });
});

describe('organizers in event writes (through the events routes)', () => {
  it('creates inline organizers in order, keeps them on updates without organizer, re-orders, unlinks with []', async () => {
    const known = await makeOrganizer(server, admin, { organizer: 'Known' });
    const created = await server.request(`${NS}/events`, {
      method: 'POST',
      auth: admin,
      body: {
        title: 'Fair',
        start_date: 'tomorrow 10:00',
        end_date: 'tomorrow 18:00',
        organizer: [{ organizer: 'Org A' }, { id: known.id }, { organizer: 'Org B', email: 'b@example.com' }],
      },
    });
    assert.equal(created.status, 201, created.text);
    const names = created.body.organizer.map((organizer: any) => organizer.organizer);
    assert.deepEqual(names, ['Org A', 'Known', 'Org B']);
    const eventUrl = `${NS}/events/${created.body.id}`;
    const untouched = await server.request(eventUrl, { method: 'POST', auth: admin, body: { title: 'Fair 2' } });
    assert.deepEqual(
      untouched.body.organizer.map((organizer: any) => organizer.organizer),
      names,
      'omitted means unchanged (deviation 2)',
    );
    const ids = created.body.organizer.map((organizer: any) => organizer.id);
    const reordered = await server.request(eventUrl, { method: 'POST', auth: admin, body: { organizer: `${ids[2]},${ids[0]}` } });
    assert.deepEqual(
      reordered.body.organizer.map((organizer: any) => organizer.id),
      [ids[2], ids[0]],
    );
    const filtered = await server.request(`${NS}/events?organizer=${ids[2]}`);
    assert.deepEqual(
      filtered.body.events.map((event: any) => event.id),
      [created.body.id],
    );
    await server.request(`${ORGANIZERS}/${ids[2]}`, { method: 'DELETE', auth: admin });
    assert.deepEqual(
      (await server.request(eventUrl)).body.organizer.map((organizer: any) => organizer.id),
      [ids[0]],
    );
    const cleared = await server.request(eventUrl, { method: 'POST', auth: admin, body: { organizer: [] } });
    assert.deepEqual(cleared.body.organizer, []);
  });
});
