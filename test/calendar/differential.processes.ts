/**
 * What the differential test (caches.differential.test.ts) sends and compares: reads of one path (anonymous
 * GETs, and a CalDAV client's poll) to every process at once, their answers reduced to what must agree, and a seeded random source.
 */
import assert from 'node:assert/strict';

/** A process serving the calendar, by the name the report uses. */
export interface Process {
  readonly name: string;
  readonly url: string;
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** Headers that every process must send alike; the rest name the request (id, date) or the connection. */
const COMPARED = ['etag', 'x-wp-total', 'x-wp-totalpages', 'link', 'content-type', 'last-modified', 'location', 'cache-control', 'vary'];

/**
 * Sync tokens are sealed with a random nonce each time one is issued (changes.tokens.ts), so two processes never
 * issue the same bytes for one position: a `/changes` answer is compared with its tokens left out, and without
 * its tag, which names those bytes.
 */
const TOKEN_FIELDS = /"(next_sync_token|next_page_token)":"[A-Za-z0-9_.-]+"/g;

export async function send(process: Process, path: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(`${process.url}${path}`, init);
  const text = await response.text();
  if (response.status >= 500) throw new Error(`${process.name} answered ${response.status} to ${init.method ?? 'GET'} ${path}: ${text}`);
  return { status: response.status, headers: response.headers, text };
}

/** What of an answer to `path` must be the same from every process. */
export function comparable(path: string, answer: Answer): string {
  const tokens = path.includes('/changes');
  const headers = COMPARED.filter((name) => !(tokens && name === 'etag')).map((name) => `${name}: ${answer.headers.get(name) ?? '-'}`);
  const text = tokens ? answer.text.replace(TOKEN_FIELDS, '"$1":"…"') : answer.text;
  return [`status: ${answer.status}`, ...headers, '', text].join('\n');
}

/** Two comparable answers side by side: their status and headers whole, their bodies around the first byte that differs. */
export function difference(expected: string, actual: string): string {
  const split = (text: string) => [text.slice(0, text.indexOf('\n\n')), text.slice(text.indexOf('\n\n') + 2)] as const;
  const [expectedHead, expectedBody] = split(expected);
  const [actualHead, actualBody] = split(actual);
  let at = 0;
  while (at < expectedBody.length && expectedBody[at] === actualBody[at]) at += 1;
  const around = (body: string) => JSON.stringify(body.slice(Math.max(0, at - 300), at + 300));
  return [expectedHead, '----', actualHead, `---- bodies differ at character ${at}:`, around(expectedBody), around(actualBody)].join('\n');
}

/** A read sent to every process alike: a path, for an anonymous GET, or a path with its request. */
export type Read = string | { readonly path: string; readonly init: RequestInit };

export const pathOf = (read: Read): string => (typeof read === 'string' ? read : read.path);

/** The same read sent to every process at once; throws naming the first process that answered otherwise than the first. */
export async function sameEverywhere(processes: readonly Process[], read: Read): Promise<void> {
  const [path, init] = typeof read === 'string' ? [read, {}] : [read.path, read.init];
  const answers = await Promise.all(processes.map((process) => send(process, path, init)));
  const [first, ...rest] = answers.map((answer) => comparable(path, answer));
  rest.forEach((other, index) => {
    if (other !== first)
      assert.fail(
        `${init.method ?? 'GET'} ${path}: ${processes[index + 1]!.name} differs from ${processes[0]!.name}:\n${difference(first!, other)}`,
      );
  });
}

/** mulberry32: small, fast and the same on every platform, so that a seed replays a run. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** In [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(below: number): number {
    return Math.floor(this.next() * below);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    assert.ok(items.length > 0, 'nothing to pick from');
    return items[this.int(items.length)]!;
  }

  /** Some of `items` (each kept with `probability`), in their order. */
  some<T>(items: readonly T[], probability = 0.4): T[] {
    return items.filter(() => this.chance(probability));
  }

  /** The item of `weighted` a weighted draw picks. */
  weighted<T>(weighted: readonly (readonly [number, T])[]): T {
    let left = this.next() * weighted.reduce((sum, [weight]) => sum + weight, 0);
    for (const [weight, item] of weighted) {
      left -= weight;
      if (left < 0) return item;
    }
    return weighted.at(-1)![1];
  }
}

/** The seed of a run: `DIFFERENTIAL_SEED` (a number, or `random`), else a fixed one, so that CI replays the same run. */
export function seedOf(given: string | undefined): number {
  if (given === 'random') return Math.floor(Math.random() * 2 ** 31);
  if (given === undefined || given === '') return 37;
  const seed = Number(given);
  assert.ok(Number.isSafeInteger(seed), `DIFFERENTIAL_SEED must be an integer or "random", not ${given}`);
  return seed;
}
