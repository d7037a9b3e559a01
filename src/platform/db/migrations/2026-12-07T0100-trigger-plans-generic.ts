import { PostgresAdapter, sql, type Kysely } from 'kysely';

// PostgreSQL plans a PL/pgSQL statement that reads the trigger's row (`new.id`, `new.resource_type`) for the
// values of each call until its generic plan looks no dearer than the custom ones; the change log's triggers guard
// statements with `new.resource_type = 'venue'`-like conditions that a custom plan folds away, so the generic plan
// never wins and every row a write touches plans every statement of its trigger again: 0.35 ms a text row, 0.13
// with one plan per connection. Every trigger function of the schema plans once (its own `plan_cache_mode`); a
// function created or replaced later must say so itself (test/platform/trigger-plans.test.ts checks). SQLite has
// no plans to keep. Frozen: Kysely only.

const GENERIC = 'force_generic_plan';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function setTriggerPlans(db: Kysely<any>, setting: 'set' | 'reset'): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  const { rows } = await sql<{ name: string }>`select p.oid::regprocedure::text as name from pg_proc p
    where p.pronamespace = current_schema()::regnamespace and p.prorettype = 'trigger'::regtype`.execute(db);
  for (const { name } of rows) {
    const clause = setting === 'set' ? sql`set plan_cache_mode = ${sql.lit(GENERIC)}` : sql`reset plan_cache_mode`;
    await sql`alter function ${sql.raw(name)} ${clause}`.execute(db);
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await setTriggerPlans(db, 'set');
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await setTriggerPlans(db, 'reset');
}
