/**
 * Public list pages carried from version to version (events.pages.ts): what
 * is kept stays within its bounds however many distinct lists are read, and
 * a page forgotten is read again, not answered wrong.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listFilter } from '../../src/calendar/events/events.filters.ts';
import { CarriedPages } from '../../src/calendar/events/events.pages.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { countingStatements } from '../helpers/statements.ts';
import { contextFor } from './context.helper.ts';
import { EVENTS } from './events.factories.ts';

describe('carried list pages', () => {
  let server: TestServer;
  const created: number[] = [];
  before(async () => {
    server = await startTestServer();
    const admin = await server.admin();
    for (const day of ['03', '05', '07', '09']) {
      const response = await server.request(EVENTS, {
        method: 'POST',
        auth: admin,
        body: { title: `Day ${day}`, status: 'publish', start_date: `2042-06-${day} 10:00:00`, end_date: `2042-06-${day} 11:00:00` },
      });
      assert.equal(response.status, 201, response.text);
      created.push(response.body.id);
    }
  });
  after(async () => server.close());

  it('keeps at most its bound of ids, forgetting the least recently used page, which is then read again', async () => {
    const counting = countingStatements(server.server.store.db);
    const pages = new CarriedPages(counting.db, { maxPages: 10, maxIds: 5 });
    const caller = contextFor(server, null);
    const version = await caller.version();
    const filter = await listFilter(
      counting.db,
      server.config,
      { start_date: '2042-06-01', end_date: '2042-06-30' } as any,
      caller,
      new Date(),
    );
    const read = async (offset: number) => {
      counting.reset();
      const ids = await pages.ids(version, filter, 2, offset, 'asc');
      return { ids, statements: counting.count() };
    };
    assert.deepEqual(await read(0), { ids: created.slice(0, 2), statements: 1 });
    assert.deepEqual(await read(0), { ids: created.slice(0, 2), statements: 0 }, 'kept: 2 ids');
    // The second page keeps its 2 events and the 2 before them: 6 ids in all, over the bound of 5.
    assert.deepEqual(await read(2), { ids: created.slice(2, 4), statements: 1 });
    assert.deepEqual(await read(2), { ids: created.slice(2, 4), statements: 0 }, 'the page read last is kept');
    assert.deepEqual(await read(0), { ids: created.slice(0, 2), statements: 1 }, 'the first page was forgotten and is read again');
  });
});
