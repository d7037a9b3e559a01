import assert from 'node:assert/strict';
import type { Kysely } from 'kysely';
import { after, before, describe, it } from 'node:test';
import { deleteEvent } from '../../src/calendar/events/events.repository.ts';
import type { RequestContext } from '../../src/calendar/common/context.ts';
import { eventTermsWrite, resolveTermFilter, resolveTermsForWrite } from '../../src/calendar/terms/terms.links.ts';
import type { Taxonomy } from '../../src/calendar/calendar.tables.ts';
import type { Role } from '../../src/platform/auth/capabilities.ts';
import type { Database } from '../../src/platform/db/schema.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { toWpError } from '../../src/calendar/errors.ts';
import { contextFor } from './context.helper.ts';
import { countingStatements } from '../helpers/statements.ts';
import { embedsOf } from './embeds.helper.ts';
import { loadEventEmbeds } from '../../src/calendar/events/events.embeds.ts';
import { makeEvent, setEventStatus } from './terms.factory.ts';

const NS = '/calendar/events/v1';
const EMBEDDED_KEYS = [
  'name',
  'slug',
  'term_group',
  'term_taxonomy_id',
  'taxonomy',
  'description',
  'parent',
  'count',
  'filter',
  'id',
  'urls',
];

describe('term counts and the links events use', () => {
  let server: TestServer;
  let admin: Credentials;
  let seq = 0;
  const unique = (label: string) => `${label}${(seq += 1)}q`;
  const db = (): Kysely<Database> => server.server.store.db;
  const ctxOf = (role: Role | null, language: 'en' | 'it' = 'en'): RequestContext =>
    contextFor(server, role === null ? null : { id: admin.id, username: 'u', displayName: 'u', role }, { language });
  /** The event's terms of `taxonomy` set to those `items` name, as an event write sets them. */
  const writeTerms = async (trx: Kysely<Database>, event: number, taxonomy: Taxonomy, items: unknown, linked?: readonly number[]) =>
    (await eventTermsWrite(trx, event, taxonomy, items, ctxOf('editor'), linked))();
  /** The embedded terms of events by id; every asked id gets an entry. */
  const termsOf = async (handle: Kysely<Database>, ids: number[], ctx: RequestContext) => {
    const embeds = await embedsOf(handle, ids, ctx);
    return new Map(
      ids.map((id) => [
        id,
        { categories: [...(embeds.get(id)?.categories ?? [])] as any[], tags: [...(embeds.get(id)?.tags ?? [])] as any[] },
      ]),
    );
  };

  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  const create = async (collection: 'categories' | 'tags', body: Record<string, unknown>) => {
    const response = await server.request(`${NS}/${collection}`, { method: 'POST', auth: admin, body });
    assert.equal(response.status, 201, response.text);
    return response.body;
  };
  const countOf = async (collection: string, id: number) => (await server.request(`${NS}/${collection}/${id}`)).body.count;
  const rejection = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      return error as { status: number; code: string; data: Record<string, any> };
    }
    assert.fail('expected a rejection');
  };

  describe('count', () => {
    it('counts published events only, through the whole event life cycle, hiding empty terms', async () => {
      const tag = await create('tags', { name: unique('life') });
      const listed = async () => (await server.request(`${NS}/tags?include=${tag.id}`)).body.tags.length;
      const event = await makeEvent(db(), { status: 'publish', terms: [tag.id] });
      assert.equal(await countOf('tags', tag.id), 1);
      assert.equal(await listed(), 1);
      const past = '2020-01-01 00:00:00';
      const future = '2999-01-01 00:00:00';
      const steps: [string, string | undefined, number][] = [
        ['draft', undefined, 0],
        ['pending', undefined, 0],
        ['private', undefined, 0],
        ['future', future, 0],
        ['future', past, 1],
        ['trash', undefined, 0],
        ['publish', undefined, 1],
      ];
      for (const [status, date, expected] of steps) {
        await setEventStatus(db(), event, status, date);
        assert.equal(await countOf('tags', tag.id), expected, `after ${status} ${date ?? ''}`);
        assert.equal(await listed(), expected === 0 ? 0 : 1);
        const embedded = (await termsOf(db(), [event], ctxOf(null))).get(event)!;
        assert.equal(embedded.tags[0]!.count, expected);
      }
      const second = await makeEvent(db(), { status: 'publish', terms: [tag.id] });
      assert.equal(await countOf('tags', tag.id), 2);
      await db()
        .transaction()
        .execute((trx) => writeTerms(trx, second, 'tag', []));
      assert.equal(await countOf('tags', tag.id), 1);
      await deleteEvent(db(), event);
      assert.equal(await countOf('tags', tag.id), 0);
      assert.equal(await listed(), 0);
    });

    it('stays exact under concurrent event writes', async () => {
      const tag = await create('tags', { name: unique('busy') });
      const other = await create('tags', { name: unique('busy-other') });
      await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          db()
            .transaction()
            .execute(async (trx) => {
              const event = await makeEvent(trx, { status: i % 4 === 0 ? 'draft' : 'publish' });
              await writeTerms(trx, event, 'tag', [tag.id, other.id, tag.id]);
            }),
        ),
      );
      assert.equal(await countOf('tags', tag.id), 12);
      assert.equal(await countOf('tags', other.id), 12);
    });

    it('creates one term when concurrent event writes name the same new tag', async () => {
      const name = unique('Brand New');
      const ids = await Promise.all(
        Array.from({ length: 8 }, () =>
          db()
            .transaction()
            .execute((trx) => resolveTermsForWrite(trx, 'tag', [name], ctxOf('editor'))),
        ),
      );
      assert.equal(new Set(ids.flat()).size, 1);
      const found = await server.request(`${NS}/tags?hide_empty=0&search=${encodeURIComponent(name)}`);
      assert.equal(found.body.total, 1);
    });
  });

  describe('embedded terms', () => {
    it('embeds terms in the embedded shape, sorted by name, in the requested language', async () => {
      const prefix = unique('emb');
      const parent = await create('categories', { name: `${prefix} parent` });
      const zeta = await create('categories', { name: `${prefix} Zeta`, parent: parent.id, description: 'Last' });
      const alpha = await create('categories', { name: `${prefix} alpha` });
      const tag = await create('tags', { name: `${prefix} tag` });
      await server.request(`${NS}/categories/${alpha.id}?translation_language=it`, {
        method: 'PATCH',
        auth: admin,
        body: { name: `${prefix} zz italiano` },
      });
      const event = await makeEvent(db(), { status: 'publish', terms: [zeta.id, alpha.id, tag.id] });
      const bare = await makeEvent(db(), { status: 'publish' });
      const terms = await termsOf(db(), [event, bare, 999999], ctxOf(null));
      assert.deepEqual(terms.get(bare), { categories: [], tags: [] });
      assert.deepEqual(terms.get(999999), { categories: [], tags: [] });
      const { categories, tags } = terms.get(event)!;
      assert.deepEqual(
        categories.map((t: any) => t.id),
        [alpha.id, zeta.id],
      );
      assert.deepEqual(Object.keys(categories[1]!), EMBEDDED_KEYS);
      assert.deepEqual(categories[1], {
        name: `${prefix} Zeta`,
        slug: zeta.slug,
        term_group: 0,
        term_taxonomy_id: zeta.id,
        taxonomy: 'tribe_events_cat',
        description: 'Last',
        parent: parent.id,
        count: 1,
        filter: 'raw',
        id: zeta.id,
        urls: {
          self: `${server.url}${NS}/categories/${zeta.id}`,
          collection: `${server.url}${NS}/categories`,
          up: `${server.url}${NS}/categories/${parent.id}`,
        },
      });
      assert.equal(categories[0]!.urls.up, undefined);
      assert.deepEqual(Object.keys(tags[0]!), EMBEDDED_KEYS);
      assert.equal(tags[0]!.taxonomy, 'post_tag');
      assert.equal(tags[0]!.parent, 0);
      assert.equal(tags[0]!.urls.self, `${server.url}${NS}/tags/${tag.id}`);
      const italian = (await termsOf(db(), [event], ctxOf(null, 'it'))).get(event)!;
      assert.deepEqual(
        italian.categories.map((t: any) => t.name),
        [`${prefix} Zeta`, `${prefix} zz italiano`],
      );
      // Inside a transaction too (the events module answers writes from one).
      const inTrx = await db()
        .transaction()
        .execute((trx) => termsOf(trx, [event], ctxOf(null)));
      assert.equal(inTrx.get(event)!.categories.length, 2);
    });

    it('costs the same number of queries for one event or many', async () => {
      const tags = [];
      for (let i = 0; i < 5; i += 1) tags.push((await create('tags', { name: unique('q') })).id);
      const category = await create('categories', { name: unique('q') });
      const events = [];
      for (let i = 0; i < 12; i += 1)
        events.push(await makeEvent(db(), { status: 'publish', terms: [category.id, ...tags.slice(0, i % 5)] }));
      const counted = async (ids: number[]) => {
        const rows = await db().selectFrom('events').selectAll().where('id', 'in', ids).execute();
        const counting = countingStatements(db());
        await loadEventEmbeds(counting.db, rows, ctxOf(null), undefined);
        return counting.count();
      };
      // Everything an event embeds: its organizers, its term links, the texts of
      // every kind at once, then the counts (no version: counted afresh, as a write does). No venue, no image: no query.
      assert.equal(await counted(events.slice(1, 2)), 4);
      assert.equal(await counted(events), 4);
    });
  });

  describe('resolveTermsForWrite', () => {
    it('reads CSV strings and arrays: ids, slugs and names in any language; skips unknown ids; collapses duplicates', async () => {
      const prefix = unique('w');
      const a = await create('tags', { name: `${prefix} Alpha` });
      const b = await create('tags', { name: `${prefix} Beta`, slug: `${prefix}-bee` });
      await server.request(`${NS}/tags/${a.id}?translation_language=it`, {
        method: 'PATCH',
        auth: admin,
        body: { name: `${prefix} Alfa` },
      });
      const category = await create('categories', { name: `${prefix} cat` });
      const resolve = (items: unknown, role: Role | null = 'editor', taxonomy: 'tag' | 'category' = 'tag') =>
        db()
          .transaction()
          .execute((trx) => resolveTermsForWrite(trx, taxonomy, items, ctxOf(role)));
      assert.deepEqual(await resolve(`${a.id}, ${prefix}-bee`), [a.id, b.id]);
      assert.deepEqual(await resolve([b.id, String(a.id), `${prefix} alpha`, `${prefix} ALFA`, 987654, '99999999999999999999']), [
        b.id,
        a.id,
      ]);
      assert.deepEqual(await resolve(String(category.id)), []);
      assert.deepEqual(await resolve(''), []);
      assert.deepEqual(await resolve([]), []);
      assert.deepEqual(await resolve(' , '), []);
      const tooMany = await rejection(resolve(Array.from({ length: 501 }, (_, i) => String(i + 1))));
      assert.equal(tooMany.code, 'rest_invalid_param');
      assert.ok('tags' in tooMany.data.params);
      const tooLong = await rejection(resolve('ü'.repeat(201)));
      assert.ok('tags' in tooLong.data.params);
      const nul = await rejection(resolve('a\u0000b'));
      assert.ok('tags' in nul.data.params);
      const markupOnly = await rejection(resolve('<i></i>'));
      assert.ok('tags' in markupOnly.data.params);
    });

    it('creates unknown names only for users who may create terms of the taxonomy (deviation 8)', async () => {
      const resolve = (items: unknown, role: Role | null, taxonomy: 'tag' | 'category') =>
        db()
          .transaction()
          .execute((trx) => resolveTermsForWrite(trx, taxonomy, items, ctxOf(role, 'it')));
      for (const role of [null, 'subscriber', 'contributor'] as const) {
        for (const taxonomy of ['tag', 'category'] as const) {
          const error = await rejection(resolve(unique('denied'), role, taxonomy));
          const { status, body } = toWpError(error, 'request');
          assert.equal(body.code, 'rest_forbidden');
          assert.equal(status, role === null ? 401 : 403);
        }
      }
      const authorTag = await rejection(resolve(unique('author-tag'), 'author', 'tag'));
      assert.equal(authorTag.status, 403);
      const name = unique('Nuova categoria');
      const [created] = await resolve(`${name},${name.toLowerCase()}`, 'author', 'category');
      const read = await server.request(`${NS}/categories/${created}?translation_language=it`);
      assert.equal(read.body.name, name);
      assert.equal(read.body.parent, 0);
      const tagName = unique('Nuovo tag');
      const tagIds = await resolve([tagName, tagName], 'editor', 'tag');
      assert.equal(tagIds.length, 1);
      // A denied creation leaves nothing behind.
      const leftovers = await server.request(`${NS}/tags?hide_empty=0&search=denied`);
      assert.equal(leftovers.body.total, 0);
    });
  });

  describe('eventTermsWrite', () => {
    it('links a new event named by ids in one statement to what resolving them links', async () => {
      const tag = await create('tags', { name: unique('na') });
      const other = await create('tags', { name: unique('nb') });
      const category = await create('categories', { name: unique('nc') });
      // Ids as numbers and as text, repeated, one naming no term and one naming a category: the tags are linked, the rest left out.
      const items = [tag.id, String(other.id), tag.id, 2_000_000_000, category.id];
      const linkedBy = async (linked: readonly number[] | undefined) => {
        const event = await makeEvent(db(), { status: 'publish' });
        await db()
          .transaction()
          .execute((trx) => writeTerms(trx, event, 'tag', items, linked));
        const terms = (await termsOf(db(), [event], ctxOf(null))).get(event)!;
        return [...terms.tags, ...terms.categories].map((term: any) => term.id).sort();
      };
      assert.deepEqual(await linkedBy([]), [tag.id, other.id].sort());
      assert.deepEqual(await linkedBy(undefined), [tag.id, other.id].sort());
      assert.equal(await countOf('tags', tag.id), 2);
    });

    it("replaces one taxonomy's terms and leaves the other taxonomy alone", async () => {
      const tagA = await create('tags', { name: unique('sa') });
      const tagB = await create('tags', { name: unique('sb') });
      const category = await create('categories', { name: unique('sc') });
      const event = await makeEvent(db(), { status: 'publish', terms: [tagA.id, category.id] });
      await db()
        .transaction()
        .execute((trx) => writeTerms(trx, event, 'tag', [tagB.id]));
      const terms = (await termsOf(db(), [event], ctxOf(null))).get(event)!;
      assert.deepEqual(
        terms.tags.map((t: any) => t.id),
        [tagB.id],
      );
      assert.deepEqual(
        terms.categories.map((t: any) => t.id),
        [category.id],
      );
      await db()
        .transaction()
        .execute((trx) => writeTerms(trx, event, 'category', []));
      const cleared = (await termsOf(db(), [event], ctxOf(null))).get(event)!;
      assert.deepEqual(cleared.categories, []);
      assert.equal(cleared.tags.length, 1);
    });
  });

  describe('resolveTermFilter', () => {
    it('finds items by id, slug or name in any language, with child categories, and rejects unknown items', async () => {
      const prefix = unique('f');
      const root = await create('categories', { name: `${prefix} root` });
      const child = await create('categories', { name: `${prefix} child`, parent: root.id });
      const grandchild = await create('categories', { name: `${prefix} grandchild`, parent: child.id });
      const lonely = await create('categories', { name: `${prefix} lonely` });
      const tag = await create('tags', { name: `${prefix} tag` });
      await server.request(`${NS}/tags/${tag.id}?translation_language=it`, {
        method: 'PATCH',
        auth: admin,
        body: { name: `${prefix} etichetta` },
      });
      const numericName = await create('tags', { name: `${tag.id + 100000}` });
      const filter = (taxonomy: 'category' | 'tag', items: unknown, param: 'categories' | 'tags') =>
        resolveTermFilter(db(), taxonomy, items, ctxOf(null), param);
      assert.deepEqual((await filter('category', String(root.id), 'categories')).sort(), [root.id, child.id, grandchild.id].sort());
      assert.deepEqual((await filter('category', [child.slug], 'categories')).sort(), [child.id, grandchild.id].sort());
      assert.deepEqual(await filter('category', `${prefix} LONELY`, 'categories'), [lonely.id]);
      assert.deepEqual(await filter('tag', `${prefix} etichetta,${tag.slug}`, 'tags'), [tag.id]);
      assert.deepEqual(await filter('tag', String(tag.id + 100000), 'tags'), [numericName.id]);
      for (const bad of ['foo', `${tag.id}`, '99999999999999999999', [lonely.id, 'nope'], '']) {
        const error = await rejection(filter('category', bad, 'categories'));
        assert.equal(error.status, 400);
        assert.equal(error.code, 'rest_invalid_param');
        assert.ok('categories' in error.data.params);
      }
      const tagError = await rejection(filter('tag', 'nope', 'tags'));
      assert.ok('tags' in tagError.data.params);
    });
  });
});
