import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import pg from 'pg';
import { loadConfig, type Config } from '../../src/config/config.ts';
import { PasswordHasher } from '../../src/platform/auth/passwords.ts';
import { UsersService } from '../../src/platform/auth/users.service.ts';
import type { Role } from '../../src/platform/auth/capabilities.ts';
import { createDb, type Store } from '../../src/platform/db/database.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { Contract } from './contract.ts';
import { migratedDatabase, type TestDatabase } from './template-database.ts';

export const ADMIN = { username: 'admin', password: 'admin-password-1' } as const;

/**
 * The password hasher of a process configured by `config` (by default, as the suite's environment says:
 * scripts/test.sh sets `PASSWORD_HASH_COST` to its lowest, since the suite hashes hundreds of passwords).
 */
export function passwordHasher(config: Config = loadConfig()): PasswordHasher {
  return new PasswordHasher(config.passwordHashCost);
}

/** Which database the suite runs on: PostgreSQL when TEST_DATABASE_URL is set, else SQLite. */
export const dialect = process.env.TEST_DATABASE_URL ? 'postgres' : 'sqlite';

export interface Credentials {
  readonly id: number;
  readonly username: string;
  readonly password: string;
  /** `Basic …` header (slow by design: scrypt per request). */
  readonly basic: string;
  /** `Bearer …` header with a fresh API token (fast). */
  readonly bearer: string;
}

export interface TestResponse<T = any> {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The parsed JSON body, or `undefined` when the body is not JSON. */
  readonly body: T;
}

export interface RequestOptions {
  readonly method?: string;
  /** Sent as JSON unless `form` is set or it is a string, bytes (a file) or a FormData (multipart). */
  readonly body?: unknown;
  readonly form?: Record<string, string>;
  /** A full Authorization header value, or a Credentials object (its bearer token is used). */
  readonly auth?: string | Credentials;
  readonly headers?: Record<string, string>;
  /** A 5xx the test provokes on purpose (a 503 for a database another process keeps locked); any other still fails. */
  readonly expectServerError?: number;
}

export interface TestServer {
  readonly url: string;
  readonly config: Config;
  readonly server: RunningServer;
  /** Every log line the server wrote. */
  readonly logs: string[];
  request<T = any>(path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  /** The served OpenAPI document as the contract `request` holds every answer to. */
  contract(): Promise<Contract>;
  /** Creates a user with that role (a factory: call it inside the test). */
  createUser(role: Role, username?: string): Promise<Credentials>;
  admin(): Promise<Credentials>;
  /** Resolves once the server has done all the background work due now: changes dispatched, due webhook attempts made and recorded. */
  drain(): Promise<void>;
  close(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The body as sent: fetch would decode a compressed one. */
  readonly body: Buffer;
}

export interface RawRequest {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** On a connection of its own, closed after (no keep-alive: a cluster's primary gives each to the next worker). */
  readonly ownConnection?: boolean;
}

/** A request through node:http, which leaves the answer's bytes as they came (a compressed body compressed). */
export function rawRequest(
  url: string,
  { method = 'GET', headers = {}, body, ownConnection = false }: RawRequest = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const options = ownConnection ? { method, headers: { connection: 'close', ...headers }, agent: false } : { method, headers };
    const sent = httpRequest(url, options, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

/** A fresh, empty database: a temporary SQLite file or a new PostgreSQL database. */
export async function freshDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  const name = `almanac_test_${randomBytes(6).toString('hex')}`;
  if (adminUrl === undefined || adminUrl === '') {
    const directory = path.join(process.env.TMPDIR ?? '/tmp', name);
    return { url: `sqlite:${directory}/almanac.db`, drop: () => rm(directory, { recursive: true, force: true }) };
  }
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const dropper = new pg.Client({ connectionString: adminUrl });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}

/** A fresh database with every migration applied (a copy of a migrated template, template-database.ts). */
export function freshMigratedDatabase(): Promise<TestDatabase> {
  return migratedDatabase(process.env.TEST_DATABASE_URL, `almanac_test_${randomBytes(6).toString('hex')}`);
}

/** A fresh database with every migration applied, opened as the server opens it; `close` also drops it. */
export async function migratedStore(): Promise<{ store: Store; url: string; close: () => Promise<void> }> {
  const { url, drop } = await freshMigratedDatabase();
  const store = createDb(url);
  return {
    store,
    url,
    close: async () => {
      await store.close();
      await drop();
    },
  };
}

/** Starts the real server on a free port with a fresh database. */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const database = await freshMigratedDatabase();
  const port = await freePort();
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: database.url,
    ADMIN_USER: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: 'info',
    PASSWORD_HASH_COST: process.env.PASSWORD_HASH_COST,
    // Image URLs are recorded, not fetched: the suite's are made up; test/calendar/media.sideload.test.ts fetches.
    MEDIA_SIDELOAD: 'false',
    ...env,
  });
  const logs: string[] = [];
  const logDestination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(chunk.toString('utf8'));
      callback();
    },
  });
  const server = await startServer(config, { print: () => undefined, logDestination });
  const users = new UsersService(server.store, passwordHasher(config));
  const url = config.baseUrl;
  let adminCredentials: Promise<Credentials> | undefined;
  let counter = 0;
  const secrets = new Set<string>([ADMIN.password]);
  let contract: Promise<Contract> | undefined;

  const credentialsFor = async (id: number, username: string, password: string): Promise<Credentials> => {
    const { token } = await users.createToken(username, 'test');
    secrets.add(password).add(token);
    return {
      id,
      username,
      password,
      basic: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
      bearer: `Bearer ${token}`,
    };
  };

  const testServer: TestServer = {
    url,
    config,
    server,
    logs,
    async request(path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      let body: string | Uint8Array<ArrayBuffer> | FormData | undefined;
      if (options.form !== undefined) {
        headers['content-type'] ??= 'application/x-www-form-urlencoded';
        body = new URLSearchParams(options.form).toString();
      } else if (typeof options.body === 'string' || options.body instanceof Uint8Array || options.body instanceof FormData) {
        // A Buffer from sharp or readFile is backed by an ArrayBuffer.
        body = options.body as string | Uint8Array<ArrayBuffer> | FormData;
      } else if (options.body !== undefined) {
        headers['content-type'] ??= 'application/json';
        body = JSON.stringify(options.body);
      }
      if (options.auth !== undefined) {
        headers.authorization = typeof options.auth === 'string' ? options.auth : options.auth.bearer;
      }
      const target = new URL(path.startsWith('http') ? path : `${url}${path}`);
      const method = options.method ?? 'GET';
      const response = await fetch(target, { method, headers, body });
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (response.status >= 500 && response.status !== options.expectServerError) {
        throw new Error(`server answered ${response.status} to ${method} ${path}: ${text.slice(0, 500)}`);
      }
      // Every answer the suite receives is held to the served OpenAPI document.
      (await testServer.contract()).check(method, target, headers, response.status, response.headers.get('content-type') ?? '', parsed);
      return { status: response.status, headers: response.headers, text, body: parsed as never };
    },
    contract() {
      contract ??= Contract.load(url, config.basePath);
      return contract;
    },
    async createUser(role, username) {
      counter += 1;
      const name = username ?? `${role}-${counter}`;
      const password = `pw-${name}-${randomBytes(4).toString('hex')}`;
      const user = await users.add({ username: name, password, role });
      return credentialsFor(user.id, name, password);
    },
    admin() {
      adminCredentials ??= (async () => {
        const row = await server.store.db.selectFrom('users').select('id').where('username', '=', ADMIN.username).executeTakeFirstOrThrow();
        return credentialsFor(row.id, ADMIN.username, ADMIN.password);
      })();
      return adminCredentials;
    },
    drain() {
      return server.background.drain();
    },
    async close() {
      await server.close();
      await database.drop();
      // Secrets never reach the logs (SECURITY.md): scan everything this server wrote.
      const leaked = [...secrets].filter((secret) => logs.some((line) => line.includes(secret)));
      if (leaked.length > 0) throw new Error(`the server logged ${leaked.length} secret(s)`);
    },
  };
  return testServer;
}

/**
 * Another server on the database of `first`, as a second process of one deployment would be (same code path
 * as `npm start`, its logs dropped), configured by `env` besides; the caller closes it before `first`.
 */
export async function startSecondServer(first: TestServer, env: Record<string, string> = {}): Promise<RunningServer> {
  // The same site as the first (its links name the first's address), as processes behind one load balancer.
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    BASE_URL: first.url,
    DATABASE_URL: first.config.databaseUrl,
    LOG_LEVEL: 'silent',
    ...env,
  });
  return startServer(config, { print: () => undefined, logDestination: new Writable({ write: (_chunk, _encoding, done) => done() }) });
}

/** A JSON write by `auth` to a server started with `startSecondServer` (as another process would receive it); its body, parsed. */
export async function writeThrough(server: RunningServer, auth: Credentials, method: string, path: string, body: unknown): Promise<any> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: auth.bearer, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text);
}
