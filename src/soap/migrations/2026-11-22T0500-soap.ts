import { PostgresAdapter, type Kysely } from 'kysely';

// Migrations are frozen in time: they use Kysely only, never application code.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;

  await db.schema
    .createTable('soap_pings')
    .addColumn('id', postgres ? 'serial' : 'integer', (col) => (postgres ? col.primaryKey() : col.primaryKey().autoIncrement()))
    .addColumn('received_at', 'text', (col) => col.notNull())
    .addColumn('ping_input', 'text', (col) => col.notNull())
    .addColumn('username', 'text')
    .addColumn('client_address', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('soap_nonces')
    .addColumn('nonce_key', 'text', (col) => col.primaryKey())
    .addColumn('expires_at_ms', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('soap_nonces_expires_at').on('soap_nonces').column('expires_at_ms').execute();

  await db.schema
    .createTable('soap_ws_secrets')
    .addColumn('user_id', 'integer', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('salt', 'text', (col) => col.notNull())
    .addColumn('issued_at', 'text', (col) => col.notNull())
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('soap_ws_secrets').execute();
  await db.schema.dropTable('soap_nonces').execute();
  await db.schema.dropTable('soap_pings').execute();
}
