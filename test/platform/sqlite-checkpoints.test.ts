import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { createDb, type Store } from '../../src/platform/db/database.ts';

/** Enough rows to fill the WAL well past SQLite's own 1,000-page checkpoint. */
const ROWS = 3000;
const ROW = 'x'.repeat(2000);

async function fill(store: Store): Promise<void> {
  await sql`create table filler (id integer primary key, body text not null)`.execute(store.db);
  await store.db.transaction().execute(async (trx) => {
    for (let id = 1; id <= ROWS; id += 1) await sql`insert into filler (id, body) values (${id}, ${ROW})`.execute(trx);
  });
}

async function autocheckpointPages(store: Store): Promise<number | undefined> {
  const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db);
  return rows[0]?.wal_autocheckpoint;
}

async function untilFileBytes(file: string, bytes: number): Promise<number> {
  for (let tries = 0; tries < 100 && statSync(file).size < bytes; tries += 1) await sleep(20);
  return statSync(file).size;
}

// On a temporary SQLite file whatever TEST_DATABASE_URL names: WAL checkpoints are SQLite's alone.
describe('WAL checkpoints of a serving process (SQLite)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'almanac-checkpoints-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('copies committed pages into the database file from its own thread, never in a commit', async () => {
    const file = path.join(dir, 'background.db');
    const errors: Error[] = [];
    const store = createDb(`sqlite:${file}`, { onSqliteCheckpointError: (error) => errors.push(error) });
    try {
      assert.equal(await autocheckpointPages(store), 0, 'the serving connection does not checkpoint');
      await fill(store);
      assert.ok(statSync(`${file}-wal`).size > ROWS * ROW.length, 'the rows were committed to the WAL');
      assert.ok(
        (await untilFileBytes(file, ROWS * ROW.length)) >= ROWS * ROW.length,
        'the checkpointing thread copied them into the database file',
      );
      assert.deepEqual(errors, []);
    } finally {
      await store.close();
    }
    assert.throws(() => statSync(`${file}-wal`), /ENOENT/, 'closing checkpointed the rest and removed the WAL');
  });

  it('checkpoints in the committing connection for a tool (no thread)', async () => {
    const file = path.join(dir, 'inline.db');
    const store = createDb(`sqlite:${file}`);
    try {
      assert.equal(await autocheckpointPages(store), 1000);
      await fill(store);
      assert.ok(statSync(file).size >= 1000 * 4096, 'the commit itself checkpointed the first thousand pages');
    } finally {
      await store.close();
    }
  });
});
