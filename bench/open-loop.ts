/**
 * The `mixed-latency` line (issue 37): the `mixed` requests sent open-loop,
 * at a fixed rate of half the throughput `mixed` measured in the same run,
 * reads and writes timed apart. A closed loop (wrk: each connection sends
 * its next request when the last is answered) measures a saturated server,
 * whose p99 is mostly queueing; here requests leave when they are due,
 * whatever the answers take, and each is timed from the moment it was due,
 * so a server that falls behind shows it in the latencies instead of
 * slowing the sender down.
 *
 * Run by `npm run bench` as a child process on the load generator's CPU:
 *   node --import tsx bench/open-loop.ts --url URL --variants FILE --rate R [--seconds S] [--warmup S]
 * (FILE: the mixed workload's requests as JSON); prints one JSON line.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { LoadResult, LoadVariant } from './load.ts';
import { runScript } from './processes.ts';
import type { Row } from './report.ts';

export interface Latencies {
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface OpenLoopResult {
  /** The requests sent (all of them answered or failed before the result). */
  readonly sent: number;
  readonly seconds: number;
  readonly reads: Latencies;
  readonly writes: Latencies;
  /** Answers outside 2xx/3xx. */
  readonly badResponses: number;
  /** Connection errors and requests unanswered after 10 s. */
  readonly socketErrors: number;
}

/** The targets on SQLite: p99 of the reads, of the writes. */
export const READ_P99_LIMIT_MS = 25;
export const WRITE_P99_LIMIT_MS = 50;
const TIMEOUT_MS = 10_000;

function latencies(values: number[]): Latencies {
  const sorted = values.sort((a, b) => a - b);
  const at = (share: number) => sorted[Math.max(0, Math.ceil(share * sorted.length) - 1)] ?? 0;
  return { count: sorted.length, p50Ms: at(0.5), p99Ms: at(0.99) };
}

/** Sends `variants` in turn, `rate` a second for `seconds`, on keep-alive connections opened as needed. */
export async function sendOpenLoop(base: URL, variants: readonly LoadVariant[], rate: number, seconds: number): Promise<OpenLoopResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  const run = randomBytes(4).toString('hex');
  const reads: number[] = [];
  const writes: number[] = [];
  let badResponses = 0;
  let socketErrors = 0;
  const send = (index: number, due: number) =>
    new Promise<void>((resolve) => {
      const variant = variants[index % variants.length]!;
      // `[<id>]` in a body becomes a value unique to the request, as in wrk's script (creates must not collide).
      const body = variant.body?.replaceAll('[<id>]', `${run}-${index}`);
      const request = http.request(
        { agent, host: base.hostname, port: base.port, method: variant.method, path: variant.path, headers: variant.headers },
        (response) => {
          response.resume();
          response.once('end', () => {
            (variant.method === 'GET' ? reads : writes).push(performance.now() - due);
            if ((response.statusCode ?? 0) >= 400) badResponses += 1;
            resolve();
          });
        },
      );
      request.setTimeout(TIMEOUT_MS, () => request.destroy(new Error('timeout')));
      request.once('error', () => {
        socketErrors += 1;
        resolve();
      });
      request.end(body);
    });
  const total = Math.max(1, Math.round(rate * seconds));
  const interval = 1000 / rate;
  const start = performance.now();
  const inFlight: Promise<void>[] = [];
  let next = 0;
  // Timers wake a millisecond late or more: every request already due leaves at once, timed from when it was due.
  await new Promise<void>((done) => {
    const tick = () => {
      for (let due = start + next * interval; next < total && due <= performance.now(); due = start + next * interval) {
        inFlight.push(send(next, due));
        next += 1;
      }
      if (next === total) done();
      else setTimeout(tick, Math.max(0, start + next * interval - performance.now()));
    };
    tick();
  });
  await Promise.all(inFlight);
  agent.destroy();
  return { sent: total, seconds, reads: latencies(reads), writes: latencies(writes), badResponses, socketErrors };
}

export interface MixedLatencyRun {
  readonly url: string;
  readonly variants: readonly LoadVariant[];
  /** The `mixed` line's requests per second in this run, which sets the rate (half of it); undefined when it was not measured. */
  readonly mixedRate: number | undefined;
  readonly seconds: number;
  readonly warmup: number;
  readonly cpus: string | undefined;
  /** The targets hold on SQLite; elsewhere the line is reported only. */
  readonly judged: boolean;
}

/** The `mixed-latency` row: the reads' figures in `result`, the writes' p99 in the note. */
export function measureMixedLatency(options: MixedLatencyRun): Row {
  const line = {
    name: 'mixed-latency',
    title: 'mixed, open-loop at half the mixed rate: reads (writes in the note)',
    target: `reads p99 ≤ ${READ_P99_LIMIT_MS} ms, writes p99 ≤ ${WRITE_P99_LIMIT_MS} ms${options.judged ? '' : ' (on SQLite)'}`,
  };
  const { mixedRate } = options;
  if (mixedRate === undefined) return { ...line, value: 'n/a', note: "its rate is half the mixed line's: run mixed too" };
  const directory = mkdtempSync(path.join(tmpdir(), 'almanac-open-loop-'));
  let measured: OpenLoopResult;
  try {
    const file = path.join(directory, 'variants.json');
    writeFileSync(file, JSON.stringify(options.variants));
    const rate = mixedRate / 2;
    const args = ['--url', options.url, '--variants', file, '--rate', String(rate)];
    args.push('--seconds', String(options.seconds), '--warmup', String(options.warmup));
    measured = JSON.parse(runScript(options.cpus, 'bench/open-loop.ts', args, {})) as OpenLoopResult;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  const { reads, writes, sent, seconds } = measured;
  const result: LoadResult = {
    requests: sent,
    seconds,
    requestsPerSecond: sent / seconds,
    p50Ms: reads.p50Ms,
    p99Ms: reads.p99Ms,
    badResponses: measured.badResponses,
    socketErrors: measured.socketErrors,
  };
  const failures = measured.badResponses + measured.socketErrors;
  return {
    ...line,
    result,
    pass: options.judged ? reads.p99Ms <= READ_P99_LIMIT_MS && writes.p99Ms <= WRITE_P99_LIMIT_MS : undefined,
    note:
      `writes p99 ${writes.p99Ms.toFixed(2)} ms, p50 ${writes.p50Ms.toFixed(2)} ms (${writes.count} writes); ` +
      `${reads.count} reads; sent at ${(sent / seconds).toFixed(0)} req/s, half of mixed's ${mixedRate.toFixed(0)}` +
      (failures > 0 ? `; ${measured.badResponses} unexpected statuses, ${measured.socketErrors} socket errors` : ''),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      variants: { type: 'string' },
      rate: { type: 'string' },
      seconds: { type: 'string' },
      warmup: { type: 'string' },
    },
    strict: true,
  });
  const rate = Number(values.rate);
  const [seconds, warmup] = [Number(values.seconds ?? 8), Number(values.warmup ?? 2)];
  if (values.url === undefined || values.variants === undefined || !(rate > 0) || !(seconds > 0) || !(warmup >= 0)) {
    throw new Error('usage: open-loop.ts --url URL --variants FILE --rate R [--seconds S] [--warmup S]');
  }
  const variants = JSON.parse(readFileSync(values.variants, 'utf8')) as LoadVariant[];
  const base = new URL(values.url);
  // The JIT, the connections and the server's caches warm up at the same rate before the measured window.
  if (warmup > 0) await sendOpenLoop(base, variants, rate, warmup);
  process.stdout.write(`${JSON.stringify(await sendOpenLoop(base, variants, rate, seconds))}\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
