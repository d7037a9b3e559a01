import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EventRepresentations } from '../../src/calendar/events/events.representations.ts';
import { cacheBudgets, ReadCache } from '../../src/platform/cache/read-cache.ts';
import { EventsService } from '../../src/calendar/events/events.service.ts';
import { CalendarVersions } from '../../src/calendar/common/calendar-version.ts';
import { PostPasswords } from '../../src/calendar/posts/posts.passwords.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { countingStatements } from '../helpers/statements.ts';
import { contextFor } from './context.helper.ts';

/**
 * Statement budgets of the calendar's main paths (issue 20 measured them before the posts core: 37, 16, 8, 10 and 7).
 * A change that needs more statements should say why here.
 */
describe('statements per request', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  /** The events service over a connection that counts its statements, and an administrator's context. */
  const countedService = async (keepEvents = false) => {
    const admin = await server.admin();
    const counting = countingStatements(server.server.store.db);
    const cache = new ReadCache(cacheBudgets(0, keepEvents ? 1024 * 1024 : 0));
    const service = new EventsService({
      db: counting.db,
      config: server.config,
      passwords: new PostPasswords(server.server.store.db, server.config),
      representations: new EventRepresentations(cache),
    });
    const versions = new CalendarVersions(counting.db, cache);
    const editor = contextFor(server, { id: admin.id, username: 'admin', displayName: 'admin', role: 'administrator' }, { versions });
    return { counting, service, editor, versions };
  };

  it('creates and lists events within their statement budgets', async () => {
    const { counting, service, editor, versions } = await countedService();
    counting.reset();
    await service.createEvent(
      {
        title: 'A',
        start_date: '2030-01-01 10:00:00',
        end_date: '2030-01-01 11:00:00',
        venue: { venue: 'Hall', address: 'Main St 1' },
        categories: ['Music'],
        organizer: [{ organizer: 'Org', email: 'o@example.com' }],
      } as any,
      editor,
    );
    const createFull = counting.count();
    counting.reset();
    await service.createEvent(
      {
        title: 'B',
        start_date: '2030-01-02 10:00:00',
        end_date: '2030-01-02 11:00:00',
        venue: { venue: 'Hall2', address: 'Main St 2' },
      } as any,
      editor,
    );
    const createVenue = counting.count();
    counting.reset();
    await service.createEvent({ title: 'C', start_date: '2030-01-02 10:00:00', end_date: '2030-01-02 11:00:00' } as any, editor);
    const createPlain = counting.count();
    counting.reset();
    const anonymous = () => contextFor(server, null, { versions });
    // Each list in a tick of the event loop of its own, as requests far apart: it reads the revisions once.
    const nextTick = () => new Promise((resolve) => setImmediate(resolve));
    await nextTick();
    const listed = await service.listEvents(
      { page: 1, per_page: 10, start_date: '2030-01-01', end_date: '2030-12-31' } as any,
      anonymous(),
    );
    const listCold = counting.count();
    await nextTick();
    counting.reset();
    await service.listEvents({ page: 1, per_page: 10, start_date: '2030-01-01', end_date: '2030-12-31' } as any, anonymous());
    const listWarm = counting.count();
    assert.equal(listed.total, 3);
    const counts = { createFull, createVenue, createPlain, listCold, listWarm };
    // A write reads the version it gave its item, for the ETag of its answer (issue 23): one statement more than measured before.
    // A public page read afresh reads its events' ids from the listing index, then the rows of those not cached
    // (events.listing.ts): one statement more, each cheaper than the rows of the whole walk, and none again in the version.
    const budgets = { createFull: 32, createVenue: 15, createPlain: 9, listCold: 10, listWarm: 6 };
    for (const [path, budget] of Object.entries(budgets)) {
      assert.ok(
        counts[path as keyof typeof counts] <= budget,
        `${path}: ${counts[path as keyof typeof counts]} statements, budget ${budget}`,
      );
    }
  });

  it('creates an event whose title is taken in statements that do not grow with the events of that title', async () => {
    const { counting, service, editor } = await countedService();
    const statementsOfCreate = async () => {
      counting.reset();
      const event = await service.createEvent(
        { title: 'Yoga class', start_date: '2030-02-01 10:00:00', end_date: '2030-02-01 11:00:00' } as any,
        editor,
      );
      return { slug: event.item.slug, statements: counting.count() };
    };
    await statementsOfCreate();
    const second = await statementsOfCreate();
    for (let index = 3; index < 30; index += 1) await statementsOfCreate();
    const thirtieth = await statementsOfCreate();
    assert.equal(second.slug, 'yoga-class-2');
    assert.equal(thirtieth.slug, 'yoga-class-30');
    // One statement chooses the first free suffix and takes it (before: two statements per suffix tried).
    assert.equal(thirtieth.statements, second.statements);
  });

  it('writes a recurring series in statements that do not grow with its occurrences', async () => {
    const { counting, service, editor } = await countedService();
    const createSeries = async (count: number) => {
      counting.reset();
      const { item: series } = await service.createEvent(
        {
          title: `Weekly ${count}`,
          start_date: '2031-01-06 18:00:00',
          end_date: '2031-01-06 19:00:00',
          categories: ['Weekly'],
          recurrence: [`RRULE:FREQ=WEEKLY;COUNT=${count}`],
        } as any,
        editor,
      );
      const create = counting.count();
      counting.reset();
      await service.updateEvent({ id: series.id }, { title: `Weekly ${count}, renamed` } as any, editor);
      const update = counting.count();
      return { create, update };
    };
    await createSeries(2); // creates the category
    const small = await createSeries(5);
    // 380 occurrences: one insert of rows and one of ids, as for 5 (a statement takes up to 400 rows).
    const large = await createSeries(380);
    assert.deepEqual(large, small, 'the same statements for 5 and 380 occurrences');
    // A plain create and its refresh (ids, rows, texts and links copied, shared state): measured 27 and 22, and one more for
    // the version the write gave the series (the ETag of its answer, issue 23).
    const budgets = { create: 28, update: 23 };
    for (const [path, budget] of Object.entries(budgets)) {
      const count = small[path as keyof typeof small];
      assert.ok(count <= budget, `series ${path}: ${count} statements, budget ${budget}`);
    }
  });

  it('updates an event that is sent the links it has with one read of each kind of link, writing none', async () => {
    const { counting, service, editor } = await countedService();
    const { item: event } = await service.createEvent(
      {
        title: 'Linked',
        start_date: '2032-02-01 10:00:00',
        end_date: '2032-02-01 11:00:00',
        categories: ['Linked'],
        tags: ['linked'],
        organizer: [{ organizer: 'Linked org' }],
      } as any,
      editor,
    );
    const made = event as any;
    const links = { categories: [made.categories[0].id], tags: [made.tags[0].id], organizer: [made.organizer[0].id] };
    const statementsOfUpdate = async (body: Record<string, unknown>) => {
      counting.reset();
      await service.updateEvent({ id: event.id }, body as any, editor);
      return counting.count();
    };
    const plain = await statementsOfUpdate({ title: 'Linked, renamed' });
    const relinked = await statementsOfUpdate({ title: 'Linked, renamed again', ...links });
    // Per kind: resolving the ids sent, then reading the links there are (a delete and an insert each before).
    assert.equal(relinked - plain, 6, `${plain} statements without links, ${relinked} with the same links`);
    const { item: after } = await service.getEvent({ id: event.id }, {} as any, editor);
    assert.deepEqual(
      [after.categories.map((term: any) => term.id), after.tags.map((term: any) => term.id), after.organizer.map((o: any) => o.id)],
      [links.categories, links.tags, links.organizer],
    );
  });

  it('reads a cached event with no statement but the revision of its tick, and lists cached events in two more', async () => {
    const { counting, service, editor, versions } = await countedService(true);
    const { item: event } = await service.createEvent(
      { title: 'Kept', status: 'publish', start_date: '2032-01-01 10:00:00', end_date: '2032-01-01 11:00:00', categories: ['Kept'] } as any,
      editor,
    );
    const anonymous = () => contextFor(server, null, { versions });
    const nextTick = () => new Promise((resolve) => setImmediate(resolve));
    const query = { page: 1, per_page: 10, start_date: '2032-01-01', end_date: '2032-01-02' } as any;
    const measure = async (read: () => Promise<unknown>) => {
      await nextTick();
      counting.reset();
      await read();
      return counting.count();
    };
    const singleCold = await measure(() => service.getEvent({ id: event.id }, {} as any, anonymous()));
    const singleWarm = await measure(() => service.getEvent({ id: event.id }, {} as any, anonymous()));
    await measure(() => service.listEvents(query, anonymous()));
    const listWarm = await measure(() => service.listEvents(query, anonymous()));
    // Cold: the revision, the change log's invalidation read, the version, the row, the embeds; warm: the revision alone.
    assert.equal(singleWarm, 1, `a cached single read: ${singleWarm} statements (cold ${singleCold})`);
    // The revision and the list's date bound (max duration): the total and page are the version's, its events cached.
    assert.ok(listWarm <= 2, `a list of cached events: ${listWarm} statements`);
  });

  it('reads a public page again in the version after a write, from the index, updates its total by id, and reads no cached row', async () => {
    const { counting, service, editor, versions } = await countedService(true);
    const anonymous = () => contextFor(server, null, { versions });
    const query = { page: 1, per_page: 2, start_date: '2041-03-01', end_date: '2041-03-31' } as any;
    const create = async (title: string, day: string) =>
      (
        await service.createEvent(
          { title, status: 'publish', start_date: `2041-03-${day} 10:00:00`, end_date: `2041-03-${day} 11:00:00` } as any,
          editor,
        )
      ).item.id;
    const first = await create('First', '10');
    const second = await create('Second', '12');
    await create('Third', '14');
    const reads = (pattern: RegExp) => counting.statements().filter((text) => pattern.test(text)).length;
    const listed = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      counting.reset();
      return (await service.listEvents(query, anonymous())).events.map((event) => event.id);
    };
    assert.deepEqual(await listed(), [first, second]);
    assert.deepEqual(await listed(), [first, second]);
    const pageReads = () => reads(/select "events"\."id" from "events" .* order by/);
    assert.equal(pageReads(), 0, 'within a version the page is read once');
    const later = await create('Later', '20');
    assert.deepEqual(await listed(), [first, second]);
    assert.equal(pageReads(), 1, 'the new version reads its page from the index');
    assert.equal(reads(/count\(\*\)/), 0, 'and counts nothing');
    const updates = counting.statements().filter((text) => /select "events"\."id" from "events" .*"events"\."id" in \(/.test(text));
    assert.equal(updates.length, 1, 'the total re-checks the events the log names since, by id');
    assert.equal(reads(/from "calendar_changes"/), 2, 'the invalidation of the version and the total each read the log once');
    assert.equal((await service.listEvents(query, anonymous())).total, 4, `the event created is counted (${later})`);
    assert.equal(reads(/select "events"\.\* from "events"/), 0, 'the events on it are cached');
    const earliest = await create('Earliest', '05');
    assert.deepEqual(await listed(), [earliest, first]);
  });
});
