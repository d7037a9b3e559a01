import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { MIGRATION_FOLDERS } from '../../src/migrations.ts';
import { createDb, migrateToLatest, type Store } from '../../src/platform/db/database.ts';
import { dialect, freshDatabase } from '../helpers/server.ts';

/**
 * PostgreSQL plans a trigger's statements for each row's values until a generic plan looks no dearer; the change
 * log's guarded statements never get there, so a write planned them again per row (migration
 * 2026-12-07T0100-trigger-plans-generic). A function created or replaced by a later migration loses the setting
 * unless it states it: this names the one that does not.
 */
describe(
  'trigger functions on PostgreSQL',
  { skip: dialect !== 'postgres' && 'PostgreSQL only (TEST_DATABASE_URL): SQLite keeps no plans' },
  () => {
    let database: Awaited<ReturnType<typeof freshDatabase>>;
    let store: Store;
    before(async () => {
      database = await freshDatabase();
      store = createDb(database.url);
      await migrateToLatest(store.db, MIGRATION_FOLDERS);
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    it('plan their statements once per connection, every one of them', async () => {
      const { rows } = await sql<{ name: string; config: string[] | null }>`select p.proname as name, p.proconfig as config
      from pg_proc p where p.pronamespace = current_schema()::regnamespace and p.prorettype = 'trigger'::regtype
      order by p.proname`.execute(store.db);
      assert.ok(rows.length >= 20, `the schema's trigger functions: ${rows.map(({ name }) => name).join(', ')}`);
      const planning = rows.filter(({ config }) => !(config ?? []).includes('plan_cache_mode=force_generic_plan')).map(({ name }) => name);
      assert.deepEqual(planning, []);
    });
  },
);
