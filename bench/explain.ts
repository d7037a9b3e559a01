/**
 * Query plans of the hot read paths, as the server really issues them when
 * it must compute an answer (RESPONSE_CACHE_MB=0: nothing cached): seeds
 * a fresh database, builds the app in-process over a store that logs every
 * statement, sends each read scenario once and records it (the first
 * request of a calendar version, so list totals are counted too; times
 * include preparing each statement), then prints each statement's time and
 * its plan (SQLite `EXPLAIN QUERY PLAN`, PostgreSQL `EXPLAIN ANALYZE`) as
 * Markdown.
 *
 *   node --import tsx bench/explain.ts [--events N] [--series N] [--entities N]     (BENCH_DATABASE_URL for PostgreSQL)
 *
 * `--series N` turns N of the events into weekly series of 50–60 occurrences, as the benchmark's series list does.
 */
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { BackgroundWork } from '../src/platform/background.ts';
import { seedDemoEvents } from '../src/calendar/seed/demo-events.ts';
import { convertDemoEventsToSeries } from '../src/calendar/seed/demo-series.ts';
import { seriesLimits } from '../src/calendar/recurrence/recurrence.series.ts';
import { progressBar } from '../src/cli/progress.ts';
import { loadConfig } from '../src/config/config.ts';
import { DEFAULT_PASSWORD_HASH_COST, PasswordHasher } from '../src/platform/auth/passwords.ts';
import { UsersService } from '../src/platform/auth/users.service.ts';
import { migrateToLatest } from '../src/platform/db/database.ts';
import { MIGRATION_FOLDERS } from '../src/migrations.ts';
import { createLogger } from '../src/platform/logger.ts';
import { createBenchDatabase } from './database.ts';
import { seedEntities } from './entities.ts';
import { loadFixtures } from './fixtures.ts';
import { loggingStore, type Statement } from './logging-store.ts';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { events: { type: 'string' }, series: { type: 'string' }, entities: { type: 'string' } } });
  const events = Number(values.events ?? '100000');
  const series = Number(values.series ?? '0');
  const entities = Number(values.entities ?? '100000');
  const database = await createBenchDatabase(process.env.BENCH_DATABASE_URL);
  const recorded: Statement[] = [];
  const store = loggingStore(database.url, recorded);
  try {
    await migrateToLatest(store.db, MIGRATION_FOLDERS);
    const users = new UsersService(store, new PasswordHasher(DEFAULT_PASSWORD_HASH_COST));
    await users.add({ username: 'admin', password: 'explain-admin-1', role: 'administrator' });
    await seedDemoEvents(store, { events, siteTimezone: 'UTC', onProgress: progressBar('events') });
    const config = loadConfig({
      DATABASE_URL: database.url,
      LOG_LEVEL: 'silent',
      ADMIN_PASSWORD: 'explain-admin-1',
      RESPONSE_CACHE_MB: '0',
    });
    if (series > 0) await convertDemoEventsToSeries(store, { series, limits: seriesLimits(config), onProgress: progressBar('series') });
    const entity = (await seedEntities(store, entities)).fixture;
    const { token } = await users.createToken('admin', 'explain');
    // The seeds left fresh statistics (settleAfterBulkLoad: on SQLite the counts only, as a server keeps them); PostgreSQL's
    // are taken again after the rows written since, as autovacuum would.
    if (store.dialect === 'postgres') await sql`analyze`.execute(store.db);
    const fixtures = await loadFixtures(store);
    const logger = createLogger('silent');
    const app = await buildApp({ config, store, logger, background: new BackgroundWork(logger) });
    const { filter } = fixtures;
    const paths: Record<string, string> = {
      'single event GET by id': `/calendar/events/v1/events/${fixtures.eventId}`,
      'default list': '/calendar/events/v1/events',
      'filtered list': `/calendar/events/v1/events?${new URLSearchParams({
        categories: filter.category,
        venue: String(filter.venue),
        search: filter.search,
        start_date: filter.startDate,
        end_date: filter.endDate,
      }).toString()}`,
      'past events page (latest first)': '/events/list/?past=1',
    };
    if (entity !== undefined) {
      const records = `/apiservice/api/services/entity-management/${entity.type}`;
      paths['entity get by key'] = `${records}/${encodeURIComponent(entity.key)}?fields=${entity.fields.join(',')}`;
      paths['entity filtered list'] = `${records}?filter[${entity.filter.field}]=${encodeURIComponent(entity.filter.value)}&per_page=20`;
    }
    // Calendar reads as anonymous visitors make them; entity reads need a signed-in caller.
    const headersOf = (path: string) => (path.startsWith('/apiservice') ? { authorization: `Bearer ${token}` } : {});
    const out: string[] = [
      `# Query plans — ${database.description}, ${events.toLocaleString('en')} events${series > 0 ? ` (${series.toLocaleString('en')} of them series)` : ''}, ${entities.toLocaleString('en')} entity records`,
      '',
    ];
    for (const [name, path] of Object.entries(paths)) {
      recorded.length = 0;
      const response = await app.inject({ method: 'GET', url: path, headers: headersOf(path) });
      const statements = [...recorded];
      const total = statements.reduce((sum, statement) => sum + statement.ms, 0);
      out.push(
        `## ${name}: \`GET ${path}\``,
        '',
        `HTTP ${response.statusCode}; ${statements.length} statements, ${total.toFixed(1)} ms in the database.`,
        '',
      );
      if (response.statusCode >= 400) out.push('```', response.body.slice(0, 500), '```', '');
      for (const statement of statements) {
        out.push(
          `### ${statement.ms.toFixed(2)} ms`,
          '',
          '```sql',
          statement.sql,
          '```',
          '',
          '```',
          // Transaction control (a PostgreSQL read in a transaction of its own) has no plan.
          /^\s*(begin|commit|rollback|savepoint|release|set)\b/i.test(statement.sql) ? '(no plan)' : await store.explain(statement),
          '```',
          '',
        );
      }
    }
    await app.close();
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    await store.close();
    await database.drop();
  }
}

await main();
