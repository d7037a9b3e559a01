/**
 * What a process keeps per statement shape is bounded (issue 19.4): a
 * thousand requests of distinct hostile shapes — id lists of every length,
 * searches of every word count, entity filters in many combinations — make
 * SQLite prepare a bounded number of statements, not one per shape.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hostileShape } from '../../bench/hostile-shapes.ts';
import { dialect, startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';

const SKIP = dialect !== 'sqlite' && 'PostgreSQL prepares no statements here: the bound is about SQLite';

describe('statement shapes under hostile requests', { skip: SKIP }, () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer({ RATE_LIMIT_PER_MINUTE: '0' });
    admin = await server.admin();
  });
  after(async () => server.close());

  it('prepares a bounded number of statements for 1,000 requests of distinct shapes', async () => {
    const send = async (index: number) => {
      const { path, authenticated } = hostileShape(index);
      const response = await server.request(path, authenticated ? { auth: admin } : {});
      assert.ok(response.status === 200 || response.status === 400, `${path}: ${response.status}`);
    };
    // Every family once, so that what any request prepares (authentication, revisions…) is counted before.
    for (let index = 0; index < 16; index += 1) await send(index);
    const before = server.server.store.statementsPrepared();
    for (let index = 16; index < 1016; index += 1) await send(index);
    const prepared = server.server.store.statementsPrepared() - before;
    assert.ok(prepared <= 100, `${prepared} statements prepared for 1,000 distinct shapes`);
  });
});
