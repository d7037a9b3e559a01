import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';

const NS = '/calendar/events/v1';

/** `YYYY-MM-DD HH:MM` some days from now (inside the events list's default window). */
function daysAhead(days: number, hour = 10): string {
  const date = new Date(Date.now() + days * 86_400_000);
  return `${date.toISOString().slice(0, 10)} ${String(hour).padStart(2, '0')}:00`;
}

describe('categories and tags through the events routes', () => {
  let server: TestServer;
  let admin: Credentials;
  let seq = 0;
  const unique = (label: string) => `${label}${(seq += 1)}e`;

  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  const createTerm = async (collection: 'categories' | 'tags', body: Record<string, unknown>) => {
    const response = await server.request(`${NS}/${collection}`, { method: 'POST', auth: admin, body });
    assert.equal(response.status, 201, response.text);
    return response.body;
  };
  const createEvent = async (body: Record<string, unknown>, auth: Credentials = admin) =>
    server.request(`${NS}/events`, {
      method: 'POST',
      auth,
      body: { title: unique('Event'), start_date: daysAhead(10), end_date: daysAhead(10, 12), ...body },
    });
  const countOf = async (collection: string, id: number) => (await server.request(`${NS}/${collection}/${id}`)).body.count;

  it('keeps counts exact through create, status changes, trash, restore, unlinking and delete', async () => {
    const category = await createTerm('categories', { name: unique('Life cat') });
    const tag = await createTerm('tags', { name: unique('Life tag') });
    const created = await createEvent({ categories: [category.id], tags: tag.slug });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(
      created.body.categories.map((t: any) => [t.id, t.count]),
      [[category.id, 1]],
    );
    const id = created.body.id;
    const draft = await createEvent({ categories: String(category.id), status: 'draft' });
    assert.equal(draft.status, 201);
    assert.equal(await countOf('categories', category.id), 1);
    assert.equal(await countOf('tags', tag.id), 1);

    const update = (body: Record<string, unknown>) => server.request(`${NS}/events/${id}`, { method: 'POST', auth: admin, body });
    assert.equal((await update({ status: 'draft' })).status, 200);
    assert.equal(await countOf('categories', category.id), 0);
    const hidden = await server.request(`${NS}/categories?include=${category.id}`);
    assert.equal(hidden.body.total, 0);
    assert.equal((await update({ status: 'publish' })).status, 200);
    assert.equal(await countOf('categories', category.id), 1);

    assert.equal((await server.request(`${NS}/events/${id}`, { method: 'DELETE', auth: admin })).status, 200);
    assert.equal(await countOf('categories', category.id), 0);
    assert.equal(await countOf('tags', tag.id), 0);
    assert.equal((await update({ status: 'publish' })).status, 200);
    assert.equal(await countOf('categories', category.id), 1);
    assert.equal(await countOf('tags', tag.id), 1);

    const unlinked = await update({ tags: [] });
    assert.deepEqual(unlinked.body.tags, []);
    assert.equal(unlinked.body.categories.length, 1);
    assert.equal(await countOf('tags', tag.id), 0);
    assert.equal(await countOf('categories', category.id), 1);
    const untouched = await update({ title: 'Renamed' });
    assert.equal(untouched.body.categories.length, 1);

    assert.equal((await server.request(`${NS}/events/${id}?force=true`, { method: 'DELETE', auth: admin })).status, 200);
    assert.equal(await countOf('categories', category.id), 0);
    const postFilter = await server.request(`${NS}/categories?post=${draft.body.id}`, { auth: admin });
    assert.equal(postFilter.status, 200);
    assert.deepEqual(postFilter.body.categories, []);
    const postFilterAll = await server.request(`${NS}/categories?post=${draft.body.id}&hide_empty=0`, { auth: admin });
    assert.deepEqual(
      postFilterAll.body.categories.map((t: any) => t.id),
      [category.id],
    );
  });

  it('counts concurrent event writes exactly and creates a new tag named by all of them once', async () => {
    const name = unique('Fresh tag');
    const category = await createTerm('categories', { name: unique('Busy cat') });
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => createEvent({ tags: name, categories: [category.id], status: i < 7 ? 'publish' : 'draft' })),
    );
    for (const response of responses) assert.equal(response.status, 201, response.text);
    const tagIds = new Set(responses.map((response) => response.body.tags[0].id));
    assert.equal(tagIds.size, 1);
    const [tagId] = [...tagIds];
    assert.equal(await countOf('tags', tagId), 7);
    assert.equal(await countOf('categories', category.id), 7);
    await Promise.all(
      responses.slice(0, 4).map((response) => server.request(`${NS}/events/${response.body.id}`, { method: 'DELETE', auth: admin })),
    );
    assert.equal(await countOf('tags', tagId), 3);
  });

  it('creates terms inline only for users who may create them (deviation 8)', async () => {
    const contributor = await server.createUser('contributor');
    const author = await server.createUser('author');
    const editor = await server.createUser('editor');
    const existing = await createTerm('tags', { name: unique('Known tag') });

    const denied = unique('Contributor cat');
    const refused = await createEvent({ categories: denied }, contributor);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'rest_forbidden');
    assert.equal((await server.request(`${NS}/categories?hide_empty=0&search=${encodeURIComponent(denied)}`)).body.total, 0);
    const reuses = await createEvent({ tags: existing.name }, contributor);
    assert.equal(reuses.status, 201);
    assert.deepEqual(
      reuses.body.tags.map((t: any) => t.id),
      [existing.id],
    );

    const authorCategory = unique('Author cat');
    const allowed = await createEvent({ categories: authorCategory }, author);
    assert.equal(allowed.status, 201);
    assert.equal(allowed.body.categories[0].name, authorCategory);
    const authorTag = await createEvent({ tags: unique('Author tag') }, author);
    assert.equal(authorTag.status, 403);

    const editorTag = unique('Editor tag');
    const editorAllowed = await createEvent({ tags: `${editorTag},${existing.slug}` }, editor);
    assert.equal(editorAllowed.status, 201);
    assert.deepEqual(editorAllowed.body.tags.map((t: any) => t.name).sort(), [editorTag, existing.name].sort());
  });

  it('filters the event list by categories (children included) and tags, by id, slug or name', async () => {
    const prefix = unique('flt');
    const music = await createTerm('categories', { name: `${prefix} Music` });
    const jazz = await createTerm('categories', { name: `${prefix} Jazz`, parent: music.id });
    const theatre = await createTerm('categories', { name: `${prefix} Theatre` });
    const unused = await createTerm('categories', { name: `${prefix} Unused` });
    const outdoor = await createTerm('tags', { name: `${prefix} Outdoor` });
    const free = await createTerm('tags', { name: `${prefix} Free` });
    const concert = (await createEvent({ categories: [music.id], tags: [outdoor.id] })).body.id;
    const gig = (await createEvent({ categories: [jazz.id], tags: [free.id] })).body.id;
    const play = (await createEvent({ categories: [theatre.id], tags: [outdoor.id, free.id] })).body.id;
    const ids = async (query: string) => {
      const response = await server.request(`${NS}/events?per_page=50&${query}`);
      assert.equal(response.status, 200, response.text);
      return response.body.events.map((event: any) => event.id).sort();
    };
    assert.deepEqual(await ids(`categories=${music.id}`), [concert, gig].sort());
    assert.deepEqual(await ids(`categories=${jazz.slug}`), [gig]);
    assert.deepEqual(await ids(`categories=${encodeURIComponent(`${prefix} theatre`)}`), [play]);
    assert.deepEqual(await ids(`categories[]=${jazz.id}&categories[]=${theatre.slug}`), [gig, play].sort());
    assert.deepEqual(await ids(`tags=${outdoor.slug},${free.id}`), [concert, gig, play].sort());
    assert.deepEqual(await ids(`tags=${outdoor.id}&categories=${music.id}`), [concert]);
    assert.deepEqual(await ids(`categories=${unused.id}`), []);
    for (const [param, value] of [
      ['categories', 'foo'],
      ['categories', '999999'],
      ['categories', String(outdoor.id)],
      ['tags', 'foo'],
      ['tags', String(music.id)],
    ]) {
      const response = await server.request(`${NS}/events?${param}=${value}`);
      assert.equal(response.status, 400);
      assert.equal(response.body.code, 'rest_invalid_param');
      assert.ok(param! in response.body.data.params);
    }
  });
});
