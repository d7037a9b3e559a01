import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Two more revisions maintained by the database (as `calendar` is, migration 2026-11-24T0100): `auth`,
// bumped by every write to users and API tokens, keys what a process caches of tokens; `entities`,
// bumped by every write to entity-management records, keys cached entity answers. A token's
// `last_used_at` (touched once a minute by its use) is not part of what is cached: updates of that
// column alone bump nothing, so a request is not a write to the revisions. Frozen: Kysely only.

const COVERED: Readonly<Record<string, readonly string[]>> = {
  auth: ['users', 'api_tokens'],
  entities: ['em_records', 'em_record_values'],
};
const OPERATIONS = ['insert', 'update', 'delete'];
/** The columns whose update counts, where not all do. */
const UPDATED_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  api_tokens: ['user_id', 'name', 'token_hash', 'created_at', 'revoked_at'],
};

const updateOf = (table: string) => {
  const columns = UPDATED_COLUMNS[table];
  return columns === undefined ? sql`update` : sql`update of ${sql.join(columns.map((column) => sql.id(column)))}`;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (postgres) {
    await sql`create function bump_revision() returns trigger language plpgsql as $$
      begin update revisions set value = value + 1 where name = tg_argv[0]; return null; end $$`.execute(db);
  }
  for (const [name, tables] of Object.entries(COVERED)) {
    await db.insertInto('revisions').values({ name, value: 0 }).execute();
    for (const table of tables) {
      if (postgres) {
        await sql`create trigger ${sql.id(`${table}_${name}_revision`)} after insert or ${updateOf(table)} or delete or truncate
          on ${sql.table(table)} for each statement execute function bump_revision(${sql.lit(name)})`.execute(db);
        continue;
      }
      for (const operation of OPERATIONS) {
        await sql`create trigger ${sql.id(`${table}_${operation}_${name}_revision`)} after ${operation === 'update' ? updateOf(table) : sql.raw(operation)}
          on ${sql.table(table)} begin update revisions set value = value + 1 where name = ${sql.lit(name)}; end`.execute(db);
      }
    }
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const [name, tables] of Object.entries(COVERED)) {
    for (const table of tables) {
      if (postgres) await sql`drop trigger ${sql.id(`${table}_${name}_revision`)} on ${sql.table(table)}`.execute(db);
      else for (const operation of OPERATIONS) await sql`drop trigger ${sql.id(`${table}_${operation}_${name}_revision`)}`.execute(db);
    }
    await db.deleteFrom('revisions').where('name', '=', name).execute();
  }
  if (postgres) await sql`drop function bump_revision()`.execute(db);
}
