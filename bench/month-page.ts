/**
 * The month page's server time over a calendar already seeded, nothing cached (RESPONSE_CACHE_MB=0, as the
 * bench's `calendar-month-page-computed`): builds the app in-process over DATABASE_URL, sends `GET /events/`
 * (or `--path`) `--runs` times one after another and prints the min, median and 90th percentile of the
 * whole answer; then, over a store that logs every statement, the statements of one such answer with their
 * times and plans (SQLite `EXPLAIN QUERY PLAN`, PostgreSQL `EXPLAIN ANALYZE`) and the time left to the rest
 * (the model and the template).
 *
 *   npx almanac seed --demo --events 100000        (with the same DATABASE_URL)
 *   DATABASE_URL=sqlite:/tmp/almanac.db node --import tsx bench/month-page.ts [--path /events/] [--runs 200]
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { BackgroundWork } from '../src/platform/background.ts';
import { createDb, type Store } from '../src/platform/db/database.ts';
import { createLogger } from '../src/platform/logger.ts';
import { loggingStore, type Statement } from './logging-store.ts';

const { values } = parseArgs({ options: { path: { type: 'string' }, runs: { type: 'string' } } });
const path = values.path ?? '/events/';
const runs = Number(values.runs ?? '200');
const url = process.env.DATABASE_URL;
if (url === undefined) throw new Error('DATABASE_URL: the seeded database');
const config = loadConfig({ ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent', RESPONSE_CACHE_MB: '0' });

async function appOver(store: Store): Promise<FastifyInstance> {
  const logger = createLogger('silent');
  return buildApp({ config, store, logger, background: new BackgroundWork(logger) });
}

async function answer(app: FastifyInstance): Promise<number> {
  const started = performance.now();
  const response = await app.inject({ method: 'GET', url: path, headers: { accept: 'text/html' } });
  const ms = performance.now() - started;
  if (response.statusCode !== 200) throw new Error(`GET ${path}: ${response.statusCode} ${response.body.slice(0, 300)}`);
  return ms;
}

const store = createDb(url, { sqliteSynchronous: config.sqliteSynchronous });
const app = await appOver(store);
// Warm: statements prepared, templates compiled, the JIT settled, the per-version values (filter lists) read.
for (let run = 0; run < 20; run += 1) await answer(app);
const times: number[] = [];
for (let run = 0; run < runs; run += 1) times.push(await answer(app));
times.sort((a, b) => a - b);
const at = (share: number) => times[Math.min(times.length - 1, Math.floor(share * times.length))]!.toFixed(2);
await app.close();
await store.close();

const recorded: Statement[] = [];
const logged = loggingStore(url, recorded);
const explained = await appOver(logged);
await answer(explained);
recorded.length = 0;
const once = await answer(explained);
const statements = [...recorded];
const inDatabase = statements.reduce((sum, statement) => sum + statement.ms, 0);
const out = [
  `GET ${path}, nothing cached, ${runs} answers in turn: min ${at(0)} ms, median ${at(0.5)} ms, p90 ${at(0.9)} ms`,
  `one answer over the logging store: ${once.toFixed(2)} ms, ${statements.length} statements, ${inDatabase.toFixed(2)} ms in the database`,
  '',
];
for (const statement of statements) {
  out.push(`-- ${statement.ms.toFixed(2)} ms`, statement.sql, await logged.explain(statement), '');
}
await explained.close();
await logged.close();
process.stdout.write(`${out.join('\n')}\n`);
