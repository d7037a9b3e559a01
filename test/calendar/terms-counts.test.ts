import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { replaceEventTerms } from '../../src/calendar/terms/terms.repository.ts';
import { updateEvent } from '../../src/calendar/events/events.repository.ts';
import { utcStamp } from '../../src/calendar/posts/posts.access.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';

const NS = '/calendar/events/v1';

/** `YYYY-MM-DD HH:MM` some days from now. */
function daysAhead(days: number, hour = 10): string {
  const date = new Date(Date.now() + days * 86_400_000);
  return `${date.toISOString().slice(0, 10)} ${String(hour).padStart(2, '0')}:00`;
}

// Term counts are cached per process (terms.counts.ts): these tests write
// through the database the way another server process would, never through
// this server's routes, and expect the counts to follow at once.
describe('term counts across processes and over time', () => {
  let server: TestServer;
  let admin: Credentials;
  let seq = 0;
  const unique = (label: string) => `${label}${(seq += 1)}c`;

  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  const createTerm = async (collection: 'categories' | 'tags', name: string): Promise<number> => {
    const response = await server.request(`${NS}/${collection}`, { method: 'POST', auth: admin, body: { name } });
    assert.equal(response.status, 201, response.text);
    return response.body.id as number;
  };
  const createEvent = async (body: Record<string, unknown>): Promise<number> => {
    const response = await server.request(`${NS}/events`, {
      method: 'POST',
      auth: admin,
      body: { title: unique('Event'), start_date: daysAhead(5), end_date: daysAhead(5, 12), ...body },
    });
    assert.equal(response.status, 201, response.text);
    return response.body.id as number;
  };
  const countOf = async (collection: string, id: number) => (await server.request(`${NS}/${collection}/${id}`)).body.count as number;
  /** The category in the archive that hides empty terms and sorts by count: its id and count, or nothing. */
  const listedWithCounts = async (id: number) =>
    (
      (await server.request(`${NS}/categories?include=${id}&hide_empty=1&orderby=count`)).body.categories as { id: number; count: number }[]
    ).map((term) => [term.id, term.count]);
  const embeddedCount = async (eventId: number, termId: number) => {
    const event = (await server.request(`${NS}/events/${eventId}`)).body;
    return [...event.categories, ...event.tags].find((term: { id: number }) => term.id === termId)?.count as number | undefined;
  };

  it('a link or status written directly in the database changes the counts at once', async () => {
    const category = await createTerm('categories', unique('Cat'));
    const tag = await createTerm('tags', unique('Tag'));
    const first = await createEvent({ categories: [category], tags: [tag] });
    const second = await createEvent({ categories: [category] });
    // Read once so that the counts are cached.
    assert.equal(await countOf('categories', category), 2);
    assert.equal(await embeddedCount(first, tag), 1);
    const listed = await server.request(`${NS}/tags?include=${tag}`);
    assert.equal(listed.body.tags[0].count, 1);

    const db = server.server.store.db;
    await db.transaction().execute((trx) => replaceEventTerms(trx, second, 'tag', [tag]));
    assert.equal(await embeddedCount(first, tag), 2);
    assert.equal(await countOf('tags', tag), 2);
    assert.equal((await server.request(`${NS}/tags?include=${tag}`)).body.tags[0].count, 2);

    await db.transaction().execute((trx) => updateEvent(trx, second, { status: 'draft' }));
    assert.equal(await countOf('categories', category), 1);
    assert.equal(await embeddedCount(first, category), 1);
    assert.equal(await embeddedCount(first, tag), 1);
  });

  it('are right whether a version counts every term at once or, in a calendar of many terms, each as asked for', async () => {
    const music = await createTerm('categories', unique('Many'));
    const art = await createTerm('tags', unique('Many'));
    const first = await createEvent({ categories: [music] });
    const second = await createEvent({ tags: [art] });
    // A few dozen terms: the first read of the version counts them all.
    assert.deepEqual([await embeddedCount(first, music), await embeddedCount(second, art)], [1, 1]);
    // More terms than a version counts at once (terms.counts.ts, 1,000), written as another program would.
    const db = server.server.store.db;
    await db
      .insertInto('terms')
      .values(Array.from({ length: 1001 }, () => ({ taxonomy: 'tag' as const })))
      .execute();
    await db.transaction().execute((trx) => replaceEventTerms(trx, second, 'category', [music]));
    assert.deepEqual([await embeddedCount(second, art), await embeddedCount(first, music), await embeddedCount(second, music)], [1, 2, 2]);
    assert.equal(await countOf('categories', music), 2);
    await db.transaction().execute((trx) => updateEvent(trx, first, { status: 'draft' }));
    assert.deepEqual([await embeddedCount(second, music), await countOf('tags', art)], [1, 1]);
  });

  it('a future event counts from the second its date passes, with no write', async () => {
    const category = await createTerm('categories', unique('Soon'));
    const event = await createEvent({ categories: [category] });
    assert.equal(await countOf('categories', category), 1);
    const soon = utcStamp(new Date(Date.now() + 2000));
    const db = server.server.store.db;
    await db.transaction().execute((trx) => updateEvent(trx, event, { status: 'future', date_utc: soon }));
    assert.equal(await countOf('categories', category), 0);
    assert.deepEqual(await listedWithCounts(category), []);
    while (utcStamp(new Date()) < soon) await sleep(100);
    assert.equal(await countOf('categories', category), 1);
    assert.deepEqual(await listedWithCounts(category), [[category, 1]], 'the archive shows it, hide_empty and orderby=count with it');
  });
});
