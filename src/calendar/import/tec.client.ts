import { setTimeout as sleep } from 'node:timers/promises';
import { getUrl, type AllowList } from '../../platform/http/outbound.ts';
import { ImportProblemError, type ImportProblemCode, type ProblemParams } from '../common/import-problems.ts';

/**
 * Reads The Events Calendar's REST API (or ours, which answers in its format) politely: at most `concurrency`
 * requests at once and `rate` a second, each bounded by `timeoutMs`; a 429, a 5xx or a network failure is tried
 * again after a backoff that doubles, or after what Retry-After asks (within `MAX_RETRY_AFTER_S`).
 */

/** The API at `url` cannot be read, or is not The Events Calendar's: the one line the command prints. */
export class TecImportError extends ImportProblemError {
  constructor(
    readonly url: string,
    code: ImportProblemCode,
    params: ProblemParams = {},
  ) {
    super(code, params, (sentence) => `${url}: ${sentence}`);
  }
}

export interface TecClientOptions {
  readonly allow: AllowList;
  /** An application password (`user:password`), sent as Basic: drafts and private items come too. */
  readonly credentials?: { readonly user: string; readonly password: string };
  readonly concurrency?: number;
  /** Requests a second, at most. */
  readonly rate?: number;
  readonly timeoutMs?: number;
  readonly retries?: number;
  /** The first backoff; each next one doubles it. */
  readonly backoffMs?: number;
}

export const TEC_DEFAULTS = { concurrency: 2, rate: 4, timeoutMs: 30_000, retries: 4, backoffMs: 1000 } as const;
const MAX_RETRY_AFTER_S = 120;
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
const USER_AGENT = 'Almanac importer';

type Json = Record<string, unknown>;

/** One page of a collection: its items and the next page's URL. */
export interface Page {
  readonly items: readonly Json[];
  readonly next: string | undefined;
  readonly totalPages: number | undefined;
}

export class TecClient {
  readonly base: URL;
  private readonly headers: Record<string, string>;
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private nextStart = 0;

  constructor(
    base: string,
    private readonly options: TecClientOptions,
  ) {
    let url: URL;
    try {
      url = new URL(base);
    } catch {
      throw new TecImportError(base, 'tec_not_url');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TecImportError(base, 'tec_not_http');
    url.search = '';
    url.hash = '';
    if (!url.pathname.endsWith('/')) url.pathname += '/';
    this.base = url;
    this.headers = { accept: 'application/json' };
    const { credentials } = options;
    if (credentials !== undefined)
      this.headers.authorization = `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')}`;
  }

  /** A collection's pages, from `path` with `query`, following `next_rest_url` (on the same site only). */
  async *pages(path: string, query: Record<string, string>, key: string): AsyncGenerator<Page> {
    let url: string | undefined = `${new URL(path, this.base).href}?${new URLSearchParams(query).toString()}`;
    const seen = new Set<string>();
    while (url !== undefined) {
      seen.add(url);
      const page = pageOf(await this.getJson(url), key, url);
      if (page.next !== undefined && (new URL(page.next).origin !== this.base.origin || seen.has(page.next)))
        throw new TecImportError(url, 'tec_next_elsewhere', { next: page.next });
      yield page;
      // The reference leaves spaces in its links' dates: the URL as a client would send it.
      url = page.next === undefined ? undefined : new URL(page.next).href;
    }
  }

  /** One item (a single route). */
  async item(path: string, query: Record<string, string>): Promise<Json> {
    const url = `${new URL(path, this.base).href}?${new URLSearchParams(query).toString()}`;
    const answer = await this.getJson(url);
    if (!isObject(answer)) throw new TecImportError(url, 'tec_not_object');
    return answer;
  }

  private async getJson(url: string): Promise<unknown> {
    const { retries, backoffMs } = { ...TEC_DEFAULTS, ...definedOf(this.options) };
    for (let attempt = 0; ; attempt += 1) {
      const result = await this.limited(() =>
        getUrl(url, this.headers, {
          allow: this.options.allow,
          timeoutMs: this.options.timeoutMs ?? TEC_DEFAULTS.timeoutMs,
          userAgent: USER_AGENT,
          maxBytes: MAX_ANSWER_BYTES,
        }),
      );
      const status = result.status;
      const again = status === undefined ? !(result.error ?? '').startsWith('refused') : status === 429 || status >= 500;
      if (again && attempt < retries) {
        await sleep(retryAfterMs(result.headers?.['retry-after']) ?? backoffMs * 2 ** attempt);
        continue;
      }
      if (status === undefined || result.body === undefined)
        throw result.error === undefined
          ? new TecImportError(url, 'tec_no_answer')
          : new TecImportError(url, 'tec_unreachable', { detail: result.error });
      if (status === 401 || status === 403) throw new TecImportError(url, 'tec_refused', { status });
      if (status !== 200) throw new TecImportError(url, 'tec_status', { status });
      const type = String(result.headers?.['content-type'] ?? '');
      if (!/\bjson\b/i.test(type)) {
        const shown = type.split(';')[0] ?? '';
        throw shown === '' ? new TecImportError(url, 'tec_no_content_type') : new TecImportError(url, 'tec_not_json', { type: shown });
      }
      try {
        return JSON.parse(result.body.toString('utf8')) as unknown;
      } catch {
        throw new TecImportError(url, 'tec_malformed_json');
      }
    }
  }

  /** Runs `request` within the concurrency and the rate. */
  private async limited<T>(request: () => Promise<T>): Promise<T> {
    const concurrency = this.options.concurrency ?? TEC_DEFAULTS.concurrency;
    if (this.active >= concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active += 1;
    try {
      const now = Date.now();
      const start = Math.max(now, this.nextStart);
      this.nextStart = start + 1000 / (this.options.rate ?? TEC_DEFAULTS.rate);
      if (start > now) await sleep(start - now);
      return await request();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }
}

function definedOf<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Retry-After in seconds or as an HTTP date, within the bound; undefined when absent or unreadable. */
function retryAfterMs(header: string | string[] | undefined): number | undefined {
  if (typeof header !== 'string') return undefined;
  const seconds = /^\d+$/.test(header.trim()) ? Number(header) : (Date.parse(header) - Date.now()) / 1000;
  return Number.isNaN(seconds) ? undefined : Math.min(Math.max(seconds, 0), MAX_RETRY_AFTER_S) * 1000;
}

/** A page of a TEC archive: an object whose `key` is a list of objects with ids, `next_rest_url` a URL if there. */
function pageOf(answer: unknown, key: string, url: string): Page {
  const items = isObject(answer) ? answer[key] : undefined;
  if (!Array.isArray(items) || !items.every((item) => isObject(item) && Number.isInteger(item.id)))
    throw new TecImportError(url, 'tec_no_list', { key });
  const next = (answer as Json).next_rest_url;
  if (next !== undefined && (typeof next !== 'string' || !URL.canParse(next))) throw new TecImportError(url, 'tec_next_not_url');
  const totalPages = (answer as Json).total_pages;
  return { items: items as Json[], next: next as string | undefined, totalPages: typeof totalPages === 'number' ? totalPages : undefined };
}
