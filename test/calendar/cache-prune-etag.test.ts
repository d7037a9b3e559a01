/**
 * What a process carries from version to version stays exact after a prune of the change log, and an
 * anonymous answer's ETag moves only with its bytes (issue 36, defects 7 and 8).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pruneChangeLog } from '../../src/calendar/changes/changes.service.ts';
import type { RunningServer } from '../../src/server.ts';
import { startSecondServer, startTestServer, writeThrough, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS } from './events.factories.ts';

describe('a prune of the change log in another process', () => {
  let reader: TestServer;
  let writer: RunningServer;
  let admin: Credentials;

  before(async () => {
    reader = await startTestServer();
    writer = await startSecondServer(reader);
    admin = await reader.admin();
  });
  after(async () => {
    await writer.close();
    await reader.close();
  });

  const publish = (title: string, day: string) =>
    writeThrough(writer, admin, 'POST', EVENTS, { title, status: 'publish', start_date: `${day} 20:00:00`, end_date: `${day} 22:00:00` });

  it('forgets a deleted event whose removal it never read: lists, totals, pages and single reads', async () => {
    const kept = await publish('Kept concert', '2033-05-02');
    const gone = await publish('Deleted concert', '2033-05-03');
    const window = `${EVENTS}?start_date=2033-05-01&end_date=2033-05-31`;
    const list = async (query = '') => {
      const response = await reader.request(`${window}${query}`);
      return { status: response.status, total: response.headers.get('x-wp-total'), ids: response.body.events?.map((e: any) => e.id) };
    };
    // Read alone first, so that single reads have it remembered; then listed.
    for (let read = 0; read < 2; read += 1) assert.equal((await reader.request(`${EVENTS}/${gone.id}`)).status, 200);
    assert.deepEqual(await list(), { status: 200, total: '2', ids: [kept.id, gone.id] });
    assert.deepEqual(await list('&per_page=1&page=2'), { status: 200, total: '2', ids: [gone.id] });

    await writeThrough(writer, admin, 'DELETE', `${EVENTS}/${gone.id}?force=true`, {});
    // `almanac changes prune --older-than 1m` a minute later: the tombstone goes before the reader reads the log.
    const { pruned } = await pruneChangeLog(writer.store.db, 60, new Date(Date.now() + 120_000));
    assert.ok(pruned >= 1, 'the removal was pruned');

    const seen = {
      list: await list(),
      pageAfterTheLast: (await list('&per_page=1&page=2')).status,
      singleRead: (await reader.request(`${EVENTS}/${gone.id}`)).status,
    };
    assert.deepEqual(seen, { list: { status: 200, total: '1', ids: [kept.id] }, pageAfterTheLast: 404, singleRead: 404 });
  });
});
