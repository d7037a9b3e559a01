/**
 * SQLite's planner statistics: the counts ANALYZE gathers, without its samples of index values, whose presence
 * makes SQLite prepare a statement again at every run (src/platform/db/dialect/sqlite.ts). On a SQLite file
 * whatever the suite's database, since only SQLite keeps them.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { seedDemoEvents } from '../../src/calendar/seed/demo-events.ts';
import { createDb, migrateToLatest, type Store } from '../../src/platform/db/database.ts';
import type { Database } from '../../src/platform/db/schema.ts';
import { MIGRATION_FOLDERS } from '../../src/migrations.ts';

async function rowsOf(db: Kysely<Database>, table: 'sqlite_stat1' | 'sqlite_stat4'): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(db);
  return Number(rows[0]?.n);
}

describe('planner statistics on SQLite', () => {
  let directory: string;
  let url: string;
  let store: Store;
  before(async () => {
    directory = mkdtempSync(path.join(tmpdir(), 'almanac-statistics-'));
    url = `sqlite:${path.join(directory, 'calendar.db')}`;
    store = createDb(url);
    await migrateToLatest(store.db, MIGRATION_FOLDERS);
  });
  after(async () => {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('keeps the counts of the ANALYZE after a bulk load, and none of its samples', async () => {
    await seedDemoEvents(store, { events: 400, siteTimezone: 'UTC', seed: 3 });
    assert.ok((await rowsOf(store.db, 'sqlite_stat1')) > 0);
    assert.equal(await rowsOf(store.db, 'sqlite_stat4'), 0);
  });

  it('forgets, on opening the database, the samples another ANALYZE left', async () => {
    await sql`analyze`.execute(store.db);
    const samples = await rowsOf(store.db, 'sqlite_stat4');
    assert.ok(samples > 0, 'a plain ANALYZE of this SQLite takes samples');
    await store.close();
    store = createDb(url);
    assert.equal(await rowsOf(store.db, 'sqlite_stat4'), 0);
    assert.ok((await rowsOf(store.db, 'sqlite_stat1')) > 0);
  });
});
