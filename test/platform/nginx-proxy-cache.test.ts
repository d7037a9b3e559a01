/**
 * Debian's nginx in front of the server with deploy/nginx/almanac.conf, the
 * configuration docs/deploy.md shows (issue 37): it answers anonymous reads
 * from its cache, shows a write once the answers it holds are
 * HTTP_CACHE_MAX_AGE_SECONDS old, revalidates with the ETag, answers a
 * client's If-None-Match with a 304, compresses text for clients that accept
 * it, and never serves or stores what a signed-in caller, a cookie or a
 * password gets.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { freePort, rawRequest, startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from '../calendar/events.factories.ts';
import { requireProgram } from '../helpers/programs.ts';

const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';
requireProgram(NGINX, ['-v'], "Debian's nginx is not installed (apt-get install nginx-light)");

const CONFIG = path.resolve('deploy/nginx/almanac.conf');
const MAX_AGE = 2;
/** nginx keeps an answer until the whole second after its max-age has passed; then one fetch, and a reader's next request. */
const VISIBLE_WITHIN_MS = (MAX_AGE + 1.5) * 1000;

/** The deployment's file with what differs on a test machine replaced: each line must be found once, as the doc shows it. */
function testConfig(site: string, directory: string, listen: number, upstream: string): string {
  const replace = (text: string, line: string, by: string) => {
    assert.equal(text.split(line).length, 2, `${CONFIG} has "${line}" once`);
    return text.replace(line, by);
  };
  let config = replace(site, '/var/cache/nginx/almanac', path.join(directory, 'cache'));
  config = replace(config, 'listen 80;', `listen 127.0.0.1:${listen};`);
  config = replace(config, 'server 127.0.0.1:8080;', `server ${upstream};`);
  // One process as the user running the test (no workers to switch to another user), everything under the directory.
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((name) => `  ${name}_temp_path ${path.join(directory, name)};`);
  return [
    'daemon off;',
    'master_process off;',
    `pid ${path.join(directory, 'nginx.pid')};`,
    'error_log stderr warn;',
    'events { worker_connections 64; }',
    'http {',
    '  access_log off;',
    ...temp,
    config,
    '}',
    '',
  ].join('\n');
}

interface Proxied {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** nginx's X-Cache-Status: MISS, HIT, BYPASS, EXPIRED, STALE, UPDATING, REVALIDATED. */
  readonly cache: string | null;
}

describe('nginx proxy_cache in front (deploy/nginx/almanac.conf)', () => {
  let server: TestServer;
  let admin: Credentials;
  let directory: string;
  let nginx: ChildProcess;
  let proxy: string;
  let nginxOutput = '';

  before(async () => {
    server = await startTestServer({ HTTP_CACHE_MAX_AGE_SECONDS: String(MAX_AGE) });
    admin = await server.admin();
    directory = await mkdtemp(path.join(tmpdir(), 'almanac-nginx-'));
    const port = await freePort();
    const config = path.join(directory, 'nginx.conf');
    await writeFile(config, testConfig(await readFile(CONFIG, 'utf8'), directory, port, new URL(server.url).host));
    nginx = spawn(NGINX, ['-p', directory, '-c', config, '-e', 'stderr'], { stdio: ['ignore', 'ignore', 'pipe'] });
    nginx.stderr?.on('data', (chunk: Buffer) => (nginxOutput += chunk.toString('utf8')));
    proxy = `http://127.0.0.1:${port}`;
    for (let attempt = 0; ; attempt += 1) {
      const ready = await fetch(`${proxy}/healthz`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (ready) break;
      assert.ok(attempt < 100 && nginx.exitCode === null, `nginx did not start: ${nginxOutput}`);
      await sleep(50);
    }
  });
  after(async () => {
    if (nginx !== undefined && nginx.exitCode === null) {
      const exited = new Promise((resolve) => nginx.once('exit', resolve));
      nginx.kill('SIGTERM');
      await exited;
    }
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
    await server?.close();
  });

  const get = async (target: string, headers: Record<string, string> = {}, auth?: Credentials): Promise<Proxied> => {
    const response = await fetch(`${proxy}${target}`, {
      headers: auth === undefined ? headers : { ...headers, authorization: auth.bearer },
    });
    return {
      status: response.status,
      headers: response.headers,
      text: await response.text(),
      cache: response.headers.get('x-cache-status'),
    };
  };

  /** A tag without its weakness marker: what If-None-Match compares (RFC 9110 §8.8.3.2). */
  const opaque = (tag: string | null) => tag?.replace(/^W\//, '');

  /** The requests for `target` that reached the server, with the status each was answered. */
  const reached = (target: string): number[] => {
    const lines = server.logs.flatMap((chunk) => chunk.split('\n')).filter((line) => line !== '');
    const entries = lines.map(
      (line) => JSON.parse(line) as { msg?: string; reqId?: string; req?: { url?: string }; res?: { statusCode?: number } },
    );
    const ids = new Set(
      entries.filter((entry) => entry.msg === 'incoming request' && entry.req?.url === target).map((entry) => entry.reqId),
    );
    return entries.filter((entry) => entry.msg === 'request completed' && ids.has(entry.reqId)).map((entry) => entry.res?.statusCode ?? 0);
  };

  it('answers anonymous reads of the API, the feeds and the pages from its cache, and 304s to clients that have them', async () => {
    const event = await makeEvent(server, admin, { status: 'publish', title: 'Cached concert' });
    for (const target of [`${EVENTS}/${event.id}`, `${EVENTS}?per_page=5`, `${EVENTS}/${event.id}.ics`, `/event/${event.slug}/`]) {
      const first = await get(target);
      assert.equal(first.status, 200, `${target}: ${first.text.slice(0, 200)}`);
      assert.equal(first.cache, 'MISS', target);
      assert.match(first.text, /Cached concert/, target);
      const second = await get(target);
      assert.equal(second.cache, 'HIT', target);
      assert.equal(second.text, first.text, target);
      const etag = first.headers.get('etag') ?? '';
      assert.equal(second.headers.get('etag'), etag, target);
      const notModified = await get(target, { 'if-none-match': etag });
      assert.equal(notModified.status, 304, target);
      assert.equal(notModified.text, '');
      // A compressed answer's tag is weak (W/"…"); nginx's 304 carries it unweakened: the same opaque tag.
      assert.equal(opaque(notModified.headers.get('etag')), opaque(etag));
      assert.deepEqual(reached(target), [200], `${target}: the server answered once`);
    }
    // A client that has an answer the cache does not: the 304 reaches it too.
    const uncached = `${EVENTS}?per_page=4`;
    // The tag as the cache would have it: the server's answer as it is (compressed, it has a tag of its own).
    const etag = (await server.request(uncached, { headers: { 'accept-encoding': 'identity' } })).headers.get('etag') ?? '';
    const notModified = await get(uncached, { 'if-none-match': etag });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.cache, 'MISS');
  });

  it('compresses text for anonymous clients that accept it, the same bytes once decoded, and 304s their weak tags', async () => {
    // Above gzip_min_length in every form, the .ics too.
    const description = `<p>${'An evening of music under the stars. '.repeat(60)}</p>`;
    const event = await makeEvent(server, admin, { status: 'publish', title: 'Compressed concert', description });
    for (const target of ['/events/', `${EVENTS}?per_page=20`, `${EVENTS}/${event.id}.ics`]) {
      const plain = await get(target, { 'accept-encoding': 'identity' });
      // node:http, which leaves the body as sent (fetch decodes it).
      const raw = await rawRequest(`${proxy}${target}`, { headers: { 'accept-encoding': 'gzip' } });
      assert.equal(raw.headers['content-encoding'], 'gzip', target);
      assert.match(String(raw.headers.vary), /Accept-Encoding/i, target);
      assert.equal(gunzipSync(raw.body).toString('utf8'), plain.text, `${target}: the same bytes once decoded`);
      assert.ok(raw.body.length < Buffer.byteLength(plain.text), `${target}: smaller`);
      const tag = String(raw.headers.etag);
      assert.equal(tag, `W/${plain.headers.get('etag')}`, `${target}: the uncompressed answer's tag, weak`);
      assert.equal((await get(target, { 'accept-encoding': 'gzip', 'if-none-match': tag })).status, 304, target);
    }
    assert.equal((await get('/healthz', { 'accept-encoding': 'gzip' })).headers.get('content-encoding'), null, 'a short answer as it is');
    // A signed-in caller's answers are sent as they are: secrets beside chosen text must not be compressed together.
    const signedIn = await rawRequest(`${proxy}${EVENTS}?per_page=20`, {
      headers: { 'accept-encoding': 'gzip', authorization: admin.bearer },
    });
    assert.equal(signedIn.headers['content-encoding'], undefined, 'with credentials');
    const withCookie = await rawRequest(`${proxy}/events/`, { headers: { 'accept-encoding': 'gzip', cookie: 'almanac_session=x' } });
    assert.equal(withCookie.headers['content-encoding'], undefined, 'with a cookie');
  });

  it('revalidates an expired answer with its ETag: the server answers 304 and the cache keeps serving it', async () => {
    const event = await makeEvent(server, admin, { status: 'publish', title: 'Unchanged' });
    const target = `${EVENTS}/${event.id}`;
    const first = await get(target);
    assert.equal(first.cache, 'MISS');
    await sleep(VISIBLE_WITHIN_MS);
    const expired = await get(target);
    assert.equal(expired.text, first.text);
    for (let attempt = 0; reached(target).length < 2 && attempt < 40; attempt += 1) await sleep(50);
    assert.deepEqual(reached(target), [200, 304], 'the background update sent If-None-Match and got a 304');
    const renewed = await get(target);
    assert.equal(renewed.cache, 'HIT');
    assert.equal(renewed.text, first.text);
  });

  it('shows a write within max-age: the old answer until then, the new one after', async () => {
    const event = await makeEvent(server, admin, { status: 'publish', title: 'Before the write' });
    const targets = [`${EVENTS}/${event.id}`, `/event/${event.slug}/`];
    for (const target of targets) assert.equal((await get(target)).cache, 'MISS');
    const written = await fetch(`${proxy}${EVENTS}/${event.id}`, {
      method: 'PATCH',
      headers: { authorization: admin.bearer, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'After the write' }),
    });
    const writtenAt = Date.now();
    assert.equal(written.status, 200, await written.text());
    assert.equal(written.headers.get('x-cache-status'), null, 'a write is not for the cache at all');
    assert.equal(written.headers.get('cache-control'), 'no-store');
    for (const target of targets) {
      const cached = await get(target);
      assert.equal(cached.cache, 'HIT', target);
      assert.match(cached.text, /Before the write/, `${target}: the cache holds its answer until max-age`);
    }
    for (const target of targets) {
      let seen = await get(target);
      while (!/After the write/.test(seen.text) && Date.now() - writtenAt < VISIBLE_WITHIN_MS + 1000) {
        await sleep(100);
        seen = await get(target);
      }
      const after = Date.now() - writtenAt;
      assert.match(seen.text, /After the write/, target);
      assert.ok(after <= VISIBLE_WITHIN_MS, `${target}: the write showed after ${after} ms (max-age ${MAX_AGE} s)`);
    }
  });

  it('never answers a signed-in read from its cache, nor stores one; nor a read with a cookie or a password', async () => {
    const draft = await makeEvent(server, admin, { status: 'draft', title: 'Secret draft' });
    const listed = `${EVENTS}?per_page=49`;
    const signedIn = await get(listed, {}, admin);
    assert.equal(signedIn.cache, 'BYPASS');
    assert.equal(signedIn.headers.get('cache-control'), 'private, no-store');
    assert.match(signedIn.text, /Secret draft/);
    const anonymous = await get(listed);
    assert.equal(anonymous.cache, 'MISS', 'the signed-in answer was not stored');
    assert.doesNotMatch(anonymous.text, /Secret draft/);
    assert.equal((await get(listed)).cache, 'HIT');
    const again = await get(listed, {}, admin);
    assert.equal(again.cache, 'BYPASS', 'the cached anonymous answer is not given to a signed-in caller');
    assert.match(again.text, /Secret draft/);
    assert.deepEqual(reached(listed), [200, 200, 200]);

    const item = `${EVENTS}/${draft.id}`;
    assert.equal((await get(item, {}, admin)).status, 200);
    for (let round = 0; round < 2; round += 1) {
      const refused = await get(item);
      assert.equal(refused.status, 403, 'an anonymous caller never gets the draft');
      assert.equal(refused.cache, 'MISS', 'nor is the refusal stored');
    }

    const cookie = await get(listed, { cookie: 'wordpress_logged_in=abc' });
    assert.equal(cookie.cache, 'BYPASS');
    assert.equal(cookie.headers.get('cache-control'), 'private, no-store');

    const locked = await makeEvent(server, admin, {
      status: 'publish',
      title: 'Locked',
      password: 'sesame',
      description: 'Behind the door',
    });
    const unlocked = `${EVENTS}/${locked.id}?password=sesame`;
    for (let round = 0; round < 2; round += 1) {
      const answer = await get(unlocked);
      assert.match(answer.text, /Behind the door/);
      assert.equal(answer.cache, 'MISS', 'an answer unlocked by a password is never stored');
    }
  });
});
