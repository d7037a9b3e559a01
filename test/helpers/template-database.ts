import { createHash, randomBytes } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { createDb, migrateToLatest } from '../../src/platform/db/database.ts';
import { MIGRATION_FOLDERS } from '../../src/migrations.ts';

/** A database of one test: its URL, and how to drop it. */
export interface TestDatabase {
  readonly url: string;
  readonly drop: () => Promise<void>;
}

// PostgreSQL refuses to copy a template while another CREATE DATABASE reads it: test processes take turns.
const TEMPLATE_BUSY = '55006';

/**
 * A database with every migration applied, copied from a template migrated once per set of migrations and
 * shared by every test process of a run: a file copy on SQLite, `CREATE DATABASE … TEMPLATE` on PostgreSQL,
 * instead of running every migration for each test server. The template's name carries a digest of the
 * migrations, so an edited migration makes a new one; it is made under a name of its own and renamed when
 * complete, so a process never copies half a template.
 */
export async function migratedDatabase(adminUrl: string | undefined, name: string): Promise<TestDatabase> {
  const template = `almanac_template_${await migrationsDigest()}`;
  return adminUrl === undefined || adminUrl === '' ? sqliteCopy(template, name) : postgresCopy(adminUrl, template, name);
}

async function migrationsDigest(): Promise<string> {
  const hash = createHash('sha256');
  for (const folder of MIGRATION_FOLDERS) {
    for (const file of (await readdir(folder)).sort()) hash.update(file).update(await readFile(path.join(folder, file)));
  }
  return hash.digest('hex').slice(0, 16);
}

async function migrate(url: string): Promise<void> {
  const store = createDb(url);
  try {
    await migrateToLatest(store.db, MIGRATION_FOLDERS);
  } finally {
    await store.close();
  }
}

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );

async function sqliteCopy(template: string, name: string): Promise<TestDatabase> {
  const temporary = process.env.TMPDIR ?? '/tmp';
  const source = path.join(temporary, `${template}.db`);
  if (!(await exists(source))) {
    // Closed before it is renamed: its write-ahead log is then checkpointed into the file, which is all there is to copy.
    const partial = path.join(temporary, `${template}.${randomBytes(4).toString('hex')}`);
    await migrate(`sqlite:${partial}/almanac.db`);
    await rename(path.join(partial, 'almanac.db'), `${partial}.db`);
    await rm(partial, { recursive: true, force: true });
    await rename(`${partial}.db`, source);
  }
  const directory = path.join(temporary, name);
  await mkdir(directory, { recursive: true });
  await copyFile(source, path.join(directory, 'almanac.db'));
  return { url: `sqlite:${directory}/almanac.db`, drop: () => rm(directory, { recursive: true, force: true }) };
}

async function postgresCopy(adminUrl: string, template: string, name: string): Promise<TestDatabase> {
  const urlOf = (database: string) => Object.assign(new URL(adminUrl), { pathname: `/${database}` }).toString();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
    if (found.rowCount === 0) {
      const partial = `${template}_${randomBytes(4).toString('hex')}`;
      await admin.query(`CREATE DATABASE ${partial}`);
      await migrate(urlOf(partial));
      // A connection pooler (PgBouncer) may keep a connection to it open, which a rename would wait for in vain.
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [partial]);
      // Another process may have renamed its own first: then this one is not needed.
      await admin.query(`ALTER DATABASE ${partial} RENAME TO ${template}`).catch(() => admin.query(`DROP DATABASE ${partial}`));
    }
    for (let attempt = 1; ; attempt += 1) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== TEMPLATE_BUSY || attempt === 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
      }
    }
  } finally {
    await admin.end();
  }
  return {
    url: urlOf(name),
    drop: async () => {
      const dropper = new pg.Client({ connectionString: adminUrl });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}
