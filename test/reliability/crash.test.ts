/**
 * Crash safety: the server runs as a child process (`almanac serve`), takes a
 * burst of concurrent authenticated writes, and is killed with SIGKILL in the
 * middle of it. After a restart on the same database, every write that was
 * acknowledged with a 2xx must be there, intact, and the database must pass
 * its integrity check (SQLite `PRAGMA integrity_check`; PostgreSQL: every row
 * of every table reads back). Three loops on one database.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { SqliteDatabase as Database } from '../../src/platform/db/dialect/sqlite-driver.ts';
import pg from 'pg';
import { freshDatabase } from '../helpers/server.ts';
import { send } from './support/client.ts';
import { operationsOf, surfacesOf } from './support/openapi.ts';
import { CALENDAR, calendarBody, ENTITIES } from './support/seed.ts';
import { bearerFor, startServerProcess, stopServerProcess, type ServerProcess } from './support/server-process.ts';

const LOOPS = Number(process.env.CRASH_LOOPS ?? 3);
const BURST = Number(process.env.CRASH_BURST ?? 400);
const CONCURRENCY = 16;
const ADMIN_PASSWORD = `crash-${randomBytes(6).toString('hex')}`;

const database = await freshDatabase();
const env = {
  ...process.env,
  LOG_LEVEL: 'info',
  HOST: '127.0.0.1',
  PORT: '0',
  DATABASE_URL: database.url,
  ADMIN_USER: 'admin',
  ADMIN_PASSWORD,
};

/** Everything every child printed (stdout and the log stream), scanned for secrets at the end. */
let allOutput = '';
const startChild = () =>
  startServerProcess(env, (text) => {
    allOutput += text;
  });
const kill = stopServerProcess;
type Child = ServerProcess;

/** A write the burst can send, and how to read it back. */
interface Target {
  readonly name: string;
  create(url: string, auth: string, label: string): Promise<{ status: number; ref?: string }>;
  read(url: string, auth: string, ref: string): Promise<{ status: number; label?: string }>;
}

function json(auth: string) {
  return { authorization: auth, 'content-type': 'application/json' };
}

const TARGETS: Record<'events' | 'venues' | 'entities', Target> = {
  events: {
    name: 'calendar event creates',
    async create(url, auth, label) {
      const response = await send({
        method: 'POST',
        url: `${url}${CALENDAR}/events`,
        headers: json(auth),
        body: JSON.stringify(calendarBody('events', label, { status: 'publish' })),
      });
      return { status: response.status, ref: (response.json as { id?: number } | undefined)?.id?.toString() };
    },
    async read(url, auth, ref) {
      const response = await send({ method: 'GET', url: `${url}${CALENDAR}/events/${ref}`, headers: { authorization: auth } });
      return { status: response.status, label: (response.json as { title?: string } | undefined)?.title };
    },
  },
  venues: {
    name: 'calendar venue creates',
    async create(url, auth, label) {
      const response = await send({
        method: 'POST',
        url: `${url}${CALENDAR}/venues`,
        headers: json(auth),
        body: JSON.stringify(calendarBody('venues', label, { status: 'publish' })),
      });
      return { status: response.status, ref: (response.json as { id?: number } | undefined)?.id?.toString() };
    },
    async read(url, auth, ref) {
      const response = await send({ method: 'GET', url: `${url}${CALENDAR}/venues/${ref}`, headers: { authorization: auth } });
      return { status: response.status, label: (response.json as { venue?: string } | undefined)?.venue };
    },
  },
  entities: {
    name: 'entity-management customer creates',
    async create(url, auth, label) {
      const response = await send({
        method: 'POST',
        url: `${url}${ENTITIES}/customers`,
        headers: json(auth),
        body: JSON.stringify({ key: label, CompanyName: label }),
      });
      return { status: response.status, ref: label };
    },
    async read(url, auth, ref) {
      const response = await send({
        method: 'GET',
        url: `${url}${ENTITIES}/customers/${encodeURIComponent(ref)}`,
        headers: { authorization: auth },
      });
      return {
        status: response.status,
        label: (response.json as { payload?: { CompanyName?: string } } | undefined)?.payload?.CompanyName,
      };
    },
  },
};

async function integrityCheck(): Promise<string[]> {
  if (database.url.startsWith('sqlite:')) {
    const db = new Database(database.url.slice('sqlite:'.length), { readonly: true });
    try {
      return (db.pragma('integrity_check') as { integrity_check: string }[])
        .map((row) => row.integrity_check)
        .filter((result) => result !== 'ok');
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const problems: string[] = [];
    const tables = await client.query<{ tablename: string }>(`select tablename from pg_tables where schemaname = 'public'`);
    for (const { tablename } of tables.rows) {
      try {
        // Every column of every row goes through the type output functions: a damaged page or tuple fails here.
        await client.query(`select t.*::text from "${tablename}" t`);
      } catch (error) {
        problems.push(`${tablename}: ${(error as Error).message}`);
      }
    }
    return problems;
  } finally {
    await client.end();
  }
}

describe(`crash safety: kill -9 during a burst of writes, ${LOOPS} times, on ${database.url.startsWith('sqlite:') ? 'SQLite' : 'PostgreSQL'}`, () => {
  let current: Child | undefined;
  after(async () => {
    if (current !== undefined) await kill(current, 'SIGKILL');
    await database.drop();
  });

  it('keeps every acknowledged write and a sound database', async () => {
    current = await startChild();
    const document = (await send({ method: 'GET', url: `${current.url}/docs/openapi.json` })).json;
    const surfaces = surfacesOf(operationsOf(document as Record<string, unknown>), CALENDAR);
    const target = surfaces.events ? TARGETS.events : surfaces.venues ? TARGETS.venues : surfaces.entities ? TARGETS.entities : undefined;
    assert.ok(target !== undefined, 'no write route to exercise');
    const auth = bearerFor(env, 'admin');

    const acknowledged: { ref: string; label: string }[] = [];
    let unanswered = 0;
    for (let loop = 1; loop <= LOOPS; loop += 1) {
      const child: Child = current;
      const labels = Array.from({ length: BURST }, (_, i) => `crash-${loop}-${i}-${randomBytes(3).toString('hex')}`);
      // Kill once a random share of the burst has been acknowledged: mid-flight, with requests outstanding.
      const killAfter = Math.floor(BURST * (0.2 + Math.random() * 0.5));
      let acked = 0;
      let killed: Promise<number | null> | undefined;
      let next = 0;
      const worker = async () => {
        while (next < labels.length && killed === undefined) {
          const label = labels[next++]!;
          try {
            const result = await target.create(child.url, auth, label);
            assert.ok(result.status < 500, `${target.name}: ${result.status}`);
            if (result.status === 0) unanswered += 1; // the connection died with the process
            if (result.status >= 200 && result.status < 300 && result.ref !== undefined) {
              acknowledged.push({ ref: result.ref, label });
              acked += 1;
              if (acked >= killAfter) killed ??= kill(child, 'SIGKILL');
            }
          } catch (error) {
            if (killed === undefined) throw error;
            unanswered += 1; // the connection died with the process: not acknowledged, may or may not be stored
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      killed ??= kill(child, 'SIGKILL');
      await killed;

      current = await startChild();
      const lost: string[] = [];
      for (let start = 0; start < acknowledged.length; start += CONCURRENCY) {
        await Promise.all(
          acknowledged.slice(start, start + CONCURRENCY).map(async ({ ref, label }) => {
            const read = await target.read(current!.url, auth, ref);
            if (read.status !== 200 || read.label !== label) lost.push(`${ref} (${label}): ${read.status} ${String(read.label)}`);
          }),
        );
      }
      assert.deepEqual(lost, [], `loop ${loop}: ${lost.length} acknowledged write(s) lost or damaged`);
    }
    assert.equal(await kill(current, 'SIGTERM'), 0, current.output());
    current = undefined;
    assert.deepEqual(await integrityCheck(), []);
    // A supplied administrator password is never echoed; tokens never reach the log.
    assert.ok(!allOutput.includes(ADMIN_PASSWORD), 'the server printed the administrator password');
    assert.ok(!allOutput.includes(auth.slice('Bearer '.length)), 'the server printed the API token');
    console.log(
      `crash: ${LOOPS} kill -9 loops of ${target.name}, ${acknowledged.length} acknowledged writes, 0 lost, ${unanswered} cut off unanswered`,
    );
  });
});
