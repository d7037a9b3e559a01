/**
 * The storage floor of "create event" (docs/perf.md, "Create event"): the
 * rows one `POST …/events` of the create scenario writes — its post id, the
 * event, its slug, its title, description and slug texts, its category
 * link, and every trigger these fire — through the service's own driver,
 * as SQL compiled once, one durable transaction per create (or per batch
 * of creates, each in its own savepoint as a group commit must keep one
 * create's failure from the others). No HTTP, no validation, no answer:
 * however a create is written, it cannot go faster than this on the same
 * machine and database.
 *
 * Run by `npm run bench` as a child process on the server's CPU:
 *   node --import tsx bench/create-floor.ts --seconds S --batch N --concurrency C --venue ID --category SLUG
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

/** The event row of the create scenario's body, as the service stores it. */
const EVENT_COLUMNS = {
  author_id: null,
  status: 'publish',
  date: '2026-11-24 10:00:00',
  date_utc: '2026-11-24 10:00:00',
  modified: '2026-11-24 10:00:00',
  modified_utc: '2026-11-24 10:00:00',
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

const STATEMENTS = {
  reserveId: `insert into post_ids (type) values ('event') returning id`,
  insertEvent: `insert into events (id, ${Object.keys(EVENT_COLUMNS).join(', ')}, venue_id) values (${Array(Object.keys(EVENT_COLUMNS).length + 2).fill('?').join(', ')})`,
  claimSlug: `insert into slugs (resource_type, slug, resource_id) values ('event', ?, ?) on conflict (resource_type, slug) do nothing returning resource_id`,
  writeTexts: `insert into translations (resource_type, resource_id, language, field, value) values ('event', ?, 'en', 'title', ?), ('event', ?, 'en', 'description', ?), ('event', ?, 'en', 'slug', ?)`,
  linkCategory: `insert into event_terms (event_id, term_id) values (?, ?)`,
  findCategory: `select resource_id from slugs where resource_type = 'category' and slug = ?`,
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

async function writeOneCreate(trx: Kysely<Database>, sql: Compiled, venueId: number, termId: number, unique: string): Promise<void> {
  const { rows } = await trx.executeQuery<{ id: number }>(query(sql.reserveId, []));
  const id = rows[0]!.id;
  const slug = `${SLUG_PREFIX}${unique}`;
  await trx.executeQuery(query(sql.insertEvent, [id, ...Object.values(EVENT_COLUMNS), venueId]));
  await trx.executeQuery(query(sql.claimSlug, [slug, id]));
  await trx.executeQuery(query(sql.writeTexts, [id, `Floor create ${unique}`, id, '<p>Created by npm run bench.</p>', id, slug]));
  await trx.executeQuery(query(sql.linkCategory, [id, termId]));
}

/** Creates for `seconds`, `concurrency` transactions at a time; each create's latency is its transaction's. */
export async function measureCreateFloor(store: Store, options: FloorOptions): Promise<LoadResult> {
  const sql = Object.fromEntries(
    Object.entries(STATEMENTS).map(([name, text]) => [name, placeholders(text, store.dialect)]),
  ) as unknown as Compiled;
  const { rows } = await store.db.executeQuery<{ resource_id: number }>(query(sql.findCategory, [options.categorySlug]));
  const termId = rows[0]?.resource_id;
  if (termId === undefined) throw new Error(`no category with the slug ${options.categorySlug}`);
  const run = `${process.pid}-${Date.now().toString(36)}`;
  let sequence = 0;
  const transaction = () =>
    store.db.transaction().execute(async (trx) => {
      if (options.batch === 1) return writeOneCreate(trx, sql, options.venueId, termId, `${run}-${sequence++}`);
      for (let index = 0; index < options.batch; index++) {
        await trx.executeQuery(CompiledQuery.raw('savepoint floor_create'));
        await writeOneCreate(trx, sql, options.venueId, termId, `${run}-${sequence++}`);
        await trx.executeQuery(CompiledQuery.raw('release savepoint floor_create'));
      }
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

const REMOVE_CHUNK = 1000;

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
    venueId: positive('venue', 0),
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
