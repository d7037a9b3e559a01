import { PostgresAdapter, sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely';

// Webhooks (issue 24). The change log (2026-11-28T0100-changes) is the outbox: the triggers write it in the
// transaction of the change, in commit order, so a cursor over it (`calendar_webhook_dispatch`) misses nothing and
// needs no second copy of each change. Dispatching turns the changes after the cursor into one delivery per
// matching subscription (`calendar_webhook_deliveries`) and moves the cursor, in one transaction; delivery workers in
// every process claim due deliveries, so each attempt is made by one of them. `calendar_webhook_announced` holds the
// items subscribers were told anonymous readers see, which makes a change `created`, `updated` or `deleted`; it is
// filled when dispatching starts (the first active subscription). Frozen: Kysely only.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const serial = postgres ? 'serial' : 'integer';
  const id = (col: ColumnDefinitionBuilder) => (postgres ? col.primaryKey() : col.primaryKey().autoIncrement());
  await db.schema
    .createTable('calendar_webhooks')
    .addColumn('id', serial, id)
    .addColumn('url', 'text', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('events', 'text', (col) => col.notNull())
    .addColumn('active', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('secret', 'text', (col) => col.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_until', 'text')
    .addColumn('failure_count', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('retry_after', 'text')
    .addColumn('disabled_reason', 'text')
    .addColumn('author_id', 'integer', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('calendar_webhook_deliveries')
    .addColumn('id', serial, id)
    .addColumn('webhook_id', 'integer', (col) => col.notNull().references('calendar_webhooks.id').onDelete('cascade'))
    .addColumn('message_id', 'text', (col) => col.notNull())
    .addColumn('event', 'text', (col) => col.notNull())
    .addColumn('item_type', 'text')
    .addColumn('item_id', 'integer')
    .addColumn('payload', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (col) => col.notNull())
    .addColumn('lease_until', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('response_status', 'integer')
    .addColumn('response_ms', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  // The workers' question (what is due), a subscriber's log, and "is an earlier delivery of this item unfinished".
  await db.schema
    .createIndex('calendar_webhook_deliveries_due')
    .on('calendar_webhook_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema.createIndex('calendar_webhook_deliveries_log').on('calendar_webhook_deliveries').columns(['webhook_id', 'id']).execute();
  await db.schema
    .createIndex('calendar_webhook_deliveries_item')
    .on('calendar_webhook_deliveries')
    .columns(['webhook_id', 'item_type', 'item_id', 'status'])
    .execute();
  await db.schema
    .createTable('calendar_webhook_dispatch')
    .addColumn('id', 'integer', (col) => col.primaryKey())
    .addColumn('seq', 'bigint', (col) => col.notNull())
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('item_id', 'integer', (col) => col.notNull())
    .execute();
  await sql`insert into calendar_webhook_dispatch (id, seq, type, item_id)
    select 1, value, '', 0 from revisions where name = 'calendar'`.execute(db);
  await db.schema
    .createTable('calendar_webhook_announced')
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('item_id', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('calendar_webhook_announced_pk', ['type', 'item_id'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['calendar_webhook_announced', 'calendar_webhook_dispatch', 'calendar_webhook_deliveries', 'calendar_webhooks']) {
    await db.schema.dropTable(table).execute();
  }
}
