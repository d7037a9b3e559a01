/**
 * Requests the server makes on its own (webhook deliveries; images fetched
 * by URL or by an import, in outbound.fetch.ts), guarded against
 * SSRF: an address that is not plain public unicast is refused unless the
 * allow list (WEBHOOK_ALLOW_HOSTS) names its host or contains it. Addresses
 * are checked when the connection is made, on every address the name
 * resolves to, so a name that re-resolves elsewhere (DNS rebinding) gains
 * nothing; redirects are never followed; the whole exchange is bounded.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { domainToASCII, domainToUnicode } from 'node:url';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Parsed WEBHOOK_ALLOW_HOSTS: comma-separated host names (exact, case-insensitive; e.g. `localhost`, `hooks.internal`), IP addresses and CIDR ranges (`127.0.0.1`, `10.0.0.0/8`, `::1`, `fd00::/8`). */
export interface AllowList {
  /** Host names in ASCII (punycode), lower case, without a trailing dot. */
  readonly hosts: ReadonlySet<string>;
  /** Address ranges; a single address is a /32 or a /128. */
  readonly ranges: readonly (readonly [Address, number])[];
}

export interface PostResult {
  /** The receiver's HTTP status, when it answered. */
  readonly status?: number;
  /** 2xx only (3xx is NOT followed and counts as a failure). */
  readonly ok: boolean;
  readonly durationMs: number;
  /** Why it failed when it did: 'timeout after 10000 ms', 'refused: example.test resolves to 127.0.0.1 (loopback)', 'redirect to … not followed', connection errors… Never contains request headers or body. */
  readonly error?: string;
  /** The first 1 KiB of the response body, as text (the rest is not read). */
  readonly body?: string;
}

/** dns.lookup with `all: true`; replaceable so tests can play a resolver. */
export type ResolveAll = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

export interface PostOptions {
  readonly allow: AllowList;
  /** http to any host, not only to allowed ones: for a download that carries no secret (`fetchBytes`). */
  readonly anyHttp?: boolean;
  /** Bounds the whole exchange: resolving, connecting, TLS, the answer and its first KiB. */
  readonly timeoutMs?: number;
  readonly userAgent?: string;
  /** How host names are resolved (tests); dns.lookup by default. */
  readonly resolve?: ResolveAll;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
const BODY_LIMIT_BYTES = 1024;
const LABEL = '[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?';
const HOST_NAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`);
// All global unicast IPv6 is allocated from 2000::/3; ipaddr.js calls what it
// does not name 'unicast', including the deprecated IPv4-compatible ::/96
// (`[::127.0.0.1]` → `::7f00:1`) and the rest of ::/8.
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

/** Throws an Error whose message names the bad entry, for config loading. Empty string → allow nothing. */
export function parseAllowList(raw: string): AllowList {
  const hosts = new Set<string>();
  const ranges: [Address, number][] = [];
  for (const item of raw.split(',')) {
    const entry = item.trim();
    if (entry === '') continue;
    const range = parseRange(entry);
    if (range !== undefined) {
      ranges.push(range);
      continue;
    }
    const host = toHostName(entry);
    if (host === undefined) {
      throw new Error(`allow list entry "${entry}" is not a host name, an IP address (four-part decimal or IPv6) or a CIDR range`);
    }
    hosts.add(host);
  }
  return { hosts, ranges };
}

function parseRange(entry: string): [Address, number] | undefined {
  const slash = entry.indexOf('/');
  const address = parseAddressEntry(slash === -1 ? entry : entry.slice(0, slash));
  if (address === undefined) return undefined;
  const width = address.kind() === 'ipv4' ? 32 : 128;
  if (slash === -1) return [address, width];
  const bits = entry.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > width) {
    throw new Error(`allow list entry "${entry}" has a prefix length that is not 0 to ${width}`);
  }
  return [address, Number(bits)];
}

// Only the plain forms: `127.1` or `0x7f.0.0.1` in configuration is more
// likely a mistake than a wish.
function parseAddressEntry(text: string): Address | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (net.isIPv6(text) && !text.includes('%')) return ipaddr.IPv6.parse(text);
  return undefined;
}

function toHostName(text: string): string | undefined {
  const ascii = domainToASCII(text.endsWith('.') ? text.slice(0, -1) : text);
  // domainToASCII turns `1234` or `10.0.0` into an IPv4 address, as a URL would.
  if (ascii === '' || ascii.length > 253 || net.isIP(ascii) !== 0 || !HOST_NAME.test(ascii)) return undefined;
  return ascii;
}

/** Whether an address (as written, or as the IPv4 address it maps) is inside an allowed range. */
function isInRanges(address: string, allow: AllowList): boolean {
  if (!ipaddr.isValid(address)) return false;
  const forms = [ipaddr.parse(address), ipaddr.process(address)];
  return forms.some((form) => allow.ranges.some(([range, bits]) => form.kind() === range.kind() && form.match(range, bits)));
}

/**
 * The name of the range that makes an address refused (ipaddr.js's name:
 * 'loopback', 'private', 'linkLocal', 'uniqueLocal', 'unspecified',
 * 'carrierGradeNat', '6to4'…, or 'ipv4Compatible', 'notGlobalUnicast',
 * 'unparsable'), or undefined for plain public unicast. IPv4-mapped IPv6
 * addresses are judged as the IPv4 address they carry.
 */
export function blockedRangeOf(address: string): string | undefined {
  let parsed: Address;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return 'unparsable';
  }
  const range = parsed.range();
  if (range !== 'unicast') return range;
  if (parsed.kind() === 'ipv4') return undefined;
  if (parsed.match(IPV4_COMPATIBLE)) return 'ipv4Compatible';
  return parsed.match(GLOBAL_UNICAST_V6) ? undefined : 'notGlobalUnicast';
}

export interface Target {
  readonly url: URL;
  /** The host without brackets or a trailing dot. */
  readonly host: string;
  /** Named in the allow list, or an IP literal inside an allowed range: no address check. */
  readonly allowed: boolean;
}

export function readTarget(url: string, allow: AllowList, anyHttp = false): Target | string {
  // The URL parser drops or encodes them, so what is stored and shown would not be what is called; PostgreSQL cannot store NUL.
  if (/[\s\p{Cc}]/u.test(url)) return 'url must not contain spaces or control characters.';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'url must be an absolute URL.';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'url must use https.';
  if (parsed.username !== '' || parsed.password !== '') return 'url must not contain a user name or password.';
  // `#` is percent-encoded everywhere else, so it appears only to start a fragment, even an empty one.
  if (parsed.href.includes('#')) return 'url must not contain a fragment.';
  const bare = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
  const host = bare.endsWith('.') ? bare.slice(0, -1) : bare;
  if (host === '') return 'url must name a host.';
  if (!hasValidALabels(host)) return `url's host ${host} is not a valid domain name.`;
  // Node connects to an IP literal without calling `lookup`: it is judged here.
  const literal = net.isIP(host) === 0 ? undefined : host;
  const allowed = literal === undefined ? allow.hosts.has(host) : isInRanges(literal, allow);
  if (parsed.protocol === 'http:' && !allowed && !anyHttp)
    return 'url must use https (http is accepted only for hosts allowed by configuration).';
  if (literal !== undefined && !allowed) {
    const range = blockedRangeOf(literal);
    if (range !== undefined) return `url's host ${literal} is in a blocked address range (${range}).`;
  }
  return { url: parsed, host, allowed };
}

/**
 * Every `xn--` label decodes to Unicode, as an A-label must: Node 24's URL parser keeps a host such as `xn--`, whose
 * punycode decodes to nothing (Node 20's refused it), and no DNS name can be that.
 */
function hasValidALabels(host: string): boolean {
  return host.split('.').every((label) => {
    if (!label.toLowerCase().startsWith('xn--')) return true;
    const unicode = domainToUnicode(label);
    return unicode !== '' && unicode !== label;
  });
}

/** Create-time check of a subscriber URL (no DNS): undefined when acceptable, else a sentence naming the problem, for a 400. Refuses: spaces or control characters, not an absolute URL, scheme other than https (http only when the URL's host is allowed by the list — by name, or an IP literal inside an allowed range), user:password in the URL, an IP-literal host in a blocked range unless allowed, a fragment. Also `localhost` and `*.localhost` (RFC 6761) unless allowed by name. */
export function checkTargetUrl(url: string, allow: AllowList): string | undefined {
  const target = readTarget(url, allow);
  if (typeof target === 'string') return target;
  if (!target.allowed && (target.host === 'localhost' || target.host.endsWith('.localhost'))) {
    return `url's host ${target.host} is a loopback name (RFC 6761).`;
  }
  return undefined;
}

class RefusedAddressError extends Error {}

/** Why a name's addresses are refused: the first that is blocked and not inside an allowed range. */
function refusalOf(hostname: string, addresses: readonly dns.LookupAddress[], allow: AllowList): string | undefined {
  if (addresses.length === 0) return `refused: ${hostname} resolves to no address`;
  for (const { address } of addresses) {
    const range = blockedRangeOf(address);
    if (range === undefined) continue;
    if (isInRanges(address, allow)) continue;
    return `refused: ${hostname} resolves to ${address} (${range})`;
  }
  return undefined;
}

/**
 * The `lookup` Node calls as it connects: it resolves every address (whatever
 * `all` Node asks for, since happy eyeballs may try any of them) and refuses
 * the name if one of them is blocked, so no address goes unchecked.
 */
export function guardedLookup(allow: AllowList, resolve: ResolveAll): net.LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refusal = refusalOf(hostname, addresses, allow);
      if (refusal !== undefined) return callback(new RefusedAddressError(refusal), []);
      if (options.all) return callback(null, addresses);
      const [first] = addresses as [dns.LookupAddress];
      return callback(null, first.address, first.family);
    });
  };
}

/** An error's message without any value of the request's headers (Node quotes some in its messages). */
export function describeError(error: unknown, secrets: readonly string[]): string {
  if (error instanceof RefusedAddressError) return error.message;
  let message = error instanceof Error ? error.message : String(error);
  // Happy eyeballs reports every address it tried in an AggregateError with no message of its own.
  if (message === '' && error instanceof AggregateError) message = error.errors.map((inner) => describeError(inner, secrets)).join('; ');
  if (message === '') message = (error as NodeJS.ErrnoException).code ?? 'connection failed';
  // OpenSSL's messages end in a newline and can span lines.
  const line = message.replace(/\s+/g, ' ').trim();
  return secrets.reduce((text, secret) => text.split(secret).join('[redacted]'), line);
}

function resultOfAnswer(status: number, location: string | undefined, bytes: Buffer): Omit<PostResult, 'durationMs'> {
  const body = new StringDecoder('utf8').write(bytes.subarray(0, BODY_LIMIT_BYTES));
  if (status >= 200 && status < 300) return { ok: true, status, body };
  const error =
    status >= 300 && status < 400 ? `redirect (${status}) to ${location?.slice(0, 200) ?? 'no location'} not followed` : `status ${status}`;
  return { ok: false, status, error, body };
}

/** What an exchange brought back: the status and headers, and the body up to the exchange's limit. */
interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly bytes: Buffer;
  /** The body went past the limit: `bytes` holds the part within it. */
  readonly cut: boolean;
}

interface Exchange {
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body?: string;
  /** The caller's header values, blanked out of error messages. */
  readonly secrets: readonly string[];
  /** Bytes of the body kept; the exchange ends there. */
  readonly limit: number;
}

/**
 * One request to a target `readTarget` accepted, checking every address the connection would use AT CONNECT TIME (a
 * custom `lookup` for node:http/https requests, and IP-literal hosts checked directly since Node does not call
 * lookup for them), so a host name re-resolving to a private address (DNS rebinding) is refused. Never follows
 * redirects. The whole exchange is bounded by timeoutMs. Never throws for network problems: the error's sentence.
 */
function exchange(target: Target, request: Exchange, options: PostOptions): Promise<Answer | string> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const requestHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) requestHeaders[name.toLowerCase()] = value;
  if (options.userAgent !== undefined) requestHeaders['user-agent'] = options.userAgent;
  // Short values would blank out ordinary words of a message.
  const secrets = request.secrets.filter((value) => value.length >= 6);

  return new Promise((resolve) => {
    let client: http.ClientRequest | undefined;
    let answer: { status: number; headers: http.IncomingHttpHeaders; chunks: Buffer[]; size: number } | undefined;
    let settled = false;
    const finish = (result: Answer | string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      client?.destroy();
      resolve(result);
    };
    // Once the status is in, the answer stands: a body cut short is just shorter.
    const finishAnswer = () => {
      if (answer === undefined) return;
      const bytes = Buffer.concat(answer.chunks);
      finish({
        status: answer.status,
        headers: answer.headers,
        bytes: bytes.subarray(0, request.limit),
        cut: bytes.length > request.limit,
      });
    };
    const fail = (error: unknown) => (answer ? finishAnswer() : finish(describeError(error, secrets)));
    const timer = setTimeout(() => (answer ? finishAnswer() : finish(`timeout after ${timeoutMs} ms`)), timeoutMs);

    try {
      client = (target.url.protocol === 'https:' ? https : http).request(target.url, {
        method: request.method,
        headers: requestHeaders,
        // A fresh agent per request: no pooled socket to an address checked for someone else.
        agent: false,
        lookup: target.allowed ? undefined : guardedLookup(options.allow, options.resolve ?? dns.lookup),
      });
    } catch (error) {
      fail(error);
      return;
    }
    client.on('error', fail);
    client.on('response', (response) => {
      const current = { status: response.statusCode ?? 0, headers: response.headers, chunks: [] as Buffer[], size: 0 };
      answer = current;
      response.on('data', (chunk: Buffer) => {
        current.chunks.push(chunk);
        current.size += chunk.length;
        if (current.size >= request.limit) finishAnswer();
      });
      response.on('end', finishAnswer);
      response.on('error', finishAnswer);
    });
    client.end(request.body);
  });
}

/** POSTs `body` (already-serialized JSON, content-type application/json) with `headers` to `url` through `exchange`, whole request bounded by timeoutMs (default 10 000). Never throws for network problems: returns ok:false with error. */
export async function postJson(url: string, headers: Record<string, string>, body: string, options: PostOptions): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const target = readTarget(url, options.allow);
  if (typeof target === 'string') return { ok: false, durationMs: elapsed(), error: `refused: ${target}` };
  const requestHeaders = { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
  const answer = await exchange(
    target,
    { method: 'POST', headers: requestHeaders, body, secrets: Object.values(headers), limit: BODY_LIMIT_BYTES },
    options,
  );
  if (typeof answer === 'string') return { ok: false, error: answer, durationMs: elapsed() };
  return { ...resultOfAnswer(answer.status, answer.headers.location, answer.bytes), durationMs: elapsed() };
}

/** What `getUrl` brought back. */
export interface GetResult {
  /** The status, when the server answered. */
  readonly status?: number;
  readonly headers?: http.IncomingHttpHeaders;
  /** The body, when it was within `maxBytes`. */
  readonly body?: Buffer;
  /** Why there is no answer or no body: refused, a network problem, a timeout, a body larger than `maxBytes`. */
  readonly error?: string;
}

/** GETs `url` through `exchange` (the guard of postJson: no redirect followed, bounded in time); a body past `maxBytes` is an error. */
export async function getUrl(
  url: string,
  headers: Record<string, string>,
  options: PostOptions & { maxBytes: number },
): Promise<GetResult> {
  const target = readTarget(url, options.allow);
  if (typeof target === 'string') return { error: `refused: ${target}` };
  const answer = await exchange(target, { method: 'GET', headers, secrets: Object.values(headers), limit: options.maxBytes }, options);
  if (typeof answer === 'string') return { error: answer };
  const { status, headers: answerHeaders } = answer;
  return answer.cut
    ? { status, headers: answerHeaders, error: `an answer larger than ${options.maxBytes} bytes` }
    : { status, headers: answerHeaders, body: answer.bytes };
}
