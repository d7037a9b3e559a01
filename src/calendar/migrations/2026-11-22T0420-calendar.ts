import { PostgresAdapter, type Kysely } from 'kysely';

// The calendar's storage: local wall times and UTC instants side by side, both indexed. Frozen: Kysely only.

/** A table with the post columns events, venues and organizers share (their ids come from `post_ids`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function postTable(db: Kysely<any>, name: string) {
  return db.schema
    .createTable(name)
    .addColumn('id', 'integer', (col) => col.primaryKey().references('post_ids.id').onDelete('cascade'))
    .addColumn('author_id', 'integer', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('date', 'text', (col) => col.notNull())
    .addColumn('date_utc', 'text', (col) => col.notNull())
    .addColumn('modified', 'text', (col) => col.notNull())
    .addColumn('modified_utc', 'text', (col) => col.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('image_id', 'integer', (col) => col.references('images.id').onDelete('set null'));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const serial = postgres ? 'serial' : 'integer';
  const real = postgres ? 'double precision' : 'real';

  // One id sequence for events, venues, organizers and images, as posts share ids in the reference.
  await db.schema
    .createTable('post_ids')
    .addColumn('id', serial, (col) => (postgres ? col.primaryKey() : col.primaryKey().autoIncrement()))
    .addColumn('type', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('images')
    .addColumn('id', 'integer', (col) => col.primaryKey().references('post_ids.id').onDelete('cascade'))
    .addColumn('url', 'text', (col) => col.notNull().unique())
    .addColumn('extension', 'text', (col) => col.notNull())
    .addColumn('author_id', 'integer', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();

  await postTable(db, 'venues')
    .addColumn('address', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('city', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('country', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('province', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('state', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('stateprovince', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('zip', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('phone', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('website', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('show_map', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('show_map_link', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('geo_lat', real)
    .addColumn('geo_lng', real)
    .execute();
  await db.schema.createIndex('venues_status_date').on('venues').columns(['status', 'date']).execute();
  await db.schema.createIndex('venues_geo').on('venues').columns(['geo_lat', 'geo_lng']).execute();

  await postTable(db, 'organizers')
    .addColumn('phone', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('website', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('email', 'text', (col) => col.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('organizers_status_date').on('organizers').columns(['status', 'date']).execute();

  await postTable(db, 'events')
    .addColumn('parent_id', 'integer', (col) => col.references('events.id').onDelete('set null'))
    .addColumn('timezone', 'text', (col) => col.notNull())
    .addColumn('all_day', 'integer', (col) => col.notNull().defaultTo(0))
    // Local wall times (filters and ordering, as the reference) and UTC instants, written together.
    .addColumn('start_local', 'text', (col) => col.notNull())
    .addColumn('end_local', 'text', (col) => col.notNull())
    .addColumn('start_utc', 'text', (col) => col.notNull())
    .addColumn('end_utc', 'text', (col) => col.notNull())
    // JSON array of the cost strings as given; null when no cost.
    .addColumn('cost', 'text')
    .addColumn('currency_symbol', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('currency_position', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('currency_code', 'text', (col) => col.notNull().defaultTo(''))
    // null: never set (the payload falls back to the permalink).
    .addColumn('website', 'text')
    .addColumn('show_map', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('show_map_link', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('hide_from_listings', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('sticky', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('featured', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('venue_id', 'integer', (col) => col.references('venues.id').onDelete('set null'))
    .execute();
  await db.schema.createIndex('events_listing').on('events').columns(['hide_from_listings', 'start_local', 'date', 'id']).execute();
  await db.schema.createIndex('events_end_local').on('events').column('end_local').execute();
  await db.schema.createIndex('events_status_start').on('events').columns(['status', 'start_local']).execute();
  await db.schema.createIndex('events_venue').on('events').column('venue_id').execute();
  await db.schema.createIndex('events_parent').on('events').column('parent_id').execute();
  await db.schema.createIndex('events_author').on('events').column('author_id').execute();

  await db.schema
    .createTable('event_organizers')
    .addColumn('event_id', 'integer', (col) => col.notNull().references('events.id').onDelete('cascade'))
    .addColumn('organizer_id', 'integer', (col) => col.notNull().references('organizers.id').onDelete('cascade'))
    .addColumn('position', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('event_organizers_pk', ['event_id', 'organizer_id'])
    .execute();
  await db.schema.createIndex('event_organizers_organizer').on('event_organizers').columns(['organizer_id', 'event_id']).execute();

  await db.schema
    .createTable('terms')
    .addColumn('id', serial, (col) => (postgres ? col.primaryKey() : col.primaryKey().autoIncrement()))
    .addColumn('taxonomy', 'text', (col) => col.notNull())
    .addColumn('parent_id', 'integer', (col) => col.references('terms.id').onDelete('set null'))
    .execute();
  await db.schema.createIndex('terms_taxonomy_parent').on('terms').columns(['taxonomy', 'parent_id']).execute();

  await db.schema
    .createTable('event_terms')
    .addColumn('event_id', 'integer', (col) => col.notNull().references('events.id').onDelete('cascade'))
    .addColumn('term_id', 'integer', (col) => col.notNull().references('terms.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('event_terms_pk', ['event_id', 'term_id'])
    .execute();
  await db.schema.createIndex('event_terms_term').on('event_terms').columns(['term_id', 'event_id']).execute();

  // Per-language values of translatable fields; a new language is rows, not a migration.
  await db.schema
    .createTable('translations')
    .addColumn('resource_type', 'text', (col) => col.notNull())
    .addColumn('resource_id', 'integer', (col) => col.notNull())
    .addColumn('language', 'text', (col) => col.notNull())
    .addColumn('field', 'text', (col) => col.notNull())
    .addColumn('value', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('translations_pk', ['resource_type', 'resource_id', 'language', 'field'])
    .execute();
  await db.schema.createIndex('translations_lookup').on('translations').columns(['resource_type', 'field', 'value']).execute();

  // Slugs taken per resource type, across languages: the primary key makes concurrent claims safe.
  await db.schema
    .createTable('slugs')
    .addColumn('resource_type', 'text', (col) => col.notNull())
    .addColumn('slug', 'text', (col) => col.notNull())
    .addColumn('resource_id', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('slugs_pk', ['resource_type', 'slug'])
    .execute();
  await db.schema.createIndex('slugs_owner').on('slugs').columns(['resource_type', 'resource_id']).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'slugs',
    'translations',
    'event_terms',
    'terms',
    'event_organizers',
    'events',
    'organizers',
    'venues',
    'images',
    'post_ids',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
