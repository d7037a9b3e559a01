import { PostgresAdapter, type Kysely } from 'kysely';

// Migrations are frozen in time: they use Kysely only, never application code.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const id = postgres ? 'serial' : 'integer';

  await db.schema
    .createTable('users')
    .addColumn('id', id, (col) => (postgres ? col.primaryKey() : col.primaryKey().autoIncrement()))
    .addColumn('username', 'text', (col) => col.notNull().unique())
    .addColumn('display_name', 'text', (col) => col.notNull())
    .addColumn('email', 'text', (col) => col.notNull())
    .addColumn('role', 'text', (col) => col.notNull())
    .addColumn('password_hash', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('api_tokens')
    .addColumn('id', id, (col) => (postgres ? col.primaryKey() : col.primaryKey().autoIncrement()))
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('token_hash', 'text', (col) => col.notNull().unique())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('api_tokens_user_id').on('api_tokens').column('user_id').execute();

  await db.schema
    .createTable('auth_failures')
    .addColumn('id', id, (col) => (postgres ? col.primaryKey() : col.primaryKey().autoIncrement()))
    .addColumn('username', 'text', (col) => col.notNull())
    .addColumn('address', 'text', (col) => col.notNull())
    .addColumn('failed_at_ms', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('auth_failures_address_time').on('auth_failures').columns(['address', 'failed_at_ms']).execute();
  await db.schema.createIndex('auth_failures_username_time').on('auth_failures').columns(['username', 'address', 'failed_at_ms']).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('auth_failures').execute();
  await db.schema.dropTable('api_tokens').execute();
  await db.schema.dropTable('users').execute();
}
