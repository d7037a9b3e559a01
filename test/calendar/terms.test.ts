import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { makeEvent } from './terms.factory.ts';
import { assertInvalidParam as invalid } from '../helpers/assertions.ts';

const NS = '/calendar/events/v1';
const TERM_KEYS = ['id', 'count', 'description', 'name', 'slug', 'taxonomy', 'parent', 'meta', 'url', 'urls', 'color'];
const TAG_KEYS = TERM_KEYS.filter((key) => key !== 'parent' && key !== 'color');

describe('categories and tags endpoints', () => {
  let server: TestServer;
  let admin: Credentials;
  let users: Record<'subscriber' | 'contributor' | 'author' | 'editor', Credentials>;
  let seq = 0;
  /** A unique prefix per test, so tests never depend on each other's terms. */
  const unique = (label: string) => `${label}${(seq += 1)}x`;

  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
    users = {
      subscriber: await server.createUser('subscriber'),
      contributor: await server.createUser('contributor'),
      author: await server.createUser('author'),
      editor: await server.createUser('editor'),
    };
  });
  after(async () => server.close());

  const create = async (collection: 'categories' | 'tags', body: Record<string, unknown>, auth: Credentials = admin) => {
    const response = await server.request(`${NS}/${collection}`, { method: 'POST', auth, body });
    assert.equal(response.status, 201, response.text);
    return response.body;
  };
  const list = (collection: string, query = '') => server.request(`${NS}/${collection}${query === '' ? '' : `?${query}`}`);
  const db = () => server.server.store.db;

  describe('archive', () => {
    it('answers an empty taxonomy with 200, zeros, the envelope key order and the headers', async () => {
      const response = await list('tags', 'search=nothing-matches-this');
      assert.equal(response.status, 200);
      assert.deepEqual(Object.keys(response.body), ['rest_url', 'total', 'total_pages', 'tags']);
      assert.equal(response.body.rest_url, `${server.url}${NS}/tags/`);
      assert.equal(response.body.total, 0);
      assert.equal(response.body.total_pages, 0);
      assert.equal(response.headers.get('x-tec-total'), '0');
      assert.equal(response.headers.get('x-tec-totalpages'), '0');
    });

    it('hides terms no published event uses by default, and shows them with hide_empty=false', async () => {
      const prefix = unique('hide');
      const used = await create('categories', { name: `${prefix} used` });
      const unused = await create('categories', { name: `${prefix} unused` });
      const draftOnly = await create('categories', { name: `${prefix} draft only` });
      await makeEvent(db(), { status: 'publish', terms: [used.id] });
      await makeEvent(db(), { status: 'draft', terms: [draftOnly.id] });
      const ids = async (query: string) => (await list('categories', `search=${prefix}&${query}`)).body.categories.map((t: any) => t.id);
      assert.deepEqual(await ids(''), [used.id]);
      assert.deepEqual(await ids('hide_empty=true'), [used.id]);
      assert.deepEqual(await ids('hide_empty=1'), [used.id]);
      for (const off of ['false', '0', 'FALSE']) {
        assert.deepEqual((await ids(`hide_empty=${off}`)).sort(), [used.id, unused.id, draftOnly.id].sort());
      }
      for (const bad of ['', 'yes', 'foo', '2']) invalid(await list('categories', `hide_empty=${bad}`), 'hide_empty');
    });

    it('pages with per_page, links that keep the query with page replaced, and 200 empty beyond the last page', async () => {
      const prefix = unique('page');
      for (let i = 0; i < 5; i += 1) await create('tags', { name: `${prefix} ${i}` });
      const base = `${server.url}${NS}/tags/`;
      const query = `search=${prefix}&hide_empty=0&per_page=2`;
      const first = await list('tags', query);
      assert.equal(first.status, 200);
      assert.equal(first.body.total, 5);
      assert.equal(first.body.total_pages, 3);
      assert.equal(first.headers.get('x-tec-total'), '5');
      assert.equal(first.headers.get('x-tec-totalpages'), '3');
      assert.deepEqual(Object.keys(first.body), ['rest_url', 'total', 'total_pages', 'tags', 'next_rest_url']);
      assert.equal(first.body.rest_url, base);
      assert.equal(first.body.next_rest_url, `${base}?${query}&page=2`);
      assert.equal(first.body.tags.length, 2);
      const second = await list('tags', `page=2&${query}`);
      assert.deepEqual(Object.keys(second.body), ['rest_url', 'total', 'total_pages', 'tags', 'next_rest_url', 'previous_rest_url']);
      assert.equal(second.body.previous_rest_url, `${base}?${query}`);
      assert.equal(second.body.next_rest_url, `${base}?${query}&page=3`);
      const third = await list('tags', `${query}&page=3`);
      assert.equal(third.body.tags.length, 1);
      assert.equal(third.body.previous_rest_url, `${base}?${query}&page=2`);
      assert.equal(third.body.next_rest_url, undefined);
      const beyond = await list('tags', `search=${prefix}&hide_empty=0&per_page=2&page=4`);
      assert.equal(beyond.status, 200);
      assert.deepEqual(beyond.body.tags, []);
      assert.equal(beyond.body.total, 5);
      const far = await list('tags', `search=${prefix}&hide_empty=0&page=9007199254740991`);
      assert.equal(far.status, 200);
      assert.deepEqual(far.body.tags, []);
      const offset = await list('tags', `search=${prefix}&hide_empty=0&per_page=2&offset=3`);
      assert.deepEqual(
        offset.body.tags.map((t: any) => t.id),
        [...second.body.tags, ...third.body.tags].slice(1).map((t: any) => t.id),
      );
      for (const bad of ['', 'foo', '-1']) invalid(await list('tags', `offset=${bad}`), 'offset');
      const all = [first, second, third].flatMap((r) => r.body.tags.map((t: any) => t.id));
      assert.equal(new Set(all).size, 5);
    });

    it('links a page to the same query at the next and previous pages, in the body and the Link header (issue 37)', async () => {
      const prefix = unique('follow');
      const created: number[] = [];
      for (let i = 0; i < 7; i += 1) created.push((await create('categories', { name: `${prefix} ${i}` })).id);
      const base = `${server.url}${NS}/categories/`;
      // What a client of the reference sends (a page size, the empty categories too), and WordPress's own arguments.
      const sent = `per_page=3&hide_empty=false&search=${prefix}&_fields=id,name&translation_language=it`;
      const query = sent.replace(',', '%2C');
      const pages = [await list('categories', sent)];
      assert.equal(pages[0]!.body.next_rest_url, `${base}?${query}&page=2`, 'as sent, page last, no default added');
      assert.equal(pages[0]!.body.rest_url, base, "rest_url stays the reference's bare base");
      for (let page = pages[0]!; page.body.next_rest_url !== undefined; page = pages.at(-1)!) {
        assert.ok((page.headers.get('link') ?? '').includes(`<${page.body.next_rest_url}>; rel="next"`));
        pages.push(await server.request(page.body.next_rest_url));
      }
      const ids = pages.map((page) => page.body.categories.map((term: any) => term.id));
      assert.deepEqual(ids.flat(), created, 'every category once, in order');
      for (const page of pages) assert.deepEqual(Object.keys(page.body.categories[0]), ['id', 'name'], 'the links keep _fields');
      const [, second, last] = pages;
      assert.doesNotMatch(last!.headers.get('link') ?? '', /rel="next"/);
      assert.ok((last!.headers.get('link') ?? '').includes(`<${last!.body.previous_rest_url}>; rel="prev"`));
      assert.equal(last!.body.previous_rest_url, `${base}?${query}&page=2`);
      assert.deepEqual(
        (await server.request(last!.body.previous_rest_url)).body.categories.map((term: any) => term.id),
        ids[1],
      );
      assert.equal(second!.body.previous_rest_url, `${base}?${query}`, 'the first page is the archive root');
      assert.deepEqual(
        (await server.request(second!.body.previous_rest_url)).body.categories.map((term: any) => term.id),
        ids[0],
      );
    });

    it('caps per_page at 50 and rejects non-positive or non-numeric page and per_page', async () => {
      const prefix = unique('cap');
      const capped = await list('tags', `search=${prefix}&per_page=100`);
      assert.equal(capped.status, 200);
      for (const bad of ['foo', '-1', '0', '', 'foo bar', '1.5']) {
        invalid(await list('tags', `page=${encodeURIComponent(bad)}`), 'page');
        invalid(await list('tags', `per_page=${encodeURIComponent(bad)}`), 'per_page');
      }
      const prefix2 = unique('cap');
      for (let i = 0; i < 52; i += 1) await create('tags', { name: `${prefix2}-${String(i).padStart(2, '0')}` });
      const page = await list('tags', `search=${prefix2}&hide_empty=0&per_page=100`);
      assert.equal(page.body.tags.length, 50);
      assert.equal(page.body.total_pages, 2);
    });

    it('searches names and slugs, case-insensitively, in the requested language with fallback', async () => {
      const prefix = unique('Srch');
      const a = await create('tags', { name: `${prefix} Alpha` });
      const b = await create('tags', { name: `${prefix} Beta`, slug: `${prefix}-special-slug` });
      await server.request(`${NS}/tags/${a.id}?translation_language=it`, {
        method: 'POST',
        auth: admin,
        body: { name: `${prefix} Alfa italiana` },
      });
      const ids = async (query: string) => (await list('tags', `hide_empty=0&${query}`)).body.tags.map((t: any) => t.id);
      assert.deepEqual(await ids(`search=${prefix.toUpperCase()} alpha`), [a.id]);
      assert.deepEqual(await ids(`search=special-slug`), [b.id]);
      assert.deepEqual(await ids(`search=Alfa italiana&translation_language=it`), [a.id]);
      assert.deepEqual(await ids(`search=${prefix} Beta&translation_language=it`), [b.id]);
      assert.deepEqual(await ids(`search=${encodeURIComponent("x' OR 1=1 --")}`), []);
      assert.deepEqual(await ids(`search=%25`), []);
      invalid(await list('tags', 'search='), 'search');
    });

    it('includes and excludes terms by id, slug or name, as CSV or array; unknown items are 400', async () => {
      const prefix = unique('inc');
      const a = await create('categories', { name: `${prefix} A` });
      const b = await create('categories', { name: `${prefix} B` });
      const c = await create('categories', { name: `${prefix} C` });
      const tag = await create('tags', { name: `${prefix} tag` });
      const ids = async (query: string) =>
        (await list('categories', `hide_empty=0&search=${prefix}&${query}`)).body.categories.map((t: any) => t.id);
      assert.deepEqual(await ids(`include=${a.id},${c.slug}`), [a.id, c.id]);
      assert.deepEqual(await ids(`include[]=${a.id}&include[]=${encodeURIComponent(b.name)}`), [a.id, b.id]);
      assert.deepEqual(await ids(`exclude=${b.id}`), [a.id, c.id]);
      assert.deepEqual(await ids(`exclude=${a.slug},${encodeURIComponent(c.name.toLowerCase())}`), [b.id]);
      for (const bad of ['', 'foo', '99999', String(tag.id), '99999999999999999999', `${a.id},nope`]) {
        invalid(await list('categories', `include=${encodeURIComponent(bad)}`), 'include');
        invalid(await list('categories', `exclude=${encodeURIComponent(bad)}`), 'exclude');
      }
    });

    it('orders by name by default and by every allowed orderby, ascending or descending', async () => {
      const prefix = unique('ord');
      const c = await create('tags', { name: `${prefix} c`, slug: `${prefix}-a`, description: 'Zed' });
      const a = await create('tags', { name: `${prefix} A`, slug: `${prefix}-c`, description: 'yak' });
      const b = await create('tags', { name: `${prefix} b`, slug: `${prefix}-b`, description: 'xylophone' });
      await makeEvent(db(), { status: 'publish', terms: [b.id, c.id] });
      await makeEvent(db(), { status: 'publish', terms: [b.id] });
      const ids = async (query: string) => (await list('tags', `hide_empty=0&search=${prefix}&${query}`)).body.tags.map((t: any) => t.id);
      assert.deepEqual(await ids(''), [a.id, b.id, c.id]);
      assert.deepEqual(await ids('orderby=name&order=desc'), [c.id, b.id, a.id]);
      assert.deepEqual(await ids('order=DESC'), [c.id, b.id, a.id]);
      assert.deepEqual(await ids('orderby=id'), [c.id, a.id, b.id]);
      assert.deepEqual(await ids('orderby=id&order=desc'), [b.id, a.id, c.id]);
      assert.deepEqual(await ids('orderby=slug'), [c.id, b.id, a.id]);
      assert.deepEqual(await ids('orderby=count&order=desc'), [b.id, c.id, a.id]);
      assert.deepEqual(await ids('orderby=count'), [a.id, c.id, b.id]);
      assert.deepEqual(await ids('orderby=description'), [b.id, a.id, c.id]);
      assert.deepEqual(await ids(`orderby=include&include=${b.id},${c.id},${a.id}`), [b.id, c.id, a.id]);
      assert.deepEqual(await ids('orderby=term_group'), [c.id, a.id, b.id]);
      for (const bad of ['', 'foo', 'slug_order', 'name;drop table terms'])
        invalid(await list('tags', `orderby=${encodeURIComponent(bad)}`), 'orderby');
      for (const bad of ['', 'foo', 'ascending']) invalid(await list('tags', `order=${bad}`), 'order');
    });

    it('filters categories by parent (direct children only); bad or unknown parents are 400', async () => {
      const prefix = unique('par');
      const root = await create('categories', { name: `${prefix} root` });
      const child = await create('categories', { name: `${prefix} child`, parent: root.id });
      const grandchild = await create('categories', { name: `${prefix} grandchild`, parent: child.id });
      const tag = await create('tags', { name: `${prefix} tag` });
      const ids = async (query: string) => (await list('categories', `hide_empty=0&${query}`)).body.categories.map((t: any) => t.id);
      assert.deepEqual(await ids(`parent=${root.id}`), [child.id]);
      assert.deepEqual(await ids(`parent=${child.id}`), [grandchild.id]);
      assert.deepEqual(await ids(`parent=${grandchild.id}`), []);
      for (const bad of ['', 'foo', '0', '2389', String(tag.id), '-1', '99999999999999999999'])
        invalid(await list('categories', `parent=${bad}`), 'parent');
      // `parent` is not an argument of the tag archive: ignored, as WordPress ignores unknown arguments.
      assert.equal((await list('tags', 'parent=foo')).status, 200);
    });

    it('filters by post or event (event wins); unknown, unreadable or malformed events are 400', async () => {
      const prefix = unique('post');
      const one = await create('tags', { name: `${prefix} one` });
      const two = await create('tags', { name: `${prefix} two` });
      const eventA = await makeEvent(db(), { status: 'publish', terms: [one.id] });
      const eventB = await makeEvent(db(), { status: 'publish', terms: [one.id, two.id] });
      const draft = await makeEvent(db(), { status: 'draft', terms: [two.id] });
      const ids = async (query: string, auth?: Credentials) =>
        (await server.request(`${NS}/tags?${query}`, auth === undefined ? {} : { auth })).body.tags.map((t: any) => t.id);
      assert.deepEqual(await ids(`post=${eventA}`), [one.id]);
      assert.deepEqual(await ids(`event=${eventB}`), [one.id, two.id]);
      assert.deepEqual(await ids(`post=${eventA}&event=${eventB}`), [one.id, two.id]);
      assert.deepEqual(await ids(`post=${eventB}&event=${eventA}`), [one.id]);
      for (const param of ['post', 'event']) {
        for (const bad of ['', 'foo', '23000', '0', '99999999999999999999', String(one.id)])
          invalid(await list('tags', `${param}=${bad}`), param);
        invalid(await list('tags', `${param}=${draft}`), param);
        const editorView = await server.request(`${NS}/tags?${param}=${draft}&hide_empty=0`, { auth: users.editor });
        assert.equal(editorView.status, 200);
        assert.deepEqual(
          editorView.body.tags.map((t: any) => t.id),
          [two.id],
        );
      }
    });

    it('filters by exact slug in any language; an empty slug is 400', async () => {
      const prefix = unique('slug');
      const term = await create('tags', { name: `${prefix} en` });
      await server.request(`${NS}/tags/${term.id}?translation_language=it`, {
        method: 'PATCH',
        auth: admin,
        body: { slug: `${prefix}-it` },
      });
      const ids = async (query: string) => (await list('tags', `hide_empty=0&${query}`)).body.tags.map((t: any) => t.id);
      assert.deepEqual(await ids(`slug=${term.slug}`), [term.id]);
      assert.deepEqual(await ids(`slug=${prefix}-it`), [term.id]);
      assert.deepEqual(await ids(`slug=${encodeURIComponent(`${prefix.toUpperCase()} IT`)}`), [term.id]);
      assert.deepEqual(await ids(`slug=${prefix}-nope`), []);
      invalid(await list('tags', 'slug='), 'slug');
      invalid(await list('tags', 'translation_language=fr'), 'translation_language');
    });
  });

  describe('single term', () => {
    it('returns the term-endpoint shape, with urls and the public url built from parent slugs', async () => {
      const prefix = unique('one');
      const root = await create('categories', { name: `${prefix} Root`, description: 'Root things' });
      const child = await create('categories', { name: `${prefix} Child`, parent: root.id });
      const response = await server.request(`${NS}/categories/${child.id}`);
      assert.equal(response.status, 200);
      assert.deepEqual(Object.keys(response.body), TERM_KEYS);
      assert.deepEqual(response.body, {
        id: child.id,
        count: 0,
        description: '',
        name: `${prefix} Child`,
        slug: child.slug,
        taxonomy: 'tribe_events_cat',
        parent: root.id,
        meta: [],
        url: `${server.url}/events/category/${root.slug}/${child.slug}/`,
        urls: {
          self: `${server.url}${NS}/categories/${child.id}`,
          collection: `${server.url}${NS}/categories`,
          up: `${server.url}${NS}/categories/${root.id}`,
        },
        color: '',
      });
      const top = await server.request(`${NS}/categories/${root.id}`);
      assert.equal(top.body.parent, 0);
      assert.equal(top.body.urls.up, undefined);
      assert.equal(top.body.description, 'Root things');
      const tag = await create('tags', { name: `${prefix} Tag` });
      const tagResponse = await server.request(`${NS}/tags/${tag.id}`);
      assert.deepEqual(Object.keys(tagResponse.body), TAG_KEYS);
      assert.equal(tagResponse.body.taxonomy, 'post_tag');
      assert.equal(tagResponse.body.url, `${server.url}/tag/${tag.slug}/`);
    });

    it('answers 400 for an unknown id or an id of the other taxonomy, 404 for a non-numeric one', async () => {
      const tag = await create('tags', { name: unique('other') });
      for (const id of ['0', '23000', '99999999999999999999']) invalid(await server.request(`${NS}/categories/${id}`), 'id');
      invalid(await server.request(`${NS}/categories/${tag.id}`), 'id');
      for (const path of ['categories/foo', 'tags/foo', 'categories/1a', 'tags/-1']) {
        const response = await server.request(`${NS}/${path}`);
        assert.equal(response.status, 404);
        assert.equal(response.body.code, 'rest_no_route');
      }
    });
  });

  describe('create', () => {
    it('creates with 201, a Location to our item route, and the term in the body', async () => {
      const name = unique('Created');
      const response = await server.request(`${NS}/categories`, {
        method: 'POST',
        auth: admin,
        body: { name, description: 'Some <b>bold</b> text' },
      });
      assert.equal(response.status, 201);
      assert.equal(response.headers.get('location'), `${server.url}${NS}/categories/${response.body.id}`);
      assert.deepEqual(Object.keys(response.body), TERM_KEYS);
      assert.equal(response.body.name, name);
      assert.equal(response.body.slug, name.toLowerCase());
      assert.equal(response.body.description, 'Some <b>bold</b> text');
      assert.equal(response.body.count, 0);
      const followed = await server.request(response.headers.get('location')!);
      assert.deepEqual(followed.body, response.body);
    });

    it('accepts form-encoded bodies and query arguments', async () => {
      const name = unique('Form');
      const response = await server.request(`${NS}/tags?description=from-query`, { method: 'POST', auth: admin, form: { name } });
      assert.equal(response.status, 201);
      assert.equal(response.body.name, name);
      assert.equal(response.body.description, 'from-query');
    });

    it('validates name, description, slug and parent', async () => {
      const missing = await server.request(`${NS}/categories`, { method: 'POST', auth: admin, body: {} });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.code, 'rest_missing_callback_param');
      assert.deepEqual(missing.body.data.params, ['name']);
      const post = (body: Record<string, unknown>, collection = 'categories') =>
        server.request(`${NS}/${collection}`, { method: 'POST', auth: admin, body });
      invalid(await post({ name: '' }), 'name');
      invalid(await post({ name: '   ' }), 'name');
      invalid(await post({ name: '<b></b>' }), 'name');
      invalid(await post({ name: 'x'.repeat(201) }), 'name');
      invalid(await post({ name: unique('d'), description: '' }), 'description');
      invalid(await post({ name: unique('s'), slug: '' }), 'slug');
      invalid(await post({ name: unique('s'), slug: '!!!' }), 'slug');
      for (const parent of ['', 'foo', 2389, 0, -1, '99999999999999999999']) invalid(await post({ name: unique('p'), parent }), 'parent');
      const tag = await create('tags', { name: unique('t') });
      invalid(await post({ name: unique('p'), parent: tag.id }), 'parent');
      const count = await server.request(`${NS}/categories?hide_empty=0&per_page=50&search=p`);
      assert.equal(count.status, 200);
    });

    it('refuses a parent on tags with rest_taxonomy_not_hierarchical', async () => {
      const category = await create('categories', { name: unique('c') });
      for (const parent of [category.id, 0, 'foo']) {
        const response = await server.request(`${NS}/tags`, { method: 'POST', auth: admin, body: { name: unique('t'), parent } });
        assert.equal(response.status, 400);
        assert.equal(response.body.code, 'rest_taxonomy_not_hierarchical');
        assert.equal(response.body.message, 'Cannot set parent term, taxonomy is not hierarchical.');
      }
    });

    it('refuses a duplicate name under the same parent (any case) with term_exists and the existing id', async () => {
      const name = unique('Dup');
      const first = await create('categories', { name });
      const again = await server.request(`${NS}/categories`, { method: 'POST', auth: admin, body: { name: name.toUpperCase() } });
      assert.equal(again.status, 400);
      assert.equal(again.body.code, 'term_exists');
      assert.equal(again.body.message, 'A term with the name provided already exists with this parent.');
      assert.equal(again.body.data.term_id, first.id);
      const child = await create('categories', { name, parent: first.id });
      assert.notEqual(child.slug, first.slug);
      const childAgain = await server.request(`${NS}/categories`, { method: 'POST', auth: admin, body: { name, parent: first.id } });
      assert.equal(childAgain.body.code, 'term_exists');
      assert.equal(childAgain.body.data.term_id, child.id);
      const tag = await create('tags', { name });
      const tagAgain = await server.request(`${NS}/tags`, { method: 'POST', auth: admin, body: { name } });
      assert.equal(tagAgain.body.code, 'term_exists');
      assert.equal(tagAgain.body.message, 'A term with the name provided already exists in this taxonomy.');
      assert.equal(tagAgain.body.data.term_id, tag.id);
      // Names are unique per language: the same Italian name on another term is refused, other languages are free.
      const other = await create('tags', { name: unique('Other') });
      const clash = await server.request(`${NS}/tags/${other.id}?translation_language=it`, { method: 'POST', auth: admin, body: { name } });
      assert.equal(clash.status, 200);
      const clashIt = await server.request(`${NS}/tags?translation_language=it`, { method: 'POST', auth: admin, body: { name } });
      assert.equal(clashIt.body.code, 'term_exists');
      assert.equal(clashIt.body.data.term_id, other.id);
    });

    it('refuses a duplicate explicit slug with duplicate_term_slug, and suffixes derived slugs', async () => {
      const prefix = unique('slugdup');
      const first = await create('tags', { name: `${prefix} one`, slug: `${prefix}-taken` });
      const again = await server.request(`${NS}/tags`, {
        method: 'POST',
        auth: admin,
        body: { name: `${prefix} two`, slug: `${prefix}-taken` },
      });
      assert.equal(again.status, 400);
      assert.equal(again.body.code, 'duplicate_term_slug');
      assert.equal(again.body.message, `The slug “${prefix}-taken” is already in use by another term.`);
      const derived = await create('tags', { name: `${prefix}-taken` });
      assert.equal(derived.slug, `${prefix}-taken-2`);
      // Slugs are per taxonomy: a category may use a tag's slug.
      const category = await create('categories', { name: `${prefix} cat`, slug: first.slug });
      assert.equal(category.slug, first.slug);
      const list = await server.request(`${NS}/tags?hide_empty=0&search=${prefix}`);
      assert.equal(list.body.total, 2);
    });

    it('stores a 50-character multi-byte name exactly and finds it again', async () => {
      const head = 'Fête 日本語 🎉 ';
      const name = head + 'ü'.repeat(50 - [...head].length - 1) + 'é';
      assert.equal([...name].length, 50);
      const term = await create('tags', { name, description: 'Ünïcödé — ok' });
      assert.equal(term.name, name);
      const read = await server.request(`${NS}/tags/${term.id}`);
      assert.equal(read.body.name, name);
      assert.equal(read.body.description, 'Ünïcödé — ok');
      const found = await server.request(`${NS}/tags?hide_empty=0&search=${encodeURIComponent('日本語 🎉')}`);
      assert.deepEqual(
        found.body.tags.map((t: any) => t.id),
        [term.id],
      );
      const byName = await server.request(`${NS}/tags?hide_empty=0&include=${encodeURIComponent(name.toUpperCase())}`);
      assert.deepEqual(
        byName.body.tags.map((t: any) => t.id),
        [term.id],
      );
      const dup = await server.request(`${NS}/tags`, { method: 'POST', auth: admin, body: { name: name.toUpperCase() } });
      assert.equal(dup.body.code, 'term_exists');
    });

    it('strips markup from names and scripts from descriptions', async () => {
      const name = unique('Safe');
      const term = await create('tags', {
        name: `<script>alert(1)</script>${name}<b>!</b>`,
        description: '<p onclick="x()">Hi <a href="javascript:alert(1)">there</a></p><script>alert(1)</script>',
      });
      assert.equal(term.name, `${name}!`);
      assert.ok(!term.description.includes('script'));
      assert.ok(!term.description.includes('onclick'));
      assert.ok(!term.description.includes('javascript:'));
    });

    it('writes in translation_language and reads with fallback to the default language', async () => {
      const name = unique('Solo italiano');
      const term = await create('categories', { name, description: 'Descrizione', translation_language: 'it' });
      const en = await server.request(`${NS}/categories/${term.id}`);
      assert.equal(en.body.name, name);
      assert.equal(en.headers.get('content-language'), 'en');
      await server.request(`${NS}/categories/${term.id}`, {
        method: 'PATCH',
        auth: admin,
        body: { name: `${name} EN`, description: 'Description' },
      });
      const enAfter = await server.request(`${NS}/categories/${term.id}`);
      assert.equal(enAfter.body.name, `${name} EN`);
      assert.equal(enAfter.body.description, 'Description');
      const it_ = await server.request(`${NS}/categories/${term.id}?translation_language=it`);
      assert.equal(it_.body.name, name);
      assert.equal(it_.body.description, 'Descrizione');
      assert.equal(it_.headers.get('content-language'), 'it');
      assert.notEqual(enAfter.body.slug, it_.body.slug);
    });
  });

  describe('update', () => {
    it('changes only the fields sent, by POST, PUT or PATCH', async () => {
      const prefix = unique('upd');
      const term = await create('categories', { name: `${prefix} name`, description: 'keep me', slug: `${prefix}-slug` });
      for (const method of ['POST', 'PUT', 'PATCH']) {
        const description = `changed by ${method}`;
        const response = await server.request(`${NS}/categories/${term.id}`, { method, auth: admin, body: { description } });
        assert.equal(response.status, 200);
        assert.deepEqual(Object.keys(response.body), TERM_KEYS);
        assert.equal(response.body.description, description);
        assert.equal(response.body.name, term.name);
        assert.equal(response.body.slug, term.slug);
      }
      const renamed = await server.request(`${NS}/categories/${term.id}`, {
        method: 'PATCH',
        auth: admin,
        body: { name: `${prefix} new`, slug: `${prefix}-new` },
      });
      assert.equal(renamed.body.name, `${prefix} new`);
      assert.equal(renamed.body.slug, `${prefix}-new`);
      assert.equal(renamed.body.description, 'changed by PATCH');
      // The old slug is free again.
      const reuse = await create('tags', { name: `${prefix} reuse`, slug: `${prefix}-slug` });
      assert.equal(reuse.slug, `${prefix}-slug`);
      const noop = await server.request(`${NS}/categories/${term.id}`, { method: 'PATCH', auth: admin, body: {} });
      assert.equal(noop.status, 200);
      assert.equal(noop.body.name, `${prefix} new`);
    });

    it('validates fields like create, and refuses clashing names and slugs', async () => {
      const prefix = unique('updv');
      const a = await create('categories', { name: `${prefix} a`, slug: `${prefix}-a` });
      const b = await create('categories', { name: `${prefix} b` });
      const patch = (id: number, body: Record<string, unknown>) =>
        server.request(`${NS}/categories/${id}`, { method: 'PATCH', auth: admin, body });
      invalid(await patch(b.id, { name: '' }), 'name');
      invalid(await patch(b.id, { description: '' }), 'description');
      invalid(await patch(b.id, { slug: '' }), 'slug');
      invalid(await patch(b.id, { parent: 'foo' }), 'parent');
      invalid(await patch(b.id, { parent: 23000 }), 'parent');
      const exists = await patch(b.id, { name: `${prefix} A` });
      assert.equal(exists.body.code, 'term_exists');
      assert.equal(exists.body.data.term_id, a.id);
      const slug = await patch(b.id, { slug: `${prefix}-a` });
      assert.equal(slug.body.code, 'duplicate_term_slug');
      const unchanged = await server.request(`${NS}/categories/${b.id}`);
      assert.equal(unchanged.body.name, `${prefix} b`);
      assert.equal(unchanged.body.slug, b.slug);
      const tag = await create('tags', { name: `${prefix} tag` });
      const tagParent = await server.request(`${NS}/tags/${tag.id}`, { method: 'PATCH', auth: admin, body: { parent: a.id } });
      assert.equal(tagParent.body.code, 'rest_taxonomy_not_hierarchical');
    });

    it('moves a category under another parent, but never under itself or a descendant', async () => {
      const prefix = unique('move');
      const root = await create('categories', { name: `${prefix} root` });
      const child = await create('categories', { name: `${prefix} child`, parent: root.id });
      const other = await create('categories', { name: `${prefix} other` });
      const moved = await server.request(`${NS}/categories/${child.id}`, { method: 'PATCH', auth: admin, body: { parent: other.id } });
      assert.equal(moved.body.parent, other.id);
      assert.equal(moved.body.url, `${server.url}/events/category/${other.slug}/${child.slug}/`);
      invalid(await server.request(`${NS}/categories/${other.id}`, { method: 'PATCH', auth: admin, body: { parent: other.id } }), 'parent');
      invalid(await server.request(`${NS}/categories/${other.id}`, { method: 'PATCH', auth: admin, body: { parent: child.id } }), 'parent');
      // A sibling with the same name under the new parent is a clash.
      const twin = await create('categories', { name: `${prefix} child` });
      const clash = await server.request(`${NS}/categories/${twin.id}`, { method: 'PATCH', auth: admin, body: { parent: other.id } });
      assert.equal(clash.body.code, 'term_exists');
      assert.equal(clash.body.data.term_id, child.id);
    });

    it('moves a category back to the top level with parent 0; bad parents stay 400 and change nothing', async () => {
      const prefix = unique('top');
      const root = await create('categories', { name: `${prefix} root` });
      const child = await create('categories', { name: `${prefix} child`, parent: root.id });
      const grandchild = await create('categories', { name: `${prefix} grandchild`, parent: child.id });
      const tag = await create('tags', { name: `${prefix} tag` });
      const patch = (body: Record<string, unknown>) =>
        server.request(`${NS}/categories/${child.id}`, { method: 'PATCH', auth: admin, body });
      for (const parent of [-1, tag.id, child.id, grandchild.id, '', 'foo']) invalid(await patch({ parent }), 'parent');
      assert.equal((await server.request(`${NS}/categories/${child.id}`)).body.parent, root.id, 'refused moves change nothing');
      const top = await patch({ parent: 0 });
      assert.equal(top.status, 200, JSON.stringify(top.body));
      assert.equal(top.body.parent, 0);
      assert.equal(top.body.url, `${server.url}/events/category/${child.slug}/`);
      assert.equal(top.body.urls.up, undefined);
      assert.deepEqual(
        (await list('categories', `hide_empty=false&parent=${child.id}`)).body.categories.map((term: { id: number }) => term.id),
        [grandchild.id],
        'its children go with it',
      );
      // A name is unique among its siblings: at the top level too.
      const twin = await create('categories', { name: `${prefix} twin`, parent: root.id });
      await create('categories', { name: `${prefix} twin` });
      const clash = await server.request(`${NS}/categories/${twin.id}`, { method: 'PATCH', auth: admin, body: { parent: 0 } });
      assert.equal(clash.status, 400);
      assert.equal(clash.body.code, 'term_exists');
      const onTag = await server.request(`${NS}/tags/${tag.id}`, { method: 'PATCH', auth: admin, body: { parent: 0 } });
      assert.equal(onTag.body.code, 'rest_taxonomy_not_hierarchical');
    });

    it('answers 400 for an unknown id, even to users without the right', async () => {
      for (const auth of [admin, users.subscriber]) {
        invalid(await server.request(`${NS}/categories/23000`, { method: 'PATCH', auth, body: { name: 'x' } }), 'id');
        invalid(await server.request(`${NS}/tags/23000`, { method: 'DELETE', auth }), 'id');
      }
      invalid(await server.request(`${NS}/tags/23000`, { method: 'DELETE' }), 'id');
    });
  });

  describe('colour (Almanac)', () => {
    const colorOf = async (id: number) => (await server.request(`${NS}/categories/${id}`)).body.color;

    it('is stored in lower case, kept by writes that leave it, changed and removed ("")', async () => {
      const created = await create('categories', { name: unique('colour'), color: '#1A7F5A' });
      assert.equal(created.color, '#1a7f5a');
      assert.equal(await colorOf(created.id), '#1a7f5a');
      const renamed = await server.request(`${NS}/categories/${created.id}`, {
        method: 'POST',
        auth: admin,
        body: { name: unique('renamed') },
      });
      assert.equal(renamed.body.color, '#1a7f5a');
      const changed = await server.request(`${NS}/categories/${created.id}`, { method: 'PATCH', auth: admin, body: { color: '#ffcc00' } });
      assert.equal(changed.status, 200, changed.text);
      assert.equal(await colorOf(created.id), '#ffcc00');
      const listed = await list('categories', `include=${created.id}&hide_empty=false`);
      assert.equal(listed.body.categories[0].color, '#ffcc00');
      await server.request(`${NS}/categories/${created.id}`, { method: 'POST', auth: admin, body: { color: '' } });
      assert.equal(await colorOf(created.id), '');
      assert.equal((await create('categories', { name: unique('plain') })).color, '');
    });

    it('refuses what is not #rrggbb with a 400 naming color, and changes nothing', async () => {
      const created = await create('categories', { name: unique('colour'), color: '#123456' });
      for (const bad of ['red', '#fff', '123456', '#12345g', '#1234567', ' #123456', 'rgb(1,2,3)', 12, '#123456\n']) {
        const name = unique('refused');
        const response = await server.request(`${NS}/categories`, { method: 'POST', auth: admin, body: { name, color: bad } });
        assert.equal(response.status, 400, `${JSON.stringify(bad)}: ${response.text}`);
        invalid(response, 'color');
        invalid(await server.request(`${NS}/categories/${created.id}`, { method: 'PATCH', auth: admin, body: { color: bad } }), 'color');
        assert.equal((await list('categories', `search=${name}&hide_empty=false`)).body.total, 0);
      }
      assert.equal(await colorOf(created.id), '#123456');
    });

    it('is no field of tags, and is described in the OpenAPI document', async () => {
      const tag = await create('tags', { name: unique('tag'), color: '#123456' });
      assert.equal('color' in tag, false);
      const doc = (await server.request(`${NS}/doc`)).body;
      const text = JSON.stringify(doc);
      const write = doc.paths['/categories'].post;
      assert.match(JSON.stringify(write), /"color"/);
      assert.match(text, /Colour of the category’s events on the calendar’s pages/);
      assert.doesNotMatch(JSON.stringify(doc.paths['/tags'].post), /"color"/);
    });
  });

  describe('delete', () => {
    it('deletes permanently, answers with the term as it was, and moves children up', async () => {
      const prefix = unique('del');
      const root = await create('categories', { name: `${prefix} root` });
      const middle = await create('categories', { name: `${prefix} middle`, parent: root.id });
      const leaf = await create('categories', { name: `${prefix} leaf`, parent: middle.id });
      const event = await makeEvent(db(), { status: 'publish', terms: [middle.id] });
      const response = await server.request(`${NS}/categories/${middle.id}`, { method: 'DELETE', auth: admin });
      assert.equal(response.status, 200);
      assert.deepEqual(Object.keys(response.body), TERM_KEYS);
      assert.equal(response.body.id, middle.id);
      assert.equal(response.body.count, 1);
      assert.equal(response.body.parent, root.id);
      assert.equal(response.body.name, `${prefix} middle`);
      invalid(await server.request(`${NS}/categories/${middle.id}`), 'id');
      invalid(await server.request(`${NS}/categories/${middle.id}`, { method: 'DELETE', auth: admin }), 'id');
      const moved = await server.request(`${NS}/categories/${leaf.id}`);
      assert.equal(moved.body.parent, root.id);
      const links = await db().selectFrom('event_terms').selectAll().where('event_id', '=', event).execute();
      assert.deepEqual(links, []);
      // Its name and slug are free again.
      const reborn = await create('categories', { name: `${prefix} middle`, slug: middle.slug, parent: root.id });
      assert.equal(reborn.slug, middle.slug);
    });
  });

  describe('permissions', () => {
    const roles = ['anonymous', 'subscriber', 'contributor', 'author', 'editor', 'administrator'] as const;
    const allowed = { categories: ['author', 'editor', 'administrator'], tags: ['editor', 'administrator'] };
    for (const collection of ['categories', 'tags'] as const) {
      for (const role of roles) {
        const may = (allowed[collection] as readonly string[]).includes(role);
        it(`${role} ${may ? 'may' : 'may not'} create, update and delete ${collection}; everyone reads`, async () => {
          const auth = role === 'anonymous' ? undefined : role === 'administrator' ? admin : users[role];
          const options = auth === undefined ? {} : { auth };
          const denied = role === 'anonymous' ? 401 : 403;
          const existing = await create(collection, { name: unique(`${role}-existing`) });
          const created = await server.request(`${NS}/${collection}`, { method: 'POST', ...options, body: { name: unique(role) } });
          const updated = await server.request(`${NS}/${collection}/${existing.id}`, {
            method: 'PATCH',
            ...options,
            body: { description: 'by role' },
          });
          const deleted = await server.request(`${NS}/${collection}/${existing.id}`, { method: 'DELETE', ...options });
          if (may) {
            assert.equal(created.status, 201);
            assert.equal(updated.status, 200);
            assert.equal(deleted.status, 200);
          } else {
            for (const response of [created, updated, deleted]) {
              assert.equal(response.status, denied);
              assert.equal(response.body.code, 'rest_forbidden');
            }
            const still = await server.request(`${NS}/${collection}/${existing.id}`, options);
            assert.equal(still.status, 200);
            assert.equal(still.body.description, '');
            assert.equal((await server.request(`${NS}/${collection}?hide_empty=0`, options)).status, 200);
          }
        });
      }
    }
  });

  describe('hostile input', () => {
    const hostile = [
      '',
      ' ',
      'foo',
      '-1',
      '0',
      '1e400',
      '99999999999999999999',
      "' OR 1=1 --",
      '"; DROP TABLE terms; --',
      '<script>alert(1)</script>',
      '%',
      '_',
      '\\',
      '\u0000',
      'é日本🎉',
      'x'.repeat(10_000),
      '1,2,foo,,',
    ];
    const listArgs = [
      'page',
      'per_page',
      'search',
      'exclude',
      'include',
      'order',
      'orderby',
      'hide_empty',
      'parent',
      'post',
      'event',
      'slug',
      'translation_language',
    ];

    it('answers every list argument with 200 or 400, never a 5xx', async () => {
      for (const collection of ['categories', 'tags']) {
        for (const arg of listArgs) {
          for (const value of hostile) {
            const single = await server.request(`${NS}/${collection}?${new URLSearchParams({ [arg]: value })}`);
            assert.ok([200, 400].includes(single.status), `${collection} ${arg}=${value.slice(0, 20)}: ${single.status}`);
          }
          const repeated = await server.request(`${NS}/${collection}?${arg}[]=1&${arg}[]=foo`);
          assert.ok([200, 400].includes(repeated.status), `${arg}[]: ${repeated.status}`);
        }
      }
    });

    it('answers hostile write bodies with 201 or 400 and stores them harmlessly', async () => {
      const values: unknown[] = [...hostile, 42, -1, 1.5, true, null, [], ['a'], { a: 1 }];
      for (const collection of ['categories', 'tags'] as const) {
        for (const field of ['name', 'description', 'slug', 'parent']) {
          for (const value of values) {
            const body = { name: unique('hostile'), [field]: value };
            const created = await server.request(`${NS}/${collection}`, { method: 'POST', auth: admin, body });
            assert.ok(
              [201, 400].includes(created.status),
              `${collection} ${field}=${JSON.stringify(value).slice(0, 20)}: ${created.status}`,
            );
            if (created.status === 201) {
              assert.ok(!JSON.stringify(created.body).includes('<script'));
            }
          }
        }
        const raw = await server.request(`${NS}/${collection}`, {
          method: 'POST',
          auth: admin,
          body: '{"name":',
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(raw.status, 400);
        const array = await server.request(`${NS}/${collection}`, { method: 'POST', auth: admin, body: [1, 2] });
        assert.equal(array.status, 400);
      }
    });
  });

  it('lists the routes in the namespace index', async () => {
    const index = await server.request(`${NS}/`);
    const keys = Object.keys(index.body.routes).filter((key) => /categories|tags/.test(key));
    assert.deepEqual(
      keys.map((key) => key.replace(/\(.*\)/, '{id}')),
      [
        '/calendar/events/v1/categories',
        '/calendar/events/v1/categories/{id}',
        '/calendar/events/v1/tags',
        '/calendar/events/v1/tags/{id}',
      ],
    );
  });
});
