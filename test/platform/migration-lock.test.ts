/**
 * Migrations from several processes at once on one PostgreSQL, directly or
 * through PgBouncer in transaction pooling (CI runs this file both ways): the
 * lock that keeps them apart is the migrations' transaction's own
 * (src/platform/db/dialect/postgres.ts), so each migration runs once, every
 * start succeeds, and no lock is left on a pooled server connection for the
 * next start to wait on. On SQLite there is nothing to test (one file lock).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { MIGRATION_FOLDERS } from '../../src/migrations.ts';
import { createDb, migrateToLatest, type Store } from '../../src/platform/db/database.ts';
import { freshDatabase } from '../helpers/server.ts';

const postgres = (process.env.TEST_DATABASE_URL ?? '') !== '';

describe('migrations started by several processes at once', { skip: !postgres && 'PostgreSQL only (TEST_DATABASE_URL)' }, () => {
  const stores: Store[] = [];
  const drops: (() => Promise<void>)[] = [];
  after(async () => {
    await Promise.all(stores.map((store) => store.close()));
    for (const drop of drops) await drop();
  });

  it('each migration runs once, every start succeeds, and no advisory lock stays held', async () => {
    const database = await freshDatabase();
    drops.push(database.drop);
    for (let i = 0; i < 5; i++) stores.push(createDb(database.url));
    const [noise, ...starts] = stores as [Store, ...Store[]];
    // Other transactions on the same database meanwhile take pooled server connections between statements.
    let migrating = true;
    const traffic = (async () => {
      while (migrating) await noise.db.transaction().execute(async (trx) => sql`select pg_sleep(0.005)`.execute(trx));
    })();
    const applied = await Promise.all(starts.map((store) => migrateToLatest(store.db, MIGRATION_FOLDERS))).finally(() => {
      migrating = false;
    });
    await traffic;
    const names = applied.flat();
    assert.equal(new Set(names).size, names.length, 'no migration ran twice');
    assert.ok(names.length > 0);
    assert.deepEqual(await migrateToLatest(noise.db, MIGRATION_FOLDERS), [], 'a later start finds nothing to do, without waiting');
    const { rows } = await sql<{ held: number }>`
      select count(*) as held from pg_locks
      where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`.execute(noise.db);
    assert.equal(rows[0]?.held, 0);
  });
});
