import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pinned, ROOT } from './processes.ts';

/** One HTTP request shape, sent over and over. */
export interface LoadRequest {
  // REPORT: CalDAV's reads.
  readonly method: 'GET' | 'POST' | 'REPORT';
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** `[<id>]` in the body is replaced by a value unique to each request (creates must not collide). */
  readonly body?: string;
  /** Connections for this request instead of the run's: 1 for a line whose target is one client's latency. */
  readonly connections?: number;
  /** A mixed workload (wrk only): each request is one of these, drawn at random, on `url`'s host; `url` is the probe. */
  readonly variants?: readonly LoadVariant[];
}

/** One request of a mixed workload: a path with its query, on the load's host. */
export interface LoadVariant {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface LoadResult {
  readonly requests: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Responses outside 2xx/3xx, and socket errors/timeouts. */
  readonly badResponses: number;
  readonly socketErrors: number;
}

export interface LoadGenerator {
  readonly name: 'wrk' | 'autocannon';
  run(request: LoadRequest, options: { connections: number; seconds: number; cpus: string | undefined }): Promise<LoadResult>;
}

/** `wrk` when installed (C, one thread: leaves the other core to the server), else autocannon (shares the cores, one request shape only). */
export function chooseLoadGenerator(preferred: string | undefined): LoadGenerator {
  const hasWrk = spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;
  if (preferred === 'autocannon' || (!hasWrk && preferred !== 'wrk')) return autocannon;
  if (!hasWrk) throw new Error('--loader wrk: wrk is not installed (apt-get install wrk)');
  return wrk;
}

const RESULT_MARKER = 'BENCH_RESULT ';

const wrk: LoadGenerator = {
  name: 'wrk',
  async run(request, { connections, seconds, cpus }) {
    const directory = mkdtempSync(path.join(tmpdir(), 'almanac-wrk-'));
    try {
      const script = path.join(directory, 'request.lua');
      writeFileSync(script, wrkScript(request));
      const [command, args] = pinned(cpus, 'wrk', [
        '-t1',
        `-c${connections}`,
        `-d${seconds}s`,
        '--timeout',
        '10s',
        '-s',
        script,
        request.url,
      ]);
      const output = await capture(command, args);
      const line = output.split('\n').find((candidate) => candidate.startsWith(RESULT_MARKER));
      if (line === undefined) throw new Error(`wrk printed no result:\n${output}`);
      const raw = JSON.parse(line.slice(RESULT_MARKER.length)) as Record<string, number>;
      const elapsed = raw.duration_us! / 1e6;
      return {
        requests: raw.requests!,
        seconds: elapsed,
        requestsPerSecond: raw.requests! / elapsed,
        p50Ms: raw.p50_us! / 1000,
        p99Ms: raw.p99_us! / 1000,
        badResponses: raw.status!,
        socketErrors: raw.connect! + raw.read! + raw.write! + raw.timeout!,
      };
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  },
};

// A JSON string literal is a Lua string literal too: its escapes (\", \\, \n) mean the same, other text is raw UTF-8.
const lua = (text: string) => JSON.stringify(text);

function wrkScript(request: LoadRequest): string {
  const lines = [`wrk.method = ${lua(request.method)}`, `local run = ${lua(randomBytes(4).toString('hex'))}`, 'local counter = 0'];
  for (const [name, value] of Object.entries(request.headers ?? {})) lines.push(`wrk.headers[${lua(name)}] = ${lua(value)}`);
  // `[<id>]` in a body becomes a value unique to the request.
  const unique = (body: string) => `string.gsub(${body}, "%[<id>%]", run .. "-" .. counter)`;
  if (request.variants !== undefined) {
    const table = (record: Readonly<Record<string, string>>) =>
      `{${Object.entries(record)
        .map(([name, value]) => `[${lua(name)}] = ${lua(value)}`)
        .join(', ')}}`;
    lines.push('local variants = {');
    for (const variant of request.variants) {
      const body = variant.body === undefined ? 'nil' : lua(variant.body);
      lines.push(`  {${lua(variant.method)}, ${lua(variant.path)}, ${table(variant.headers ?? {})}, ${body}},`);
    }
    lines.push(
      '}',
      `math.randomseed(${randomBytes(3).readUIntBE(0, 3)})`,
      'request = function()',
      '  counter = counter + 1',
      '  local v = variants[math.random(#variants)]',
      `  local body = v[4] and ${unique('v[4]')} or nil`,
      '  return wrk.format(v[1], v[2], v[3], body)',
      'end',
    );
  } else if (request.body !== undefined) {
    lines.push(
      `local template = ${lua(request.body)}`,
      'request = function()',
      '  counter = counter + 1',
      `  local body = ${unique('template')}`,
      '  return wrk.format(nil, nil, nil, body)',
      'end',
    );
  }
  lines.push(
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    `  io.write(string.format("\\n${RESULT_MARKER}{\\"requests\\":%d,\\"duration_us\\":%d,\\"p50_us\\":%d,\\"p99_us\\":%d,\\"status\\":%d,\\"connect\\":%d,\\"read\\":%d,\\"write\\":%d,\\"timeout\\":%d}\\n",`,
    '    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.status, e.connect, e.read, e.write, e.timeout))',
    'end',
  );
  return `${lines.join('\n')}\n`;
}

const autocannon: LoadGenerator = {
  name: 'autocannon',
  async run(request, { connections, seconds, cpus }) {
    if (request.variants !== undefined) throw new Error('a mixed workload needs wrk (apt-get install wrk)');
    const args = [path.join(ROOT, 'node_modules/autocannon/autocannon.js'), '-j', '-n', '-c', String(connections), '-d', String(seconds)];
    args.push('-t', '10', '-m', request.method);
    for (const [name, value] of Object.entries(request.headers ?? {})) args.push('-H', `${name}=${value}`);
    if (request.body !== undefined) args.push('-I', '-b', request.body);
    args.push(request.url);
    const [command, commandArgs] = pinned(cpus, process.execPath, args);
    const raw = JSON.parse(await capture(command, commandArgs)) as {
      requests: { total: number };
      duration: number;
      latency: { p50: number; p99: number };
      '1xx': number;
      '4xx': number;
      '5xx': number;
      errors: number;
      timeouts: number;
    };
    return {
      requests: raw.requests.total,
      seconds: raw.duration,
      requestsPerSecond: raw.requests.total / raw.duration,
      p50Ms: raw.latency.p50,
      p99Ms: raw.latency.p99,
      // As wrk counts them: a 304 to a conditional GET is an answer, not a failure.
      badResponses: raw['1xx'] + raw['4xx'] + raw['5xx'],
      socketErrors: raw.errors + raw.timeouts,
    };
  },
};

/** A window of `seconds` cut into rounds of about two seconds (whole seconds: wrk and autocannon take no fractions). */
export function roundSeconds(seconds: number): number[] {
  const rounds = Math.max(1, Math.floor(seconds / 2));
  const each = Math.floor(seconds / rounds);
  return Array.from({ length: rounds }, (_, index) => each + (index < seconds - each * rounds ? 1 : 0));
}

/** Rounds of one load as one result: counts add up; p50 is the median of the rounds' p50, p99 the worst round's. */
export function combineRounds(rounds: readonly LoadResult[]): LoadResult {
  const sum = (pick: (round: LoadResult) => number) => rounds.reduce((total, round) => total + pick(round), 0);
  const p50s = rounds.map((round) => round.p50Ms).sort((a, b) => a - b);
  const middle = Math.floor(p50s.length / 2);
  const requests = sum((round) => round.requests);
  const seconds = sum((round) => round.seconds);
  return {
    requests,
    seconds,
    requestsPerSecond: requests / seconds,
    p50Ms: p50s.length % 2 === 1 ? p50s[middle]! : (p50s[middle - 1]! + p50s[middle]!) / 2,
    p99Ms: Math.max(...rounds.map((round) => round.p99Ms)),
    badResponses: sum((round) => round.badResponses),
    socketErrors: sum((round) => round.socketErrors),
  };
}

function capture(command: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr}`)),
    );
  });
}
