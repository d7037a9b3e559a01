/**
 * GET requests through the outbound guard (outbound.ts): every hop of a
 * redirect is a new target, checked as the first was (a public name that
 * redirects to a loopback or private address is refused), and the whole
 * exchange is bounded in time and in bytes, read or announced.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { DEFAULT_TIMEOUT_MS, describeError, guardedLookup, readTarget, type PostOptions } from './outbound.ts';

export interface FetchOptions extends PostOptions {
  /** The largest body accepted: a larger one (announced or read) is refused, and reading stops there. */
  readonly maxBytes: number;
  /** Redirects followed, each checked anew; 5 by default. */
  readonly maxRedirects?: number;
}

export type FetchResult =
  | { readonly ok: true; readonly bytes: Buffer; readonly contentType: string | undefined; readonly url: string }
  /** `error` says why, for a 400: never a header's or body's content. */
  | { readonly ok: false; readonly error: string };

type Hop = FetchResult | { readonly ok: 'redirect'; readonly location: string };

const DEFAULT_MAX_REDIRECTS = 5;

/** GETs `url`, following redirects that pass the guard. Never throws for network problems: `ok: false` says why. */
export async function fetchBytes(url: string, options: FetchOptions): Promise<FetchResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = performance.now() + timeoutMs;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  let current = url;
  for (let redirects = 0; ; redirects += 1) {
    const remaining = Math.round(deadline - performance.now());
    if (remaining <= 0) return { ok: false, error: `timeout after ${timeoutMs} ms` };
    const hop = await getOnce(current, options, remaining, timeoutMs);
    if (hop.ok !== 'redirect') return hop;
    if (redirects === maxRedirects) return { ok: false, error: `more than ${maxRedirects} redirects` };
    try {
      current = new URL(hop.location, current).href;
    } catch {
      return { ok: false, error: 'redirect to an invalid URL' };
    }
  }
}

function getOnce(url: string, options: FetchOptions, remainingMs: number, timeoutMs: number): Promise<Hop> {
  const target = readTarget(url, options.allow);
  if (typeof target === 'string') return Promise.resolve({ ok: false, error: `refused: ${target}` });
  return new Promise((resolve) => {
    let request: http.ClientRequest | undefined;
    let settled = false;
    const finish = (hop: Hop) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request?.destroy();
      resolve(hop);
    };
    const tooLarge = () => finish({ ok: false, error: `the file is larger than ${options.maxBytes} bytes` });
    const timer = setTimeout(() => finish({ ok: false, error: `timeout after ${timeoutMs} ms` }), remainingMs);
    try {
      request = (target.url.protocol === 'https:' ? https : http).request(target.url, {
        method: 'GET',
        headers: { accept: 'image/*', ...(options.userAgent === undefined ? {} : { 'user-agent': options.userAgent }) },
        agent: false,
        lookup: target.allowed ? undefined : guardedLookup(options.allow, options.resolve ?? dns.lookup),
      });
    } catch (error) {
      finish({ ok: false, error: describeError(error, []) });
      return;
    }
    request.on('error', (error) => finish({ ok: false, error: describeError(error, []) }));
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const { location } = response.headers;
      if (status >= 300 && status < 400 && location !== undefined) return finish({ ok: 'redirect', location });
      if (status < 200 || status >= 300) return finish({ ok: false, error: `status ${status}` });
      if (Number(response.headers['content-length'] ?? 0) > options.maxBytes) return tooLarge();
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) return tooLarge();
        chunks.push(chunk);
      });
      response.on('end', () => finish({ ok: true, bytes: Buffer.concat(chunks), contentType: response.headers['content-type'], url }));
      response.on('error', (error) => finish({ ok: false, error: describeError(error, []) }));
    });
    request.end();
  });
}
