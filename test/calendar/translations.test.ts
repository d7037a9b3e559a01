import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';

const NS = '/calendar/events/v1';

describe('content in English and Italian (translation_language)', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  const post = (path: string, body: unknown, lang?: string) =>
    server.request(`${NS}${path}${lang === undefined ? '' : `?translation_language=${lang}`}`, { method: 'POST', auth: admin, body });
  const get = (path: string, lang?: string) =>
    server.request(`${NS}${path}${lang === undefined ? '' : `${path.includes('?') ? '&' : '?'}translation_language=${lang}`}`);

  const eventDates = { start_date: '2027-01-06 10:00:00', end_date: '2027-01-06 18:00:00' };

  it('writes an event in English, adds Italian, reads both with per-field fallback', async () => {
    const created = await post('/events', { title: 'Epiphany fair', description: 'A winter fair', excerpt: 'Fair', ...eventDates });
    assert.equal(created.status, 201);
    const id = created.body.id as number;

    const italian = await post(`/events/${id}`, { title: 'Festa della Befana à Città', description: 'Una fiera invernale' }, 'it');
    assert.equal(italian.status, 200);
    assert.equal(italian.body.title, 'Festa della Befana à Città');

    const en = await get(`/events/${id}`, 'en');
    assert.equal(en.body.title, 'Epiphany fair');
    assert.equal(en.body.description, '<p>A winter fair</p>');
    assert.equal(en.headers.get('content-language'), 'en');

    const it_ = await get(`/events/${id}`, 'it');
    assert.equal(it_.headers.get('content-language'), 'it');
    assert.equal(it_.body.title, 'Festa della Befana à Città');
    assert.equal(it_.body.description, '<p>Una fiera invernale</p>');
    // Not written in Italian: falls back to English, field by field.
    assert.equal(it_.body.excerpt, '<p>Fair</p>');
    // Shared fields are the same in both languages.
    assert.equal(it_.body.start_date, en.body.start_date);
    assert.equal(it_.body.json_ld.inLanguage, 'it');
    assert.equal(en.body.json_ld.inLanguage, 'en');
  });

  it('finds an event by its slug in either language and searches Italian text with accents', async () => {
    const created = await post('/events', { title: 'Harvest festival', ...eventDates });
    const id = created.body.id as number;
    const italian = await post(`/events/${id}`, { title: 'Sagra della vendemmia à Città' }, 'it');
    assert.equal(italian.status, 200);
    const slugs = { en: created.body.slug as string, it: italian.body.slug as string };
    assert.notEqual(slugs.en, slugs.it);
    for (const slug of Object.values(slugs)) {
      const found = await get(`/events/by-slug/${slug}`);
      assert.equal(found.status, 200, slug);
      assert.equal(found.body.id, id);
    }
    const search = await get(`/events?search=${encodeURIComponent('vendemmia CITTÀ')}&start_date=2027-01-01`, 'it');
    assert.equal(search.status, 200);
    assert.deepEqual(
      search.body.events.map((event: { id: number }) => event.id),
      [id],
    );
    const none = await get(`/events?search=vendemmia&start_date=2027-01-01`, 'en');
    assert.equal(none.body.total, 0, 'English search does not see Italian-only text');
  });

  it('a language switch on update keeps the other language', async () => {
    const created = await post('/events', { title: 'Concert', description: 'Music', ...eventDates });
    const id = created.body.id as number;
    await post(`/events/${id}`, { title: 'Concerto' }, 'it');
    await post(`/events/${id}`, { description: 'Live music' }, 'en');
    const en = await get(`/events/${id}`, 'en');
    const it_ = await get(`/events/${id}`, 'it');
    assert.equal(en.body.title, 'Concert');
    assert.equal(en.body.description, '<p>Live music</p>');
    assert.equal(it_.body.title, 'Concerto');
    assert.equal(it_.body.description, '<p>Live music</p>');
  });

  it('an item created only in Italian reads in Italian in English too, until English is written', async () => {
    const created = await post('/events', { title: 'Solo italiano', ...eventDates }, 'it');
    assert.equal(created.status, 201);
    const id = created.body.id as number;
    assert.equal((await get(`/events/${id}`, 'en')).body.title, 'Solo italiano');
    await post(`/events/${id}`, { title: 'Italian only' }, 'en');
    assert.equal((await get(`/events/${id}`, 'en')).body.title, 'Italian only');
    assert.equal((await get(`/events/${id}`, 'it')).body.title, 'Solo italiano');
  });

  it('translates venues, organizers and terms, embedded in an event too, and filters by an Italian term slug', async () => {
    const venue = await post('/venues', { venue: 'Town hall', description: 'Big hall', city: 'Trento' });
    assert.equal(venue.status, 201);
    assert.equal((await post(`/venues/${venue.body.id}`, { venue: 'Municipio' }, 'it')).status, 200);
    const organizer = await post('/organizers', { organizer: 'Tourist office' });
    assert.equal((await post(`/organizers/${organizer.body.id}`, { organizer: 'Ufficio turistico' }, 'it')).status, 200);
    const category = await post('/categories', { name: 'Markets' });
    assert.equal(category.status, 201);
    const italianCategory = await post(`/categories/${category.body.id}`, { name: 'Mercatini' }, 'it');
    assert.equal(italianCategory.status, 200);
    assert.equal(italianCategory.body.name, 'Mercatini');

    const event = await post('/events', {
      title: 'Christmas market',
      ...eventDates,
      venue: venue.body.id,
      organizer: [organizer.body.id],
      categories: [category.body.id],
    });
    assert.equal(event.status, 201);

    const italian = await get(`/events/${event.body.id}`, 'it');
    assert.equal(italian.body.venue.venue, 'Municipio');
    assert.equal(italian.body.venue.city, 'Trento');
    assert.equal(italian.body.organizer[0].organizer, 'Ufficio turistico');
    assert.equal(italian.body.categories[0].name, 'Mercatini');
    const english = await get(`/events/${event.body.id}`, 'en');
    assert.equal(english.body.venue.venue, 'Town hall');
    assert.equal(english.body.categories[0].name, 'Markets');

    for (const slug of [category.body.slug, italianCategory.body.slug]) {
      const filtered = await get(`/events?categories=${slug}&start_date=2027-01-01`, 'it');
      assert.equal(filtered.status, 200, slug);
      assert.deepEqual(
        filtered.body.events.map((e: { id: number }) => e.id),
        [event.body.id],
      );
    }
    assert.equal((await get(`/venues/by-slug/${(await get(`/venues/${venue.body.id}`, 'it')).body.slug}`)).body.id, venue.body.id);
    assert.equal((await get(`/categories/${category.body.id}`, 'en')).body.name, 'Markets');
  });

  for (const [resource, nameField, listKey] of [
    ['venues', 'venue', 'venues'],
    ['organizers', 'organizer', 'organizers'],
    ['categories', 'name', 'categories'],
    ['tags', 'name', 'tags'],
  ] as const) {
    it(`${resource}: English and Italian side by side, by-slug in both, Italian search, language switch keeps the other`, async () => {
      const english = { [nameField]: `Piazza market ${resource}`, description: 'Open air' };
      const created = await post(`/${resource}`, english);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = created.body.id as number;
      const italian = await post(`/${resource}/${id}`, { [nameField]: `Mercato di Città ${resource}` }, 'it');
      assert.equal(italian.status, 200, JSON.stringify(italian.body));
      await post(`/${resource}/${id}`, { description: 'Open air, all year' }, 'en');

      const inItalian = await get(`/${resource}/${id}`, 'it');
      const inEnglish = await get(`/${resource}/${id}`, 'en');
      assert.equal(inItalian.body[nameField], `Mercato di Città ${resource}`);
      assert.equal(inEnglish.body[nameField], `Piazza market ${resource}`);
      // Description never written in Italian: falls back to English, field by field.
      assert.match(inItalian.body.description, /Open air, all year/);
      assert.notEqual(inItalian.body.slug, inEnglish.body.slug);

      if (resource === 'venues' || resource === 'organizers') {
        for (const slug of [inItalian.body.slug, inEnglish.body.slug]) {
          const found = await get(`/${resource}/by-slug/${slug}`);
          assert.equal(found.status, 200, slug);
          assert.equal(found.body.id, id);
        }
      }
      const search = await get(`/${resource}?search=${encodeURIComponent('CITTÀ')}&hide_empty=false`, 'it');
      assert.equal(search.status, 200, JSON.stringify(search.body));
      assert.ok(
        search.body[listKey].some((item: { id: number }) => item.id === id),
        `${resource} Italian search`,
      );
    });
  }

  for (const value of ['IT', 'de', '', 'en,it']) {
    it(`rejects translation_language=${JSON.stringify(value)} with rest_invalid_param naming it`, async () => {
      for (const path of ['/events', '', '/doc', '/venues', '/categories']) {
        const response = await server.request(`${NS}${path}?translation_language=${encodeURIComponent(value)}`);
        assert.equal(response.status, 400, `${path} ${value}`);
        assert.equal(response.body.code, 'rest_invalid_param');
        assert.ok('translation_language' in response.body.data.params, path);
      }
    });
  }

  it('rejects translation_language given twice (an array)', async () => {
    const response = await server.request(`${NS}/events?translation_language=en&translation_language=it`);
    assert.equal(response.status, 400);
    assert.ok('translation_language' in response.body.data.params);
  });

  it('documents translation_language on every route of the namespace index that answers calendar content', async () => {
    const index = await get('');
    for (const [route, entry] of Object.entries(index.body.routes) as [string, { endpoints: { args: object }[] }][]) {
      // Webhook subscriptions answer settings and a delivery log, in no language (their notices are ids).
      if (route.startsWith(`${NS}/webhooks`)) continue;
      for (const endpoint of entry.endpoints) assert.ok('translation_language' in endpoint.args, route);
    }
  });
});

describe('form bodies', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  it('reads x[]=a&x[]=b lists from application/x-www-form-urlencoded bodies', async () => {
    const admin = await server.admin();
    const created = await server.request(`${NS}/events`, {
      method: 'POST',
      auth: admin,
      body: 'title=Form+event&start_date=2027-02-01+10:00&end_date=2027-02-01+12:00&tags[]=alpha&tags[]=beta',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(created.status, 201);
    assert.deepEqual(
      created.body.tags.map((tag: { name: string }) => tag.name),
      ['alpha', 'beta'],
    );
  });
});
