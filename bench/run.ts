/**
 * `npm run bench`: seeds a fresh database, starts Almanac and a bare Fastify
 * baseline as child processes, loads each with wrk (or autocannon), and
 * prints every figure as a ratio to the baseline, measured in rounds
 * alternating with each scenario.
 * See docs/perf.md. Exit code 0 when the run completed (targets are
 * reported, not asserted), 1 when the harness itself failed.
 */
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { buildMediaService } from '../src/calendar/calendar.services.ts';
import { seedDemoEvents } from '../src/calendar/seed/demo-events.ts';
import { findFirstAdministratorId } from '../src/calendar/seed/demo-events.repository.ts';
import { ensureDemoPosters } from '../src/calendar/seed/demo-images.ts';
import { convertDemoEventsToSeries } from '../src/calendar/seed/demo-series.ts';
import { seriesLimits } from '../src/calendar/recurrence/recurrence.series.ts';
import { progressBar } from '../src/cli/progress.ts';
import { loadConfig } from '../src/config/config.ts';
import { DEFAULT_PASSWORD_HASH_COST, PasswordHasher } from '../src/platform/auth/passwords.ts';
import { UsersService } from '../src/platform/auth/users.service.ts';
import { createDb, migrateToLatest, type Store } from '../src/platform/db/database.ts';
import { MIGRATION_FOLDERS } from '../src/migrations.ts';
import { removeFloorCreates } from './create-floor.ts';
import { createBenchDatabase, type BenchDatabase } from './database.ts';
import { seedEntities } from './entities.ts';
import { loadFixtures, type Fixtures } from './fixtures.ts';
import { chooseLoadGenerator, combineRounds, roundSeconds, type LoadGenerator, type LoadRequest, type LoadResult } from './load.ts';
import { pgbouncerRefusal, startPgBouncer } from './pgbouncer.ts';
import {
  buildBundle,
  npmStartArgs,
  pinned,
  planCpus,
  runCli,
  runScript,
  serverEnv,
  startServerProcess,
  type CpuPlan,
  type ServerProcess,
} from './processes.ts';
import { sendHostileShapes } from './hostile-shapes.ts';
import { measureMixedLatency } from './open-loop.ts';
import { measureSeriesWrites } from './series-writes.ts';
import { formatTable, writeResults, type Row } from './report.ts';
import { adminSessionCookie } from './admin-session.ts';
import {
  ADMIN_LINES,
  caldavScenarios,
  computedScenarios,
  listScenario,
  mixedScenario,
  scenarios,
  type RatioTarget,
  type Scenario,
} from './scenarios.ts';

const USAGE = `npm run bench -- [options]
  --duration S      measured seconds per scenario (default 8)
  --warmup S        warm-up seconds before each measurement (default 2)
  --connections N   concurrent connections (default 16)
  --small N         events for the small list measurement (default 10000)
  --large N         events for the main run (default 100000)
  --million         also measure the list at 1,000,000 events (slow to seed)
  --entities N      entity-management records for the entity scenarios (default 100000)
  --only a,b        run only these scenarios (names as in the JSON results; event-list-series[-computed]
                    turn a tenth of the --large events into weekly series after the other large-run scenarios)
  --loader NAME     wrk or autocannon (default: wrk when installed)
  --keep            keep the benchmark database (its URL is printed)
  --pgbouncer       PostgreSQL only: the servers reach the database through a PgBouncer in transaction pooling
                    that the run starts (scripts/pgbouncer.sh), to compare with a run without it
Environment: BENCH_DATABASE_URL=postgres://user:pass@host:port/db runs on PostgreSQL (a fresh database is created in it).`;

interface Options {
  readonly duration: number;
  readonly warmup: number;
  readonly connections: number;
  readonly small: number;
  readonly large: number;
  readonly million: boolean;
  readonly entities: number;
  readonly only: ReadonlySet<string> | undefined;
  readonly loader: string | undefined;
  readonly keep: boolean;
  readonly pgbouncer: boolean;
}

class UsageError extends Error {}

/** The series the run wrote for the series list: among how many events, and how long it took (ANALYZE included). */
interface SeriesSeed {
  readonly events: number;
  readonly series: number;
  readonly occurrences: number;
  readonly seconds: number;
}

const OPTIONS = {
  duration: { type: 'string' },
  warmup: { type: 'string' },
  connections: { type: 'string' },
  small: { type: 'string' },
  large: { type: 'string' },
  million: { type: 'boolean' },
  entities: { type: 'string' },
  only: { type: 'string' },
  loader: { type: 'string' },
  keep: { type: 'boolean' },
  pgbouncer: { type: 'boolean' },
  help: { type: 'boolean' },
} as const;

function parseOptions(argv: readonly string[]): Options | undefined {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values } = parsed;
  if (values.help === true) return undefined;
  const count = (name: keyof typeof values, fallback: number, min: number) => {
    const raw = values[name];
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min) throw new UsageError(`--${name} must be a whole number ≥ ${min}, got "${String(raw)}"`);
    return value;
  };
  if (values.loader !== undefined && values.loader !== 'wrk' && values.loader !== 'autocannon') {
    throw new UsageError('--loader must be wrk or autocannon');
  }
  const refusal = values.pgbouncer === true ? pgbouncerRefusal(process.env.BENCH_DATABASE_URL) : undefined;
  if (refusal !== undefined) throw new UsageError(refusal);
  return {
    duration: count('duration', 8, 1),
    warmup: count('warmup', 2, 0),
    connections: count('connections', 16, 1),
    small: count('small', 10_000, 100),
    large: count('large', 100_000, 100),
    million: values.million === true,
    entities: count('entities', 100_000, 0),
    only: values.only === undefined ? undefined : new Set(values.only.split(',').map((name) => name.trim())),
    loader: values.loader,
    keep: values.keep === true,
    pgbouncer: values.pgbouncer === true,
  };
}

const log = (line: string) => process.stderr.write(`${line}\n`);
const MB = 1024 * 1024;
const RSS_LIMIT_MB = 200;
/** Resident memory allowed after HOSTILE_SHAPES requests of distinct shapes (issue 19.4). */
const HOSTILE_RSS_LIMIT_MB = 250;
const HOSTILE_SHAPES = 10_000;
const P50_SCALING_LIMIT = 1.5;
/** The default list over events of which a tenth are recurring series, against the plain list (issue 21). */
const SERIES_P50_LIMIT = 1.5;
const SERIES_SHARE = 10;
const SERIES_LISTS = { cached: 'event-list-series', computed: 'event-list-series-computed' } as const satisfies Record<ListMode, string>;
const DEFAULT_BODY_BYTES = 2_000;
const LIST_MODES = ['cached', 'computed'] as const;
type ListMode = (typeof LIST_MODES)[number];

/** A scenario's figures and those of the baseline rounds it alternated with. */
interface Measured {
  readonly result: LoadResult;
  readonly baseline: LoadResult;
}

/** One benchmark run: owns its database, its server processes and the rows it reports. */
class BenchRun {
  readonly rows: Row[] = [];

  constructor(
    readonly options: Options,
    readonly database: BenchDatabase,
    readonly loader: LoadGenerator,
    readonly cpu: CpuPlan,
    readonly env: Record<string, string>,
  ) {}

  wants(name: string): boolean {
    return this.options.only === undefined || this.options.only.has(name);
  }

  async withStore<T>(work: (store: Store) => Promise<T>): Promise<T> {
    const store = createDb(this.database.url);
    try {
      await migrateToLatest(store.db, MIGRATION_FOLDERS);
      return await work(store);
    } finally {
      await store.close();
    }
  }

  /**
   * Turns a tenth of the `events` stored into weekly series of 50–60
   * occurrences, as the server stores them (its RECURRENCE_* limits).
   */
  async convertToSeries(events: number): Promise<SeriesSeed> {
    const count = Math.round(events / SERIES_SHARE);
    log(`turning ${count} of the ${events} events into weekly series…`);
    const limits = seriesLimits(loadConfig(this.env));
    const started = performance.now();
    const converted = await this.withStore((store) =>
      convertDemoEventsToSeries(store, { series: count, limits, onProgress: progressBar('series') }),
    );
    return { events, ...converted, seconds: (performance.now() - started) / 1000 };
  }

  /** The demo posters, for `media-file`: stored once and shown by no event, so the other scenarios read what they read before. */
  async ensurePosters(): Promise<void> {
    const config = loadConfig(this.env);
    await this.withStore(async (store) => {
      const admin = await findFirstAdministratorId(store.db);
      if (admin !== null) await ensureDemoPosters(buildMediaService(config, store), admin);
    });
  }

  async seedEventsUpTo(total: number, current: number): Promise<number> {
    if (total <= current) return current;
    log(`seeding ${total - current} events (to ${total})…`);
    await this.withStore((store) =>
      seedDemoEvents(store, { events: total - current, siteTimezone: 'UTC', onProgress: progressBar('events') }),
    );
    return total;
  }

  /** Almanac as `npm start` runs it; `caching: false` turns cached answers off (RESPONSE_CACHE_MB=0). */
  startAlmanac({ caching = true, workers = 1 } = {}): Promise<ServerProcess> {
    const env = { ...this.env, ...(caching ? {} : { RESPONSE_CACHE_MB: '0' }), WEB_CONCURRENCY: String(workers) };
    return startServerProcess('almanac', pinned(this.cpu.server, process.execPath, npmStartArgs()), env);
  }

  startBaseline(bodyBytes: number): Promise<ServerProcess> {
    const command = pinned(this.cpu.server, process.execPath, ['--import', 'tsx', 'bench/baseline-server.ts']);
    return startServerProcess('baseline', command, { BODY_BYTES: String(bodyBytes), PORT: '0' });
  }

  /**
   * Warm-up, then the measured window cut into rounds of about two seconds,
   * each after a round of the baseline: on a shared machine the speed of a
   * core drifts within seconds, and both sides of a ratio then see the same
   * drift.
   */
  async loadAlternating(request: LoadRequest, baselineUrl: string): Promise<Measured> {
    if (this.options.warmup > 0) await this.loader.run(request, this.settings(this.options.warmup, request.connections));
    return this.alternating((seconds) => this.loader.run(request, this.settings(seconds, request.connections)), baselineUrl);
  }

  private async alternating(measureRound: (seconds: number) => Promise<LoadResult>, baselineUrl: string): Promise<Measured> {
    const rounds: LoadResult[] = [];
    const baselineRounds: LoadResult[] = [];
    for (const seconds of roundSeconds(this.options.duration)) {
      baselineRounds.push(await this.loader.run({ method: 'GET', url: baselineUrl }, this.settings(seconds)));
      rounds.push(await measureRound(seconds));
    }
    return { result: combineRounds(rounds), baseline: combineRounds(baselineRounds) };
  }

  private settings(seconds: number, connections = this.options.connections) {
    return { connections, cpus: this.cpu.load, seconds };
  }

  /** The baseline alone for a whole window: the ceiling's own figures, shown at the top of the table. */
  async measureBaseline(url: string, label: string): Promise<void> {
    log(`measuring ${label}…`);
    const request = { method: 'GET', url } as const;
    if (this.options.warmup > 0) await this.loader.run(request, this.settings(this.options.warmup));
    this.rows.push({ name: 'baseline', title: label, result: await this.loader.run(request, this.settings(this.options.duration)) });
  }

  /** Probes the route once, then loads it; a missing route or an unexpected answer becomes an "n/a" row. */
  async measure(scenario: Scenario, baselineUrl: string): Promise<Measured | undefined> {
    if (!this.wants(scenario.name)) return undefined;
    const target =
      scenario.maxP50Ms !== undefined
        ? `p50 < ${scenario.maxP50Ms} ms`
        : scenario.target === undefined
          ? '—'
          : `≥ ${scenario.target.minRatio * 100}%${scenario.target.stretch ? ` (stretch ${scenario.target.stretch * 100}%)` : ''}${
              scenario.target.maxP99Factor ? `, p99 ≤ ${scenario.target.maxP99Factor}× baseline` : ''
            }`;
    const unavailable =
      scenario.unavailable ??
      (scenario.request.variants !== undefined && this.loader.name !== 'wrk' ? 'a mixed workload needs wrk' : undefined);
    if (unavailable !== undefined) {
      this.rows.push({ name: scenario.name, title: scenario.title, value: 'n/a', target, note: unavailable });
      return undefined;
    }
    const probe = await probeRequest(scenario.request);
    if (probe.status !== scenario.expectedStatus) {
      const missing = probe.status === 404;
      const value = missing ? 'n/a (route missing)' : probe.status === 0 ? 'n/a (server unreachable)' : `n/a (HTTP ${probe.status})`;
      this.rows.push({
        name: scenario.name,
        title: scenario.title,
        value,
        target,
        note: missing
          ? undefined
          : probe.status === 0
            ? `no connection: ${probe.text}`
            : `expected ${scenario.expectedStatus}, got ${probe.status}: ${probe.text.slice(0, 200)}`,
      });
      return undefined;
    }
    log(`measuring ${scenario.name}…`);
    const { result, baseline } = await this.loadAlternating(scenario.request, baselineUrl);
    if (result.requests === 0) {
      this.rows.push({
        name: scenario.name,
        title: scenario.title,
        value: 'no response',
        target,
        pass: scenario.target === undefined ? undefined : false,
        note: `no request completed within the ${this.options.duration} s window (each took longer, or failed: ${result.socketErrors} socket errors)`,
      });
      return undefined;
    }
    const failures = result.badResponses + result.socketErrors;
    const ratio = result.requestsPerSecond / baseline.requestsPerSecond;
    this.rows.push({
      name: scenario.name,
      title: scenario.title,
      result,
      baseline,
      ratio,
      target,
      minRatio: scenario.target?.minRatio,
      pass:
        scenario.maxP50Ms !== undefined
          ? result.p50Ms < scenario.maxP50Ms
          : scenario.target === undefined
            ? undefined
            : meets(scenario.target, ratio, result, baseline),
      note:
        failures > 0 ? `${result.badResponses} unexpected statuses, ${result.socketErrors} socket errors of ${result.requests}` : undefined,
    });
    return { result, baseline };
  }

  /**
   * The storage floor of a create (bench/create-floor.ts) in a child on the
   * server's CPU, in rounds alternating with the baseline: what the create
   * target would leave for everything else.
   */
  async measureCreateFloor(batch: number, fixtures: Fixtures, baselineUrl: string): Promise<void> {
    const name = batch === 1 ? 'create-floor' : `create-floor-batch-${batch}`;
    if (!this.wants(name)) return;
    log(`measuring ${name}…`);
    // As many creates in flight as connections in the scenario: one transaction each, or one group commit of them.
    const concurrency = Math.max(1, Math.floor(this.options.connections / batch));
    const args = [
      '--batch',
      String(batch),
      '--concurrency',
      String(concurrency),
      '--venue',
      String(fixtures.filter.venue),
      '--category',
      fixtures.filter.category,
    ];
    let measured: Measured;
    try {
      measured = await this.alternating(
        async (seconds) =>
          JSON.parse(runScript(this.cpu.server, 'bench/create-floor.ts', [...args, '--seconds', String(seconds)], this.env)) as LoadResult,
        baselineUrl,
      );
    } finally {
      log(`removed the floor's ${await this.withStore(removeFloorCreates)} events`);
    }
    const { result, baseline } = measured;
    this.rows.push({
      name,
      title: `create event floor: its rows only, ${batch === 1 ? 'a commit per create' : `${batch} per commit`}`,
      result,
      baseline,
      ratio: result.requestsPerSecond / baseline.requestsPerSecond,
      target: '—',
    });
  }
}

/** The ratio reaches the target's, and the p99 stays within its factor of the baseline's when it has one. */
function meets(target: RatioTarget, ratio: number, result: LoadResult, baseline: LoadResult): boolean {
  return ratio >= target.minRatio && (target.maxP99Factor === undefined || result.p99Ms <= target.maxP99Factor * baseline.p99Ms);
}

/**
 * The newest CalDAV sync token of the bench's user: a CalDAV token is the change log's (the same caller, language
 * and item type) behind the URI prefix, so `/changes` without a token gives one without listing every event.
 */
async function caldavSyncToken(baseUrl: string, bearer: string): Promise<string> {
  const response = await fetch(`${baseUrl}/calendar/events/v1/changes?type=event`, { headers: { authorization: `Bearer ${bearer}` } });
  const body = (await response.json()) as { next_sync_token?: string };
  return `urn:x-almanac:sync:${body.next_sync_token ?? ''}`;
}

async function probeRequest(request: LoadRequest): Promise<{ status: number; text: string }> {
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body?.replaceAll('[<id>]', `probe-${randomBytes(4).toString('hex')}`),
    });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    return { status: 0, text: (error as Error).message };
  }
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  if (options === undefined) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const cpu = planCpus();
  const loader = chooseLoadGenerator(options.loader);
  // Seeding stays direct; the servers, the CLI and the create floor go through the pooler.
  const pooler = options.pgbouncer ? await startPgBouncer(process.env.BENCH_DATABASE_URL) : undefined;
  const database = await createBenchDatabase(process.env.BENCH_DATABASE_URL).catch((error: unknown) => {
    pooler?.stop();
    throw error;
  });
  const description = pooler === undefined ? database.description : `${database.description}, ${pooler.description}`;
  const adminPassword = randomBytes(12).toString('hex');
  const env = serverEnv(pooler === undefined ? database.url : pooler.pooled(database.url), adminPassword);
  const run = new BenchRun(options, database, loader, cpu, env);
  const started = new Date();
  const load = loadavg()[0]!;
  log(`database: ${description}`);
  log(`load generator: ${loader.name}; ${cpu.description}; load average ${load.toFixed(2)}`);
  // The server runs the bundle `npm ci` builds; rebuilt here so that the run measures the sources as they are.
  buildBundle();
  const servers: ServerProcess[] = [];
  const stopAll = async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop()));
  };
  let baseline: ServerProcess | undefined;
  let peakRss: number | undefined;
  let bodyBytes = DEFAULT_BODY_BYTES;
  let sized = false;
  // The default list by event count, as served (cached answers) and computed on every request.
  const lists: Record<ListMode, Record<number, Measured>> = { cached: {}, computed: {} };
  // The same list once a tenth of the large run's events are series.
  const seriesLists: Partial<Record<ListMode, Measured>> = {};
  let seriesSeed: SeriesSeed | undefined;
  const seriesPeakRss: Partial<Record<ListMode, number>> = {};
  try {
    await run.withStore(async (store) => {
      await new UsersService(store, new PasswordHasher(DEFAULT_PASSWORD_HASH_COST)).add({
        username: 'admin',
        password: adminPassword,
        role: 'administrator',
      });
    });
    const bearer = (JSON.parse(runCli(['tokens', 'create', '--username', 'admin', '--name', 'bench', '--json'], env)) as { token: string })
      .token;

    // 1. The baseline, answering a body the size of a single-event response; it runs until the end, as every
    //    scenario is measured in rounds alternating with it.
    let events = await run.seedEventsUpTo(options.small, 0);
    const sizing = await run.startAlmanac();
    servers.push(sizing);
    const single = await probeRequest({
      method: 'GET',
      url: `${sizing.url}/calendar/events/v1/events/${(await run.withStore(loadFixtures)).eventId}`,
    });
    await stopAll();
    sized = single.status === 200;
    if (sized) bodyBytes = Buffer.byteLength(single.text);
    baseline = await run.startBaseline(bodyBytes);
    const baselineUrl = `${baseline.url}/`;

    // 2. The default list at the small size, for the p50 scaling figure.
    const measureListAt = async (size: number) => {
      for (const mode of LIST_MODES) {
        const server = await run.startAlmanac({ caching: mode === 'cached' });
        servers.push(server);
        const among = seriesSeed === undefined ? '' : ` (${compact(seriesSeed.series)} series among them)`;
        const label = `default list p50 @ ${size.toLocaleString('en')} events${among}, ${mode}`;
        const measured = await run.measure(listScenario(server.url, `list-${size}-${mode}`, label), baselineUrl);
        if (measured !== undefined) lists[mode][size] = measured;
        await stopAll();
      }
    };
    await measureListAt(events);

    // 3. Everything at the large size.
    events = await run.seedEventsUpTo(options.large, events);
    const entity = await run.withStore((store) => seedEntities(store, options.entities));
    if (run.wants('media-file')) await run.ensurePosters();
    const fixtures = await run.withStore(loadFixtures);
    await run.measureBaseline(baselineUrl, `baseline: bare Fastify, ${bodyBytes} B JSON${sized ? '' : ' (default size)'}`);
    const server = await run.startAlmanac();
    servers.push(server);
    const adminCookie = ADMIN_LINES.some((name) => run.wants(name))
      ? await adminSessionCookie(server.url, 'admin', adminPassword).catch((error: unknown) => {
          log(`editor login failed: ${String(error)}`);
          return undefined;
        })
      : undefined;
    const entityFixture = entity.fixture ?? entity.note ?? 'no entity records';
    for (const scenario of scenarios(server.url, fixtures, bearer, entityFixture, adminCookie)) {
      const measured = await run.measure(scenario, baselineUrl);
      if (scenario.name === 'event-list' && measured !== undefined) lists.cached[events] = measured;
    }
    if (run.wants('caldav-sync-empty') || run.wants('caldav-multiget-100')) {
      for (const scenario of caldavScenarios(server.url, fixtures, bearer, await caldavSyncToken(server.url, bearer))) {
        await run.measure(scenario, baselineUrl);
      }
    }
    const mix = mixedScenario(server.url, fixtures, bearer);
    const mixed = await run.measure(mix, baselineUrl);
    if (mixed !== undefined) log(`mixed: p99 ${mixed.result.p99Ms.toFixed(1)} ms, baseline p99 ${mixed.baseline.p99Ms.toFixed(1)} ms`);
    // The same requests open-loop at half that rate, on the same server: latency below saturation, reads and writes apart.
    if (run.wants('mixed-latency')) {
      log('measuring mixed-latency…');
      run.rows.push(
        measureMixedLatency({
          url: server.url,
          variants: mix.request.variants ?? [],
          mixedRate: mixed?.result.requestsPerSecond,
          seconds: options.duration,
          warmup: options.warmup,
          cpus: cpu.load,
          judged: database.dialect === 'sqlite',
        }),
      );
    }
    peakRss = server.peakRss();
    await stopAll();
    // The mixed workload again on two worker processes (`serve --workers 2`) on the server's cores.
    if (run.wants('mixed-workers-2')) {
      const cluster = await run.startAlmanac({ workers: 2 });
      servers.push(cluster);
      const scenario = mixedScenario(cluster.url, fixtures, bearer);
      await run.measure({ ...scenario, name: 'mixed-workers-2', title: `${scenario.title} (2 workers)` }, baselineUrl);
      await stopAll();
    }
    // The same reads with no answers cached: what each request costs when it must be computed.
    const computing = await run.startAlmanac({ caching: false });
    servers.push(computing);
    for (const scenario of computedScenarios(computing.url, fixtures)) {
      const measured = await run.measure(scenario, baselineUrl);
      if (scenario.name === 'event-list-computed' && measured !== undefined) lists.computed[events] = measured;
    }
    await stopAll();
    // What the server keeps per statement shape stays bounded: RSS after many distinct hostile shapes.
    if (run.wants('rss-hostile-shapes')) {
      const target = await run.startAlmanac();
      servers.push(target);
      const statuses = await sendHostileShapes(target.url, bearer, HOSTILE_SHAPES);
      const rss = target.rss();
      if (rss !== undefined) {
        run.rows.push({
          name: 'rss-hostile-shapes',
          title: `server RSS after ${compact(HOSTILE_SHAPES)} requests of distinct hostile shapes`,
          value: `${Math.round(rss / MB)} MB`,
          target: `≤ ${HOSTILE_RSS_LIMIT_MB} MB`,
          pass: rss / MB <= HOSTILE_RSS_LIMIT_MB,
          note: `answers: ${[...statuses]
            .sort(([a], [b]) => a - b)
            .map(([status, count]) => `${status}×${count}`)
            .join(', ')}`,
        });
      }
      await stopAll();
    }
    // The costliest series writes accepted, one at a time on a server of their own (issue 36).
    if (run.wants('series-write-hostile')) {
      const target = await run.startAlmanac();
      servers.push(target);
      run.rows.push(await measureSeriesWrites(target.url, bearer));
      await stopAll();
    }
    // What the create target leaves room for: a commit per create, then one for as many creates as connections.
    for (const batch of new Set([1, options.connections])) await run.measureCreateFloor(batch, fixtures, baselineUrl);

    // 4. The default list once a tenth of these events are weekly series (issue 21): the table holds
    //    50–60 occurrence rows more for each, and lists leave the series rows out.
    if (LIST_MODES.some((mode) => run.wants(SERIES_LISTS[mode]))) {
      seriesSeed = await run.convertToSeries(events);
      const title = `default list (10/page), ${compact(events)} events: ${compact(seriesSeed.series)} series, ${seriesSeed.occurrences.toLocaleString('en')} occurrences`;
      for (const mode of LIST_MODES) {
        const server = await run.startAlmanac({ caching: mode === 'cached' });
        servers.push(server);
        const name = SERIES_LISTS[mode];
        const measured = await run.measure(listScenario(server.url, name, mode === 'cached' ? title : `${title}, computed`), baselineUrl);
        if (measured !== undefined) seriesLists[mode] = measured;
        const rss = server.peakRss();
        if (run.wants(name) && rss !== undefined) seriesPeakRss[mode] = rss;
        await stopAll();
      }
    }

    // 5. Optionally the list at a million events (with the series above among them, when they were written).
    if (options.million) {
      events = await run.seedEventsUpTo(1_000_000, events);
      await measureListAt(events);
    }

    // Each p50 in units of the baseline's p50 in its own rounds: the machine's speed, which can change a
    // lot in the minutes between the two measurements, cancels out; the plain ratio is in the notes.
    for (const mode of LIST_MODES) {
      const small = lists[mode][options.small];
      const largest = Math.max(...Object.keys(lists[mode]).map(Number));
      const top = lists[mode][largest];
      if (small === undefined || top === undefined || largest <= options.small) continue;
      const relative = (measured: Measured) => measured.result.p50Ms / measured.baseline.p50Ms;
      const ratio = relative(top) / relative(small);
      run.rows.push({
        name: `list-p50-scaling-${mode}`,
        title: `list p50 ${compact(largest)} ÷ ${compact(options.small)}, ${mode}`,
        value: `${ratio.toFixed(2)}×`,
        target: `≤ ${P50_SCALING_LIMIT}${largest < 1_000_000 ? ' (target is for 1M: --million)' : ''}`,
        pass: ratio <= P50_SCALING_LIMIT,
        note: `p50 ${top.result.p50Ms.toFixed(2)} ÷ ${small.result.p50Ms.toFixed(2)} ms = ${(top.result.p50Ms / small.result.p50Ms).toFixed(2)}×; baseline p50 in the same rounds ${top.baseline.p50Ms.toFixed(2)} and ${small.baseline.p50Ms.toFixed(2)} ms`,
      });
    }
    // The series list against the plain list of the same size, measured minutes apart: each p50 in units of its baseline's.
    for (const mode of LIST_MODES) {
      const series = seriesLists[mode];
      if (series === undefined || seriesSeed === undefined) continue;
      const plain = lists[mode][seriesSeed.events];
      const name = `list-p50-series-${mode}`;
      const title = `list p50 with ${compact(seriesSeed.series)} series ÷ plain ${compact(seriesSeed.events)}, ${mode}`;
      const target = `≤ ${SERIES_P50_LIMIT}× plain p50`;
      if (plain === undefined) {
        run.rows.push({
          name,
          title,
          value: 'n/a',
          target,
          note: `the plain list was not measured: add ${mode === 'cached' ? 'event-list' : 'event-list-computed'} to --only`,
        });
        continue;
      }
      const ratio = series.result.p50Ms / series.baseline.p50Ms / (plain.result.p50Ms / plain.baseline.p50Ms);
      run.rows.push({
        name,
        title,
        value: `${ratio.toFixed(2)}×`,
        target,
        pass: ratio <= SERIES_P50_LIMIT,
        note: `p50 ${series.result.p50Ms.toFixed(2)} ÷ ${plain.result.p50Ms.toFixed(2)} ms = ${(series.result.p50Ms / plain.result.p50Ms).toFixed(2)}×; baseline p50 in the same rounds ${series.baseline.p50Ms.toFixed(2)} and ${plain.baseline.p50Ms.toFixed(2)} ms; ${seriesSeed.series} series (${seriesSeed.occurrences} occurrences) written in ${seriesSeed.seconds.toFixed(0)} s`,
      });
    }
    if (seriesPeakRss.cached !== undefined || seriesPeakRss.computed !== undefined) {
      const mb = (bytes: number | undefined) => (bytes === undefined ? '—' : `${Math.round(bytes / MB)} MB`);
      run.rows.push({
        name: 'peak-rss-series',
        title: `server peak RSS, default list under load over ${compact(seriesSeed?.events ?? 0)} events with series`,
        value: `${mb(seriesPeakRss.cached)} / ${mb(seriesPeakRss.computed)}`,
        target: '—',
        note: 'as served / computed (each a server of its own)',
      });
    }
    if (peakRss !== undefined) {
      run.rows.push({
        name: 'peak-rss',
        title: `server peak RSS (${compact(options.large)} events, under load)`,
        value: `${Math.round(peakRss / MB)} MB`,
        target: `≤ ${RSS_LIMIT_MB} MB`,
        pass: peakRss / MB <= RSS_LIMIT_MB,
      });
    }
  } finally {
    await stopAll();
    await baseline?.stop();
    pooler?.stop();
    if (options.keep) log(`kept database: ${database.url}`);
    else await database.drop();
  }

  const table = formatTable(run.rows);
  process.stdout.write(
    [
      '',
      `Almanac benchmark — ${started.toISOString()}`,
      `database: ${description}`,
      `load: ${loader.name}, ${options.connections} connections, ${options.warmup} s warm-up + ${options.duration} s measured per scenario, in rounds of ${roundSeconds(options.duration).join('+')} s alternating with as many of the baseline; ${cpu.description}`,
      `machine: ${cpus()[0]?.model ?? 'unknown CPU'}, load average at start ${load.toFixed(2)}`,
      '',
      table,
      '',
    ].join('\n'),
  );
  const file = writeResults(pooler === undefined ? database.dialect : `${database.dialect}-pgbouncer`, {
    started: started.toISOString(),
    database: description,
    loader: loader.name,
    cpu: cpu.description,
    machine: { cpu: cpus()[0]?.model, cpus: cpus().length, loadAverageAtStart: load },
    options: { ...options, only: options.only === undefined ? undefined : [...options.only] },
    baselineBodyBytes: bodyBytes,
    peakRssBytes: peakRss,
    lists,
    series: seriesSeed === undefined ? undefined : { ...seriesSeed, lists: seriesLists, peakRssBytes: seriesPeakRss },
    rows: run.rows,
  });
  process.stdout.write(`results: ${file}\n`);
  return 0;
}

const compact = (count: number) => (count >= 1_000_000 ? `${count / 1_000_000}M` : count >= 1_000 ? `${count / 1_000}k` : String(count));

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n\n${USAGE}\n`);
      process.exit(1);
    }
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
