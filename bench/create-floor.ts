/**
 * The storage floor of "create event" (docs/perf.md, "Create event"): the
 * rows one `POST …/events` of the create scenario writes — its post id, the
 * event, its slug, its title, description and slug texts, its category
 * link, and every trigger these fire — through the service's own driver
 * (Kysely's), with the bulk loader's statements: SQL compiled once, kept
 * prepared on SQLite, one durable
 * transaction per create, or one per batch of creates with each create in
 * a savepoint, the cost of a group commit that can undo one create alone.
 * No HTTP, no token, no validation, no lookups, no answer: what the
 * service's create could reach through this driver if all of that were free.
 *
 * Run by `npm run bench` as a child process on the server's CPU:
 *   node --import tsx bench/create-floor.ts --venue ID --category SLUG [--seconds S] [--warmup S] [--batch N] [--concurrency C]
 * with DATABASE_URL set; prints one JSON LoadResult line.
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { CompiledQuery, type Kysely } from 'kysely';
import { EVENT_COLUMNS, SINGLE_EVENT } from '../src/calendar/seed/demo-events.ts';
import { BulkInsert, findFirstAdministratorId, findSlugOwners, type BulkRow } from '../src/calendar/seed/demo-events.repository.ts';
import { utcStamp } from '../src/calendar/posts/posts.access.ts';
import { deleteTexts } from '../src/calendar/posts/posts.repository.ts';
import { createDb, type Store } from '../src/platform/db/database.ts';
import type { Database } from '../src/platform/db/schema.ts';
import type { LoadResult } from './load.ts';

export interface FloorOptions {
  readonly seconds: number;
  /** Creates per transaction: 1 is a commit per create. */
  readonly batch: number;
  /** Transactions in flight at once (the scenario's connections); SQLite runs them one after the other. */
  readonly concurrency: number;
  readonly venueId: number;
  readonly categorySlug: string;
}

/** Every slug the floor writes starts so; `removeFloorCreates` finds them by it. */
const SLUG_PREFIX = 'floor-create-';

interface Target {
  readonly venueId: number;
  readonly termId: number;
  readonly authorId: number | null;
}

/**
 * The statements of one create, in the bulk loader's form: each compiled once
 * (per row count) and reused with new parameters. A writer buffers rows until
 * flushed, so every concurrent chain of transactions has its own.
 */
function writers(db: Kysely<Database>) {
  return {
    // Always the same parameters: the compiled query itself is reused.
    reserveId: db.insertInto('post_ids').values({ type: 'event' }).returning('id').compile(),
    events: new BulkInsert('events', EVENT_COLUMNS),
    slugs: new BulkInsert('slugs', ['resource_type', 'slug', 'resource_id'], true),
    texts: new BulkInsert('translations', ['resource_type', 'resource_id', 'language', 'field', 'value']),
    links: new BulkInsert('event_terms', ['event_id', 'term_id']),
  };
}

type Writers = ReturnType<typeof writers>;

/** The create scenario's event as the service stores it: published now by the bench's user, at a venue. */
function eventRow(id: number, target: Target, now: Date): BulkRow<'events'> {
  const stamp = utcStamp(now);
  return {
    id,
    author_id: target.authorId,
    status: 'publish',
    date: stamp,
    date_utc: stamp,
    modified: stamp,
    modified_utc: stamp,
    password_hash: null,
    image_id: null,
    parent_id: null,
    timezone: 'Europe/Rome',
    all_day: 0,
    start_local: '2027-06-01 21:00:00',
    end_local: '2027-06-01 23:00:00',
    start_utc: '2027-06-01 19:00:00',
    end_utc: '2027-06-01 21:00:00',
    cost: null,
    currency_symbol: '',
    currency_position: '',
    currency_code: '',
    website: null,
    show_map: 0,
    show_map_link: 0,
    hide_from_listings: 0,
    sticky: 0,
    featured: 0,
    venue_id: target.venueId,
    ...SINGLE_EVENT,
  };
}

async function writeOneCreate(trx: Kysely<Database>, write: Writers, target: Target, unique: string): Promise<void> {
  const id = (await trx.executeQuery(write.reserveId)).rows[0]!.id;
  const slug = `${SLUG_PREFIX}${unique}`;
  write.events.add(eventRow(id, target, new Date()));
  await write.events.flush(trx);
  write.slugs.add({ resource_type: 'event', slug, resource_id: id });
  await write.slugs.flush(trx);
  // The description as the service stores it (sanitized; paragraphs are added when read).
  const texts = [
    ['title', `Floor create ${unique}`],
    ['description', 'Created by npm run bench.'],
    ['slug', slug],
  ] as const;
  for (const [field, value] of texts) write.texts.add({ resource_type: 'event', resource_id: id, language: 'en', field, value });
  await write.texts.flush(trx);
  write.links.add({ event_id: id, term_id: target.termId });
  await write.links.flush(trx);
}

/** One create of a group: undone alone if it fails, as a group commit must (nothing fails here; this is its cost). */
async function writeInSavepoint(trx: Kysely<Database>, write: Writers, target: Target, unique: string): Promise<void> {
  await trx.executeQuery(CompiledQuery.raw('savepoint floor_create'));
  try {
    await writeOneCreate(trx, write, target, unique);
  } catch (error) {
    await trx.executeQuery(CompiledQuery.raw('rollback to savepoint floor_create'));
    throw error;
  } finally {
    await trx.executeQuery(CompiledQuery.raw('release savepoint floor_create'));
  }
}

/** Creates for `seconds`, `concurrency` transactions at a time; each create's latency is its transaction's. */
export async function measureCreateFloor(store: Store, options: FloorOptions): Promise<LoadResult> {
  const termId = (await findSlugOwners(store.db, 'category', [options.categorySlug])).get(options.categorySlug);
  if (termId === undefined) throw new Error(`no category with the slug ${options.categorySlug}`);
  const target: Target = { venueId: options.venueId, termId, authorId: await findFirstAdministratorId(store.db) };
  const run = `${process.pid}-${Date.now().toString(36)}`;
  let sequence = 0;
  const transaction = (write: Writers) =>
    store.db.transaction().execute(async (trx) => {
      if (options.batch === 1) return writeOneCreate(trx, write, target, `${run}-${sequence++}`);
      for (let index = 0; index < options.batch; index++) await writeInSavepoint(trx, write, target, `${run}-${sequence++}`);
    });
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      const write = writers(store.db);
      while (performance.now() < deadline) {
        const begun = performance.now();
        await transaction(write);
        const took = performance.now() - begun;
        for (let index = 0; index < options.batch; index++) latencies.push(took);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const percentile = (share: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * share))] ?? 0;
  return {
    requests: latencies.length,
    seconds,
    requestsPerSecond: latencies.length / seconds,
    p50Ms: percentile(0.5),
    p99Ms: percentile(0.99),
    badResponses: 0,
    socketErrors: 0,
  };
}

/** Events deleted per transaction. */
const REMOVE_CHUNK = 1000;

/** Deletes the floor's events and all they brought (the scenarios after it must see the seeded data only); returns how many. */
export async function removeFloorCreates(store: Store): Promise<number> {
  const found = await store.db
    .selectFrom('slugs')
    .select('resource_id')
    .where('resource_type', '=', 'event')
    .where('slug', 'like', `${SLUG_PREFIX}%`)
    .execute();
  const ids = found.map((row) => row.resource_id);
  for (let start = 0; start < ids.length; start += REMOVE_CHUNK) {
    const chunk = ids.slice(start, start + REMOVE_CHUNK);
    await store.db.transaction().execute(async (trx) => {
      await deleteTexts(trx, 'event', chunk);
      await trx.deleteFrom('slugs').where('resource_type', '=', 'event').where('resource_id', 'in', chunk).execute();
      await trx.deleteFrom('events').where('id', 'in', chunk).execute();
      await trx.deleteFrom('post_ids').where('id', 'in', chunk).execute();
    });
  }
  return ids.length;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string' },
      batch: { type: 'string' },
      concurrency: { type: 'string' },
      venue: { type: 'string' },
      category: { type: 'string' },
      warmup: { type: 'string' },
    },
    strict: true,
  });
  const url = process.env.DATABASE_URL;
  if (url === undefined || values.venue === undefined || values.category === undefined) {
    throw new Error(
      'usage: DATABASE_URL=… create-floor.ts --venue ID --category SLUG [--seconds S] [--batch N] [--concurrency C] [--warmup S]',
    );
  }
  const positive = (name: keyof typeof values, fallback: number, whole = true) => {
    const value = Number(values[name] ?? fallback);
    if (!(value > 0) || (whole && !Number.isInteger(value)))
      throw new Error(`--${name} must be a positive ${whole ? 'whole ' : ''}number, got "${String(values[name])}"`);
    return value;
  };
  const options = {
    batch: positive('batch', 1),
    concurrency: positive('concurrency', 16),
    venueId: positive('venue', Number.NaN),
    categorySlug: values.category,
  };
  const [warmup, seconds] = [positive('warmup', 0.5, false), positive('seconds', 2, false)];
  const store = createDb(url);
  try {
    // Prepared statements, the JIT and the pool warm up before the measured window.
    await measureCreateFloor(store, { ...options, seconds: warmup });
    const result = await measureCreateFloor(store, { ...options, seconds });
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await store.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
