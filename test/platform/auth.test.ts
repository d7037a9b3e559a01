import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { DEFAULT_PASSWORD_HASH_COST, PasswordHasher } from '../../src/platform/auth/passwords.ts';
import { readRevision } from '../../src/platform/db/revisions.ts';
import { ADMIN, passwordHasher, startTestServer, type TestServer } from '../helpers/server.ts';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('authentication', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  it('creates the first administrator from ADMIN_USER and ADMIN_PASSWORD', async () => {
    const users = await server.server.store.db.selectFrom('users').select(['username', 'role']).execute();
    assert.deepEqual(users, [{ username: ADMIN.username, role: 'administrator' }]);
  });

  it('accepts HTTP Basic with the right password', async () => {
    const response = await server.request('/', { auth: basic(ADMIN.username, ADMIN.password) });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('cache-control'), 'private, no-store');
  });

  it('accepts a Bearer token', async () => {
    const admin = await server.admin();
    const response = await server.request('/', { auth: admin.bearer });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('cache-control'), 'private, no-store');
  });

  it('leaves answers to anonymous callers to shared caches', async () => {
    const response = await server.request('/');
    assert.equal(response.status, 200);
    assert.match(response.headers.get('cache-control') ?? '', /^public, max-age=\d+/);
  });

  for (const [name, header] of [
    ['a wrong password', basic(ADMIN.username, 'not-the-password')],
    ['an unknown user', basic('nobody-here', 'whatever-password')],
  ] as const) {
    it(`answers ${name} with 401 invalid_credentials and WWW-Authenticate, even on a public route`, async () => {
      const response = await server.request('/', { auth: header, headers: { 'x-forwarded-for': name } });
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('www-authenticate'), 'Basic realm="almanac"');
      assert.deepEqual(response.body, {
        code: 'invalid_credentials',
        message: 'The username or password is incorrect.',
        data: { status: 401 },
      });
    });
  }

  for (const [name, header] of [
    ['not base64', 'Basic !!!not-base64!!!'],
    ['no colon', `Basic ${Buffer.from('adminpassword').toString('base64')}`],
    ['an empty value', 'Basic '],
    ['an unknown scheme', 'Digest abc'],
    ['10 KB long', `Basic ${'A'.repeat(10 * 1024)}`],
  ] as const) {
    it(`rejects a malformed Authorization header (${name}) with 401 invalid_authorization_header`, async () => {
      const response = await server.request('/', { auth: header });
      assert.equal(response.status, 401);
      assert.equal(response.body.code, 'invalid_authorization_header');
    });
  }

  it('rejects an unknown bearer token with 401 invalid_token', async () => {
    const response = await server.request('/', { auth: 'Bearer alm_unknown' });
    assert.equal(response.status, 401);
    assert.equal(response.body.code, 'invalid_token');
  });

  it('follows a role change or a removed user written by another process at once, even for a cached token', async () => {
    const user = await server.createUser('editor');
    const create = () =>
      server.request('/calendar/events/v1/categories', { method: 'POST', auth: user, body: { name: `Role probe ${Math.random()}` } });
    assert.equal((await create()).status, 201);
    const db = server.server.store.db;
    await db.updateTable('users').set({ role: 'subscriber' }).where('id', '=', user.id).execute();
    assert.equal((await create()).status, 403);
    await db.deleteFrom('api_tokens').where('user_id', '=', user.id).execute();
    assert.equal((await server.request('/', { auth: user })).status, 401);
  });

  it("records a token's use without moving the auth revision (a read is no write), while a revocation moves it", async () => {
    const user = await server.createUser('editor');
    const db = server.server.store.db;
    const before = await readRevision(db, 'auth');
    assert.equal((await server.request('/', { auth: user })).status, 200);
    const used = await db.selectFrom('api_tokens').select('last_used_at').where('user_id', '=', user.id).executeTakeFirstOrThrow();
    assert.ok(used.last_used_at !== null, 'the use is recorded');
    assert.equal(await readRevision(db, 'auth'), before);
    await db.updateTable('api_tokens').set({ revoked_at: new Date().toISOString() }).where('user_id', '=', user.id).execute();
    assert.ok((await readRevision(db, 'auth')) > before);
  });

  it('rejects a revoked token', async () => {
    const user = await server.createUser('editor');
    assert.equal((await server.request('/', { auth: user })).status, 200);
    const { UsersService } = await import('../../src/platform/auth/users.service.ts');
    const users = new UsersService(server.server.store, passwordHasher(server.config));
    const [token] = await users.listTokens(user.username);
    assert.ok(token);
    await users.revokeToken(token.id);
    const response = await server.request('/', { auth: user });
    assert.equal(response.status, 401);
    assert.equal(response.body.code, 'invalid_token');
  });
});

describe('login lockout', () => {
  // Long enough that slow password hashing on a loaded machine cannot outlast it.
  const WINDOW_SECONDS = 5;
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      AUTH_MAX_FAILURES: '3',
      AUTH_MAX_FAILURES_PER_ADDRESS: '5',
      AUTH_LOCKOUT_SECONDS: String(WINDOW_SECONDS),
      TRUST_PROXY: 'true',
    });
  });
  after(async () => server.close());

  const from = (address: string, header: string) => server.request('/', { auth: header, headers: { 'x-forwarded-for': address } });

  it('locks a (username, address) pair after AUTH_MAX_FAILURES, even with the right password, then cools down', async () => {
    for (let i = 0; i < 3; i += 1) assert.equal((await from('10.0.0.1', basic(ADMIN.username, 'wrong-password'))).status, 401);
    const locked = await from('10.0.0.1', basic(ADMIN.username, ADMIN.password));
    assert.equal(locked.status, 429);
    assert.equal(locked.body.code, 'rest_too_many_requests');
    const retryAfter = Number(locked.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= WINDOW_SECONDS, `Retry-After ${retryAfter}`);

    // Another address is not locked.
    assert.equal((await from('10.0.0.2', basic(ADMIN.username, ADMIN.password))).status, 200);

    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 100));
    assert.equal((await from('10.0.0.1', basic(ADMIN.username, ADMIN.password))).status, 200);
  });

  it('locks an address after AUTH_MAX_FAILURES_PER_ADDRESS failures across usernames', async () => {
    for (let i = 0; i < 5; i += 1) assert.equal((await from('10.0.0.9', basic(`user${i}`, 'wrong-password'))).status, 401);
    assert.equal((await from('10.0.0.9', basic(ADMIN.username, ADMIN.password))).status, 429);
    assert.equal((await from('10.0.0.8', basic(ADMIN.username, ADMIN.password))).status, 200);
  });

  it('accepts a valid token from a locked-out address (a token is not guessed), and tells a wrong one it is locked out', async () => {
    const user = await server.createUser('editor');
    for (let i = 0; i < 3; i += 1) assert.equal((await from('10.0.0.7', 'Bearer alm_guess' + i)).status, 401);
    const wrong = await from('10.0.0.7', 'Bearer alm_guess-again');
    assert.equal(wrong.status, 429);
    assert.equal(wrong.body.code, 'rest_too_many_requests');
    assert.equal((await from('10.0.0.7', user.bearer)).status, 200);
    // The whole address locked out by failed logins: passwords are refused, tokens still pass.
    for (let i = 0; i < 5; i += 1) await from('10.0.0.7', basic(`user${i}`, 'wrong-password'));
    assert.equal((await from('10.0.0.7', basic(ADMIN.username, ADMIN.password))).status, 429);
    assert.equal((await from('10.0.0.7', user.bearer)).status, 200);
  });

  it("accepts a token as its own user's Basic password, and counts it as a wrong password under another name", async () => {
    const user = await server.createUser('author');
    const token = user.bearer.slice('Bearer '.length);
    assert.equal((await from('10.0.0.5', basic(user.username, token))).status, 200);
    for (let i = 0; i < 3; i += 1) assert.equal((await from('10.0.0.5', basic(ADMIN.username, token))).status, 401);
    assert.equal((await from('10.0.0.5', basic(ADMIN.username, ADMIN.password))).status, 429);
  });
});

describe('password hashes (PASSWORD_HASH_COST)', () => {
  it('are scrypt with N = 2^15 by default; the cost is a whole number from 10 to 20', async () => {
    assert.equal(loadConfig({}).passwordHashCost, DEFAULT_PASSWORD_HASH_COST);
    assert.match(await new PasswordHasher(DEFAULT_PASSWORD_HASH_COST).hash('a-password'), /^scrypt\$32768\$8\$1\$/);
    assert.equal(loadConfig({ PASSWORD_HASH_COST: '20' }).passwordHashCost, 20);
    for (const value of ['9', '21', 'high', '12.5', '-1']) {
      assert.throws(() => loadConfig({ PASSWORD_HASH_COST: value }), /PASSWORD_HASH_COST/, value);
    }
  });

  it('are made at the configured cost, and those of any other cost still verify', async () => {
    const server = await startTestServer({ PASSWORD_HASH_COST: '11' });
    try {
      const admin = await server.server.store.db.selectFrom('users').select('password_hash').executeTakeFirstOrThrow();
      assert.match(admin.password_hash, /^scrypt\$2048\$8\$1\$/, 'the first administrator');
      const created = await server.request('/calendar/events/v1/events', {
        method: 'POST',
        auth: await server.admin(),
        body: { title: 'Guarded', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00', password: 'open-sesame' },
      });
      assert.equal(created.status, 201);
      const { rows } = await sql<{ password_hash: string }>`select password_hash from events where id = ${created.body.id}`.execute(
        server.server.store.db,
      );
      assert.match(rows[0]?.password_hash ?? '', /^scrypt\$2048\$8\$1\$/, "an event's password");

      const { UsersService } = await import('../../src/platform/auth/users.service.ts');
      await new UsersService(server.server.store, new PasswordHasher(10)).add({
        username: 'older',
        password: 'older-password',
        role: 'editor',
      });
      assert.equal((await server.request('/', { auth: basic('older', 'older-password') })).status, 200);
      assert.equal((await server.request('/', { auth: basic('older', 'older-passwort') })).status, 401);
    } finally {
      await server.close();
    }
  });
});
