/**
 * Another process holding SQLite's write lock (issue 19): lock waits happen
 * off the event loop, so the server keeps answering (`/healthz`, reads) while
 * a write waits; a write that gets the lock within SQLITE_BUSY_WAIT_MS is
 * made, one that does not is a 503 with Retry-After that changed nothing.
 * The lock is held by a real second process, as the CLI or a second server would.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SQLITE_DRIVER_PACKAGE, SqliteDatabase as Database } from '../../src/platform/db/dialect/sqlite-driver.ts';
import { sql, type Kysely } from 'kysely';
import { createSqliteDb, retryWhileBusy } from '../../src/platform/db/dialect/sqlite.ts';
import type { Database as Schema } from '../../src/platform/db/schema.ts';
import { DatabaseBusyError } from '../../src/platform/errors.ts';
import { ENTITIES, makeCustomer } from '../entity-management/factories.ts';
import { dialect, startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CATEGORIES = '/calendar/events/v1/categories';
const SQLITE_ONLY = dialect === 'postgres' ? 'SQLite only: PostgreSQL lock waits are asynchronous in pg already' : false;

/** Takes the write lock of the file in argv and keeps it until told on stdin (or its stdin closes), or for argv's milliseconds. */
const HOLDER = `
const Database = require(${JSON.stringify(SQLITE_DRIVER_PACKAGE)});
const [file, holdMs] = process.argv.slice(1);
const db = new Database(file);
db.exec('BEGIN IMMEDIATE');
process.stdout.write('locked\\n');
const release = () => { db.exec('ROLLBACK'); db.close(); process.exit(0); };
if (Number(holdMs) >= 0) setTimeout(release, Number(holdMs));
process.stdin.on('data', release);
process.stdin.on('end', release);
`;

interface LockHolder {
  /** Tells the holder to let go; resolves when it has. */
  release(): Promise<void>;
  /** Resolves when the holder has let go (on its own, after `holdMs`). */
  readonly released: Promise<void>;
}

const holders = new Set<ChildProcess>();

/** A second process holding the write lock of `file`, until released or for `holdMs`. */
async function holdWriteLock(file: string, holdMs = -1): Promise<LockHolder> {
  const child = spawn(process.execPath, ['-e', HOLDER, file, String(holdMs)], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  holders.add(child);
  const exited = once(child, 'exit').then(() => {
    holders.delete(child);
  });
  const locked = once(createInterface({ input: child.stdout }), 'line');
  const first = await Promise.race([locked.then(() => 'locked'), exited.then(() => 'exited')]);
  if (first !== 'locked') throw new Error('the second process exited before it held the write lock');
  return {
    release: async () => {
      child.stdin.end('release\n');
      await exited;
    },
    released: exited,
  };
}

after(() => {
  for (const child of holders) child.kill();
});

const sqliteFile = (server: TestServer) => server.config.databaseUrl.slice('sqlite:'.length);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

describe('a write while another process holds the SQLite write lock', { skip: SQLITE_ONLY }, () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer({ SQLITE_BUSY_WAIT_MS: '3000' });
    admin = await server.admin();
    // A token's first use records it (at most once a minute): done here, so the writes below are only the tests' own.
    await server.request(CATEGORIES, { auth: admin });
  });
  after(async () => server.close());

  it('keeps /healthz and reads answering while the write waits, then makes the write once the lock is free', async () => {
    const existing = await server.request(CATEGORIES, { method: 'POST', auth: admin, body: { name: 'Before the lock' } });
    assert.equal(existing.status, 201, existing.text);
    const lock = await holdWriteLock(sqliteFile(server));
    let write;
    try {
      let settled = false;
      write = server.request(CATEGORIES, { method: 'POST', auth: admin, body: { name: 'Written after the wait' } });
      void write.finally(() => (settled = true)).catch(() => undefined);
      // Long enough for the write to be waiting for the lock.
      await sleep(50);

      const durations: number[] = [];
      for (let round = 0; round < 5; round += 1) {
        const started = performance.now();
        const health = await server.request('/healthz');
        durations.push(performance.now() - started);
        assert.equal(health.status, 200);
      }
      assert.ok(median(durations) < 100, `/healthz took ${durations.map((ms) => ms.toFixed(1)).join(', ')} ms`);

      // WAL: reads never wait for a writer, nor for this process's own waiting write.
      const read = await server.request(`${CATEGORIES}/${existing.body.id}`);
      assert.equal(read.status, 200);
      assert.equal(read.body.name, 'Before the lock');
      assert.equal((await server.request('/readyz')).status, 200);
      assert.equal(settled, false, 'the write waited for the lock');
    } finally {
      await lock.release();
    }
    const written = await write;
    assert.equal(written.status, 201, written.text);
    assert.equal((await server.request(`${CATEGORIES}/${written.body.id}`)).body.name, 'Written after the wait');
  });

  it('makes a write that starts while the lock is held when the other process lets go within the budget', async () => {
    const lock = await holdWriteLock(sqliteFile(server), 200);
    const started = performance.now();
    const created = await server.request(CATEGORIES, { method: 'POST', auth: admin, body: { name: 'Waited for' } });
    const waited = performance.now() - started;
    assert.equal(created.status, 201, created.text);
    assert.ok(waited > 100, `the write waited for the lock (${waited.toFixed(0)} ms)`);
    await lock.released;
    assert.equal((await server.request(`${CATEGORIES}/${created.body.id}`)).status, 200);
  });
});

describe('a write that cannot get the SQLite write lock within SQLITE_BUSY_WAIT_MS', { skip: SQLITE_ONLY }, () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer({ SQLITE_BUSY_WAIT_MS: '300' });
    admin = await server.admin();
    // A token's first use records it (at most once a minute): done here, so the writes below are only the tests' own.
    await server.request(CATEGORIES, { auth: admin });
  });
  after(async () => server.close());

  const refusedWrite = async (name: string) => {
    const lock = await holdWriteLock(sqliteFile(server));
    try {
      const started = performance.now();
      const response = await server.request(CATEGORIES, { method: 'POST', auth: admin, body: { name }, expectServerError: 503 });
      return { ...response, waited: performance.now() - started };
    } finally {
      await lock.release();
    }
  };

  it('is a 503 with Retry-After, and writes nothing', async () => {
    const { waited, ...refused } = await refusedWrite('Never written');
    assert.equal(refused.status, 503, refused.text);
    assert.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.ok(waited >= 300 && waited < 2_000, `waited ${waited.toFixed(0)} ms for a 300 ms budget`);
    const listed = await server.request(`${CATEGORIES}?search=${encodeURIComponent('Never written')}`, { auth: admin });
    assert.deepEqual(listed.body.categories, []);
    const after = await server.request(CATEGORIES, { method: 'POST', auth: admin, body: { name: 'Written once the lock is free' } });
    assert.equal(after.status, 201, after.text);
  });

  it('names the problem in the WordPress error body', async () => {
    const refused = await refusedWrite('Never written either');
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.body.code, 'database_busy');
    assert.match(refused.body.message, /busy/);
    assert.equal(refused.body.data.status, 503);
  });

  it('answers an entity-management write with 503 DATABASE_BUSY and Retry-After in its envelope, not a 500', async () => {
    const customer = makeCustomer();
    const lock = await holdWriteLock(sqliteFile(server));
    let refused;
    try {
      refused = await server.request(`${ENTITIES}/customers`, { method: 'POST', auth: admin, body: customer, expectServerError: 503 });
    } finally {
      await lock.release();
    }
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.headers.get('retry-after'), '1');
    assert.deepEqual(refused.body, {
      messages: [
        { level: 'error', code: 'DATABASE_BUSY', text: 'The database is busy with another write; nothing was changed, try again shortly.' },
      ],
      payload: null,
    });
    assert.equal((await server.request(`${ENTITIES}/customers/${String(customer.key)}`, { auth: admin })).status, 404);
  });
});

const busy = () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });

describe('retryWhileBusy', () => {
  it('retries an attempt that meets SQLITE_BUSY, pausing a little longer each time, until it passes', async () => {
    const pauses: number[] = [];
    const result = await retryWhileBusy(
      (retry) => {
        if (retry < 6) throw busy();
        return 'done';
      },
      { budgetMs: 5_000, pause: async (ms) => void pauses.push(ms) },
    );
    assert.equal(result, 'done');
    assert.equal(pauses.length, 6);
    const ceilings = [2, 4, 8, 16, 32, 32];
    pauses.forEach((ms, index) => assert.ok(ms >= ceilings[index]! / 2 && ms <= ceilings[index]!, `pause ${index}: ${ms} ms`));
  });

  it('gives up with DatabaseBusyError once the budget is spent, keeping the cause', async () => {
    let attempts = 0;
    const started = performance.now();
    const failure = await retryWhileBusy(
      () => {
        attempts += 1;
        throw busy();
      },
      { budgetMs: 60, pause: (ms) => sleep(ms) },
    ).catch((error: unknown) => error);
    assert.ok(failure instanceof DatabaseBusyError);
    assert.equal(failure.status, 503);
    assert.equal(failure.code, 'database_busy');
    assert.equal(failure.headers['retry-after'], '1');
    assert.equal((failure.cause as { code: string }).code, 'SQLITE_BUSY');
    assert.ok(attempts > 2);
    assert.ok(performance.now() - started >= 60);
  });

  it('passes any other error on at once, and with no budget gives up after one attempt', async () => {
    let attempts = 0;
    const constraint = Object.assign(new Error('UNIQUE constraint failed'), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
    const pause = async () => assert.fail('no pause');
    await assert.rejects(
      retryWhileBusy(
        () => {
          attempts += 1;
          throw constraint;
        },
        { budgetMs: 1_000, pause },
      ),
      (error) => error === constraint,
    );
    await assert.rejects(
      retryWhileBusy(
        () => {
          attempts += 1;
          throw busy();
        },
        { budgetMs: 0, pause },
      ),
      DatabaseBusyError,
    );
    assert.equal(attempts, 2);
  });
});

describe('the SQLite store while another connection holds the write lock', () => {
  let directory: string;
  let store: { db: Kysely<Schema>; raw: Database };
  let other: Database;
  before(() => {
    directory = mkdtempSync(path.join(tmpdir(), 'almanac-busy-'));
    const file = path.join(directory, `${randomBytes(4).toString('hex')}.db`);
    store = createSqliteDb({ file, synchronous: 'NORMAL', busyWaitMs: 2_000 });
    store.raw.exec('create table notes (text text not null)');
    other = new Database(file);
  });
  after(async () => {
    other.close();
    await store.db.destroy();
    rmSync(directory, { recursive: true, force: true });
  });

  const count = async (db: Kysely<Schema> = store.db) => (await sql<{ n: number }>`select count(*) as n from notes`.execute(db)).rows[0]!.n;

  it('lets reads of the same store run while a write waits, and makes the write when the lock is free', async () => {
    other.exec('begin immediate');
    let settled = false;
    const write = store.db.transaction().execute(async (trx) => {
      await sql`insert into notes (text) values ('waited')`.execute(trx);
    });
    void write.finally(() => (settled = true)).catch(() => undefined);
    await sleep(30);
    assert.equal(await count(), 0);
    assert.equal(settled, false);
    setTimeout(() => other.exec('commit'), 30);
    await write;
    assert.equal(await count(), 1);
  });

  it('fails a transaction that cannot begin in time with DatabaseBusyError, leaving nothing open', async () => {
    const { db, raw } = createSqliteDb({ file: other.name, synchronous: 'NORMAL', busyWaitMs: 50 });
    try {
      other.exec('begin immediate');
      try {
        await assert.rejects(
          db.transaction().execute(async (trx) => sql`insert into notes (text) values ('refused')`.execute(trx)),
          DatabaseBusyError,
        );
        assert.equal(raw.inTransaction, false);
      } finally {
        other.exec('rollback');
      }
      await db.transaction().execute(async (trx) => sql`insert into notes (text) values ('then written')`.execute(trx));
      assert.equal(
        (await sql<{ text: string }>`select text from notes order by rowid desc limit 1`.execute(db)).rows[0]!.text,
        'then written',
      );
    } finally {
      await db.destroy();
    }
  });

  it('does not retry a statement inside an open transaction: it fails at once and the transaction is rolled back', async () => {
    // A deferred transaction whose snapshot another connection made stale: its write can never succeed.
    const failure = await store.db.connection().execute(async (connection) => {
      await sql`begin`.execute(connection);
      try {
        await count(connection);
        other.exec("insert into notes (text) values ('from the other connection')");
        const started = performance.now();
        const error = await sql`insert into notes (text) values ('stale')`.execute(connection).catch((caught: unknown) => caught);
        return { error, ms: performance.now() - started };
      } finally {
        await sql`rollback`.execute(connection);
      }
    });
    assert.ok(failure.error instanceof DatabaseBusyError, String(failure.error));
    assert.ok(failure.ms < 500, `failed after ${failure.ms.toFixed(0)} ms`);
    assert.equal(store.raw.inTransaction, false);
  });
});
