/**
 * The service configuration: every environment variable of the README's table,
 * validated once into a frozen, typed object. Nothing else reads `process.env`.
 */
import path from 'node:path';
import { DEFAULT_PASSWORD_HASH_COST } from '../platform/auth/passwords.ts';
import { parseAllowList, type AllowList } from '../platform/http/outbound.ts';

export type Language = 'en' | 'it';
export const LANGUAGES: readonly Language[] = ['en', 'it'];

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface Config {
  readonly host: string;
  readonly port: number;
  /** Public base URL without a trailing slash; its path (if any) prefixes every route. */
  readonly baseUrl: string;
  /** Path part of `baseUrl` (`""` or `/prefix`). */
  readonly basePath: string;
  readonly databaseUrl: string;
  readonly adminUser: string;
  readonly adminPassword: string | undefined;
  readonly siteTimezone: string;
  readonly defaultLanguage: Language;
  readonly soapAuth: 'optional' | 'required';
  /** Server key from which WS-Security PasswordDigest secrets are derived (ADR 0007); unset = PasswordDigest off. */
  readonly soapSecretKey: string | undefined;
  readonly logLevel: LogLevel;
  /** Allowed CORS origins; `['*']` means any origin without credentials. */
  readonly corsOrigins: readonly string[];
  /** The sites that may frame the calendar's embed (`*`: any). */
  readonly embedOrigins: readonly string[];
  readonly authMaxFailures: number;
  readonly authLockoutSeconds: number;
  /** log2 of scrypt's N for the password hashes this process makes (`PASSWORD_HASH_COST`): login passwords and post passwords. */
  readonly passwordHashCost: number;
  /** The editor's sessions: ended after this long unused, and this long after sign-in in any case. */
  readonly adminSessionIdleSeconds: number;
  readonly adminSessionMaxSeconds: number;
  readonly authMaxFailuresPerAddress: number;
  readonly rateLimitPerMinute: number;
  readonly trustProxy: boolean;
  readonly sqliteSynchronous: 'NORMAL' | 'FULL';
  /** How long a SQLite statement waits, off the event loop, for another process's write lock before a 503 (`SQLITE_BUSY_WAIT_MS`). */
  readonly sqliteBusyWaitMs: number;
  /** Bytes of answers each surface of a process may cache (`RESPONSE_CACHE_MB`): anonymous calendar reads, entity reads; 0 = none. */
  readonly responseCacheBytes: number;
  /** How long an HTTP cache (a CDN, a reverse proxy) may reuse an anonymous read (`HTTP_CACHE_MAX_AGE_SECONDS`); 0 = revalidate every time. */
  readonly httpCacheMaxAgeSeconds: number;
  /** Bytes of anonymous event representations a process may cache per event and language (`EVENT_CACHE_MB`); 0 = none. */
  readonly eventCacheBytes: number;
  /** The most occurrences one recurring series may have (`RECURRENCE_MAX_OCCURRENCES`); more is a 400. */
  readonly recurrenceMaxOccurrences: number;
  /** How far ahead of today rules without an end are stored as occurrences (`RECURRENCE_HORIZON_DAYS`). */
  readonly recurrenceHorizonDays: number;
  /** The most events one iCalendar feed carries (`ICAL_MAX_EVENTS`): a feed is never unbounded. */
  readonly icalMaxEvents: number;
  /** The largest iCalendar file `POST /events.ics` accepts (`ICAL_IMPORT_MAX_BYTES`); more is a 413. */
  readonly icalImportMaxBytes: number;
  /** Where uploaded images are stored (`MEDIA_DIR`): a directory, or the database when unset. */
  readonly mediaDir: string | undefined;
  /** The largest image `POST /wp/v2/media` accepts (`MEDIA_MAX_BYTES`); more is a 413. */
  readonly mediaMaxBytes: number;
  /** The most pixels (width × height) an uploaded image may declare (`MEDIA_MAX_PIXELS`): more is refused before decoding. */
  readonly mediaMaxPixels: number;
  /** Whether an `image` URL of another site is fetched and stored (`MEDIA_SIDELOAD`); when not, the URL is recorded as given. */
  readonly mediaSideload: boolean;
  /** Hosts and address ranges image URLs may be fetched from over http and at private addresses (`MEDIA_FETCH_ALLOW_HOSTS`). */
  readonly mediaFetchAllowHosts: AllowList;
  /** How long fetching an image URL may take, redirects included (`MEDIA_FETCH_TIMEOUT_MS`). */
  readonly mediaFetchTimeoutMs: number;
  /** How long the change log keeps what was deleted, and sync tokens stay valid (`CHANGES_RETENTION_DAYS`). */
  readonly changesRetentionDays: number;
  /** Whether a write to an existing calendar item must send If-Match (`REQUIRE_IF_MATCH`): without it, a 428. */
  readonly requireIfMatch: boolean;
  /** Whether anonymous CalDAV clients may read the public collections (`CALDAV_ANONYMOUS`); else they are asked to sign in. */
  readonly caldavAnonymous: boolean;
  /** Hosts and address ranges webhooks may reach over http and at private addresses (`WEBHOOK_ALLOW_HOSTS`). */
  readonly webhookAllowHosts: AllowList;
  /** How long a webhook receiver has to answer (`WEBHOOK_TIMEOUT_MS`). */
  readonly webhookTimeoutMs: number;
  /** About how long the first retry of a failed delivery waits; each next one twice as long (`WEBHOOK_RETRY_BASE_MS`). */
  readonly webhookRetryBaseMs: number;
  /** How long a delivery is retried before it is given up (`WEBHOOK_RETRY_HOURS`). */
  readonly webhookRetryHours: number;
  /** Failed attempts in a row that disable a subscription (`WEBHOOK_DISABLE_AFTER`). */
  readonly webhookDisableAfter: number;
  /** How often each process's delivery worker looks for work (`WEBHOOK_POLL_MS`). */
  readonly webhookPollMs: number;
  /** Whether this process runs a delivery worker (`WEBHOOK_DELIVERY`); off on processes that only answer requests. */
  readonly webhookDelivery: boolean;
  /** Processes `almanac serve` runs on one port (`WEB_CONCURRENCY`; `--workers` wins): 1 = one process, no cluster. */
  readonly workers: number;
}

/** A configuration problem; its message is the one line printed before exit code 2. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

function text(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === '' ? fallback : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function adminSessionLimits(env: Env): { adminSessionIdleSeconds: number; adminSessionMaxSeconds: number } {
  const idle = integer(env, 'ADMIN_SESSION_IDLE_SECONDS', 3600, 1, 86_400 * 30);
  const max = integer(env, 'ADMIN_SESSION_MAX_SECONDS', 86_400, 1, 86_400 * 90);
  if (max < idle) throw new ConfigError('ADMIN_SESSION_MAX_SECONDS', `must be at least ADMIN_SESSION_IDLE_SECONDS (${idle}), got ${max}`);
  return { adminSessionIdleSeconds: idle, adminSessionMaxSeconds: max };
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = text(env, name, fallback);
  const found = allowed.find((candidate) => candidate === raw);
  if (found === undefined) throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  return found;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

export function isValidTimezone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function timezone(env: Env): string {
  const zone = text(env, 'SITE_TIMEZONE', 'UTC');
  if (!isValidTimezone(zone)) throw new ConfigError('SITE_TIMEZONE', `is not a known IANA time zone: "${zone}"`);
  return zone;
}

function databaseUrl(env: Env): string {
  const url = text(env, 'DATABASE_URL', 'sqlite:./data/almanac.db');
  if (/^sqlite:.+/.test(url) || /^postgres(ql)?:\/\/.+/.test(url)) return url;
  throw new ConfigError('DATABASE_URL', 'must be sqlite:<file>, sqlite::memory: or postgres://user:pass@host:port/db');
}

function baseUrl(env: Env, host: string, port: number): { baseUrl: string; basePath: string } {
  const raw = env.BASE_URL;
  const fallback = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (raw === undefined || raw === '') return { baseUrl: fallback, basePath: '' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('BASE_URL', `is not an absolute URL: "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError('BASE_URL', 'must be http or https');
  if (url.search !== '' || url.hash !== '') throw new ConfigError('BASE_URL', 'must not have a query or fragment');
  const basePath = url.pathname.replace(/\/+$/, '');
  return { baseUrl: `${url.origin}${basePath}`, basePath };
}

function soapSecretKey(env: Env): string | undefined {
  const key = env.SOAP_SECRET_KEY;
  if (key === undefined || key === '') return undefined;
  if (key.length < 32) throw new ConfigError('SOAP_SECRET_KEY', 'must have at least 32 characters (e.g. openssl rand -base64 32)');
  return key;
}

/** A comma-separated list of origins (`scheme://host[:port]`) or `*`. */
function origins(env: Env, name: string, fallback: string): string[] {
  const raw = text(env, name, fallback);
  const origins = raw
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  for (const origin of origins) {
    if (origin === '*') continue;
    try {
      if (new URL(origin).origin !== origin) throw new Error('not an origin');
    } catch {
      throw new ConfigError(name, `has an entry that is not an origin (scheme://host[:port]): "${origin}"`);
    }
  }
  return origins;
}

function allowHosts(env: Env, name: string): AllowList {
  try {
    return parseAllowList(text(env, name, ''));
  } catch (error) {
    throw new ConfigError(name, (error as Error).message);
  }
}

export const MAX_WORKERS = 64;

/** A number of server processes, 1–64, from `WEB_CONCURRENCY` or `--workers` (`name`); `fallback` when not given. */
export function workerCount(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number of processes, 1 to ${MAX_WORKERS}, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < 1 || value > MAX_WORKERS) throw new ConfigError(name, `must be between 1 and ${MAX_WORKERS}, got ${value}`);
  return value;
}

export function loadConfig(env: Env = process.env): Config {
  const host = text(env, 'HOST', '127.0.0.1');
  const port = integer(env, 'PORT', 8080, 0, 65535);
  return Object.freeze({
    host,
    port,
    ...baseUrl(env, host, port),
    databaseUrl: databaseUrl(env),
    adminUser: text(env, 'ADMIN_USER', 'admin'),
    adminPassword: env.ADMIN_PASSWORD === '' ? undefined : env.ADMIN_PASSWORD,
    siteTimezone: timezone(env),
    defaultLanguage: oneOf(env, 'DEFAULT_LANGUAGE', 'en', LANGUAGES),
    soapAuth: oneOf(env, 'SOAP_AUTH', 'optional', ['optional', 'required'] as const),
    soapSecretKey: soapSecretKey(env),
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', LOG_LEVELS),
    corsOrigins: Object.freeze(origins(env, 'CORS_ORIGINS', '')),
    embedOrigins: Object.freeze(origins(env, 'EMBED_ORIGINS', '*')),
    authMaxFailures: integer(env, 'AUTH_MAX_FAILURES', 10, 0, 1_000_000),
    authLockoutSeconds: integer(env, 'AUTH_LOCKOUT_SECONDS', 300, 1, 86_400 * 30),
    passwordHashCost: integer(env, 'PASSWORD_HASH_COST', DEFAULT_PASSWORD_HASH_COST, 10, 20),
    ...adminSessionLimits(env),
    authMaxFailuresPerAddress: integer(env, 'AUTH_MAX_FAILURES_PER_ADDRESS', 50, 0, 1_000_000),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 0, 0, 10_000_000),
    trustProxy: boolean(env, 'TRUST_PROXY', false),
    sqliteSynchronous: oneOf(env, 'SQLITE_SYNCHRONOUS', 'NORMAL', ['NORMAL', 'FULL'] as const),
    sqliteBusyWaitMs: integer(env, 'SQLITE_BUSY_WAIT_MS', 5000, 0, 600_000),
    responseCacheBytes: integer(env, 'RESPONSE_CACHE_MB', 32, 0, 65_536) * 1024 * 1024,
    httpCacheMaxAgeSeconds: integer(env, 'HTTP_CACHE_MAX_AGE_SECONDS', 10, 0, 86_400),
    eventCacheBytes: integer(env, 'EVENT_CACHE_MB', 32, 0, 65_536) * 1024 * 1024,
    recurrenceMaxOccurrences: integer(env, 'RECURRENCE_MAX_OCCURRENCES', 1000, 1, 20_000),
    recurrenceHorizonDays: integer(env, 'RECURRENCE_HORIZON_DAYS', 760, 1, 36_600),
    icalMaxEvents: integer(env, 'ICAL_MAX_EVENTS', 500, 1, 10_000),
    icalImportMaxBytes: integer(env, 'ICAL_IMPORT_MAX_BYTES', 2 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    mediaDir: env.MEDIA_DIR === undefined || env.MEDIA_DIR === '' ? undefined : path.resolve(env.MEDIA_DIR),
    mediaMaxBytes: integer(env, 'MEDIA_MAX_BYTES', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    mediaMaxPixels: integer(env, 'MEDIA_MAX_PIXELS', 50_000_000, 1, 268_402_689),
    mediaSideload: boolean(env, 'MEDIA_SIDELOAD', true),
    mediaFetchAllowHosts: allowHosts(env, 'MEDIA_FETCH_ALLOW_HOSTS'),
    mediaFetchTimeoutMs: integer(env, 'MEDIA_FETCH_TIMEOUT_MS', 10_000, 100, 120_000),
    changesRetentionDays: integer(env, 'CHANGES_RETENTION_DAYS', 30, 1, 36_600),
    requireIfMatch: boolean(env, 'REQUIRE_IF_MATCH', false),
    caldavAnonymous: boolean(env, 'CALDAV_ANONYMOUS', false),
    webhookAllowHosts: allowHosts(env, 'WEBHOOK_ALLOW_HOSTS'),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    webhookRetryBaseMs: integer(env, 'WEBHOOK_RETRY_BASE_MS', 5_000, 10, 3_600_000),
    webhookRetryHours: integer(env, 'WEBHOOK_RETRY_HOURS', 72, 1, 720),
    webhookDisableAfter: integer(env, 'WEBHOOK_DISABLE_AFTER', 20, 1, 10_000),
    webhookPollMs: integer(env, 'WEBHOOK_POLL_MS', 1_000, 10, 60_000),
    webhookDelivery: boolean(env, 'WEBHOOK_DELIVERY', true),
    workers: workerCount('WEB_CONCURRENCY', env.WEB_CONCURRENCY, 1),
  });
}
