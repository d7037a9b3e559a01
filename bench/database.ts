import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** The database a benchmark run owns: created empty, dropped at the end unless kept. */
export interface BenchDatabase {
  readonly url: string;
  readonly dialect: 'sqlite' | 'postgres';
  /** Human description for the report (file path or database name and server version). */
  readonly description: string;
  readonly drop: () => Promise<void>;
}

/** A fresh temporary SQLite file, or a new database on the PostgreSQL server of `adminUrl`. */
export async function createBenchDatabase(adminUrl: string | undefined): Promise<BenchDatabase> {
  if (adminUrl === undefined || adminUrl === '') {
    const directory = mkdtempSync(path.join(tmpdir(), 'almanac-bench-'));
    const file = path.join(directory, 'almanac.db');
    return {
      url: `sqlite:${file}`,
      dialect: 'sqlite',
      description: `SQLite (temporary file ${file}, WAL, synchronous=NORMAL)`,
      drop: async () => rmSync(directory, { recursive: true, force: true }),
    };
  }
  const name = `almanac_bench_${randomBytes(5).toString('hex')}`;
  const version = await withClient(adminUrl, async (client) => {
    await client.query(`CREATE DATABASE ${name}`);
    const result = await client.query<{ server_version: string }>('SHOW server_version');
    return result.rows[0]?.server_version ?? '?';
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    dialect: 'postgres',
    description: `PostgreSQL ${version} (database ${name} on ${url.host})`,
    drop: () => withClient(adminUrl, async (client) => void (await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))),
  };
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
