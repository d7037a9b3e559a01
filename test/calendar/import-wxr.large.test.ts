/**
 * The WordPress import of a large export in bounded memory: WXR_LARGE_EVENTS events (default 500, for the suite's
 * time; the memory check runs WXR_LARGE_EVENTS=50000) written to a temporary file as a stream, imported through the
 * command, whose peak RSS must stay under 250 MB (with V8's young generation kept small, as docs/moving-in.md advises
 * for a large export); a second run finds every event unchanged.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { writeLargeExport } from './import-wxr.factories.ts';

const runFile = promisify(execFile);
const BIN = path.resolve('bin/almanac.js');
const EVENT_COUNT = Number(process.env.WXR_LARGE_EVENTS ?? 500);
const VENUES = 50;
const MAX_RSS_KB = 250 * 1024;
const SMALL_YOUNG_GENERATION = `${process.env.NODE_OPTIONS ?? ''} --max-semi-space-size=4`.trim();

describe('WordPress import of a large export', () => {
  let server: TestServer;
  const dir = mkdtempSync(path.join(tmpdir(), 'almanac-wxr-large-'));
  const at = path.join(dir, 'export.xml');
  before(async () => {
    server = await startTestServer({ SITE_TIMEZONE: 'UTC' });
    await server.admin();
    await writeLargeExport(at, EVENT_COUNT, VENUES);
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const importJson = async () => {
    const { stdout } = await runFile(process.execPath, [BIN, 'import', 'wordpress', at, '--json'], {
      // V8's young generation otherwise grows to some 100 MB of headroom over a long run of writes (docs/moving-in.md).
      env: { ...process.env, LOG_LEVEL: 'silent', DATABASE_URL: server.config.databaseUrl, NODE_OPTIONS: SMALL_YOUNG_GENERATION },
      maxBuffer: 64 * 1024 * 1024,
    });
    return JSON.parse(stdout);
  };

  it(`imports ${EVENT_COUNT} events with a peak RSS under 250 MB, and again unchanged`, async (t) => {
    const first = await importJson();
    assert.deepEqual(first.events, { created: EVENT_COUNT, updated: 0, unchanged: 0 });
    assert.deepEqual(first.venues, { created: VENUES, updated: 0, unchanged: 0 });
    assert.equal(first.error_count, 0);
    assert.ok(first.max_rss_kb < MAX_RSS_KB, `peak RSS ${Math.round(first.max_rss_kb / 1024)} MB`);
    const started = Date.now();
    const second = await importJson();
    t.diagnostic(
      `peak RSS ${Math.round(first.max_rss_kb / 1024)} MB, then ${Math.round(second.max_rss_kb / 1024)} MB; second run ${Date.now() - started} ms`,
    );
    assert.deepEqual(second.events, { created: 0, updated: 0, unchanged: EVENT_COUNT });
    assert.ok(second.max_rss_kb < MAX_RSS_KB, `peak RSS ${Math.round(second.max_rss_kb / 1024)} MB`);
    const total = await server.request('/calendar/events/v1/events?per_page=1&start_date=2000-01-01&end_date=2100-01-01');
    assert.equal(total.headers.get('x-wp-total'), String(EVENT_COUNT));
  });
});
