/**
 * The storage floor of "create event" (docs/perf.md, "Create event"): the
 * rows one `POST …/events` of the create scenario writes — its post id, the
 * event, its slug, its title, description and slug texts, its category
 * link, and every trigger these fire — through the service's own driver
 * (Kysely's; SQL compiled once, kept prepared on SQLite), one durable
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
import { deleteTranslations } from '../src/calendar/shared/translations.ts';
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

/** The event row of the create scenario's body as the service stores it, but for its author and dates (`eventRow`). */
const EVENT_COLUMNS = {
  status: 'publish',
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
} as const;

/** Published and modified now, by the first administrator (the bench's token user). */
function eventRow(authorId: number | null, now: Date): Record<string, unknown> {
  const stamp = now.toISOString().slice(0, 19).replace('T', ' ');
  return { author_id: authorId, date: stamp, date_utc: stamp, modified: stamp, modified_utc: stamp, ...EVENT_COLUMNS };
}

const EVENT_COLUMN_NAMES = Object.keys(eventRow(null, new Date()));

const STATEMENTS = {
  reserveId: `insert into post_ids (type) values ('event') returning id`,
  insertEvent: `insert into events (id, ${EVENT_COLUMN_NAMES.join(', ')}, venue_id) values (${Array(EVENT_COLUMN_NAMES.length + 2).fill('?').join(', ')})`,
  claimSlug: `insert into slugs (resource_type, slug, resource_id) values ('event', ?, ?) on conflict (resource_type, slug) do nothing returning resource_id`,
  writeTexts: `insert into translations (resource_type, resource_id, language, field, value) values ('event', ?, 'en', 'title', ?), ('event', ?, 'en', 'description', ?), ('event', ?, 'en', 'slug', ?)`,
  linkCategory: `insert into event_terms (event_id, term_id) values (?, ?)`,
  findCategory: `select resource_id from slugs where resource_type = 'category' and slug = ?`,
  findAuthor: `select id from users where role = 'administrator' order by id limit 1`,
} as const;

/** Every slug the floor writes starts so; `removeFloorCreates` finds them by it. */
const SLUG_PREFIX = 'floor-create-';

/** `?` placeholders as the dialect writes them (PostgreSQL: `$1`, `$2`, …). */
function placeholders(text: string, dialect: Store['dialect']): string {
  let index = 0;
  return dialect === 'postgres' ? text.replace(/\?/g, () => `$${++index}`) : text;
}

type Compiled = { readonly [name in keyof typeof STATEMENTS]: string };

const query = (compiled: string, parameters: readonly unknown[]) => CompiledQuery.raw(compiled, [...parameters]);

interface Target {
  readonly venueId: number;
  readonly termId: number;
  readonly authorId: number | null;
}

async function writeOneCreate(trx: Kysely<Database>, sql: Compiled, target: Target, unique: string): Promise<void> {
  const { rows } = await trx.executeQuery<{ id: number }>(query(sql.reserveId, []));
  const id = rows[0]!.id;
  const slug = `${SLUG_PREFIX}${unique}`;
  await trx.executeQuery(query(sql.insertEvent, [id, ...Object.values(eventRow(target.authorId, new Date())), target.venueId]));
  await trx.executeQuery(query(sql.claimSlug, [slug, id]));
  // The description as the service stores it (sanitized, paragraphs added when read).
  await trx.executeQuery(query(sql.writeTexts, [id, `Floor create ${unique}`, id, 'Created by npm run bench.', id, slug]));
  await trx.executeQuery(query(sql.linkCategory, [id, target.termId]));
}

/** One create of a group: undone alone if it fails, as a group commit must (nothing fails here; this is its cost). */
async function writeInSavepoint(trx: Kysely<Database>, sql: Compiled, target: Target, unique: string): Promise<void> {
  await trx.executeQuery(CompiledQuery.raw('savepoint floor_create'));
  try {
    await writeOneCreate(trx, sql, target, unique);
  } catch (error) {
    await trx.executeQuery(CompiledQuery.raw('rollback to savepoint floor_create'));
    throw error;
  } finally {
    await trx.executeQuery(CompiledQuery.raw('release savepoint floor_create'));
  }
}

/** Creates for `seconds`, `concurrency` transactions at a time; each create's latency is its transaction's. */
export async function measureCreateFloor(store: Store, options: FloorOptions): Promise<LoadResult> {
  const sql = Object.fromEntries(
    Object.entries(STATEMENTS).map(([name, text]) => [name, placeholders(text, store.dialect)]),
  ) as unknown as Compiled;
  const { rows } = await store.db.executeQuery<{ resource_id: number }>(query(sql.findCategory, [options.categorySlug]));
  const termId = rows[0]?.resource_id;
  if (termId === undefined) throw new Error(`no category with the slug ${options.categorySlug}`);
  const author = await store.db.executeQuery<{ id: number }>(query(sql.findAuthor, []));
  const target: Target = { venueId: options.venueId, termId, authorId: author.rows[0]?.id ?? null };
  const run = `${process.pid}-${Date.now().toString(36)}`;
  let sequence = 0;
  const transaction = () =>
    store.db.transaction().execute(async (trx) => {
      if (options.batch === 1) return writeOneCreate(trx, sql, target, `${run}-${sequence++}`);
      for (let index = 0; index < options.batch; index++) await writeInSavepoint(trx, sql, target, `${run}-${sequence++}`);
    });
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < deadline) {
        const begun = performance.now();
        await transaction();
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
      await deleteTranslations(trx, 'event', chunk);
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
    throw new Error('usage: DATABASE_URL=… create-floor.ts --venue ID --category SLUG [--seconds S] [--batch N] [--concurrency C] [--warmup S]');
  }
  const positive = (name: keyof typeof values, fallback: number, whole = true) => {
    const value = Number(values[name] ?? fallback);
    if (!(value > 0) || (whole && !Number.isInteger(value))) throw new Error(`--${name} must be a positive ${whole ? 'whole ' : ''}number, got "${String(values[name])}"`);
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
