import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { MIGRATION_FOLDERS } from '../../src/migrations.ts';
import { createDb, migrateToLatest } from '../../src/platform/db/database.ts';
import { freshDatabase } from '../helpers/server.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'almanac-migrations-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A folder of migrations that each create one table named after them, so nothing else is needed to run them. */
function folderWith(name: string, migrations: readonly string[]): string {
  const folder = path.join(scratch, name);
  mkdirSync(folder);
  for (const migration of migrations) {
    const table = `t_${migration.replace(/\W/g, '_')}`;
    writeFileSync(
      path.join(folder, `${migration}.mjs`),
      `export async function up(db) { await db.schema.createTable('${table}').addColumn('id', 'integer').execute(); }\n`,
    );
  }
  return folder;
}

/** Runs `work` on a migrated-from-nothing database of the dialect under test, then drops it. */
async function onFreshDatabase(work: (migrate: (folders: readonly string[]) => Promise<string[]>) => Promise<void>): Promise<void> {
  const database = await freshDatabase();
  const store = createDb(database.url);
  try {
    await work((folders) => migrateToLatest(store.db, folders));
  } finally {
    await store.close();
    await database.drop();
  }
}

const filesOf = (folder: string) => readdirSync(folder).filter((file) => file.endsWith('.ts'));
const allNames = () => MIGRATION_FOLDERS.flatMap((folder) => filesOf(folder).map((file) => file.replace(/\.ts$/, ''))).sort();

describe('migrations', () => {
  it('applies the migrations of every folder as one history, in name order across folders', async () => {
    const first = folderWith('first', ['2026-01-01T0100-one', '2026-01-01T0400-four']);
    const second = folderWith('second', ['2026-01-01T0300-three', '2026-01-01T0200-two']);
    await onFreshDatabase(async (migrate) => {
      assert.deepEqual(await migrate([first, second]), [
        '2026-01-01T0100-one',
        '2026-01-01T0200-two',
        '2026-01-01T0300-three',
        '2026-01-01T0400-four',
      ]);
      assert.deepEqual(await migrate([second, first]), []);
    });
  });

  it('refuses a migration name found in two folders, applying nothing', async () => {
    const left = folderWith('left', ['2026-01-01T0100-base', '2026-01-01T0200-same']);
    const right = folderWith('right', ['2026-01-01T0200-same']);
    await onFreshDatabase(async (migrate) => {
      await assert.rejects(migrate([left, right]), /Migration 2026-01-01T0200-same is in two folders/);
      assert.deepEqual(await migrate([left]), ['2026-01-01T0100-base', '2026-01-01T0200-same'], 'the refused run applied none of them');
    });
  });

  it("applies a surface's migration dated before another surface's latest applied one", async () => {
    const early = folderWith('early', ['2026-01-01T0100-a', '2026-01-01T0300-c']);
    const late = folderWith('late', ['2026-01-01T0200-b']);
    await onFreshDatabase(async (migrate) => {
      assert.deepEqual(await migrate([early]), ['2026-01-01T0100-a', '2026-01-01T0300-c']);
      assert.deepEqual(await migrate([early, late]), ['2026-01-01T0200-b']);
    });
  });

  it("brings an empty database to every surface's latest schema, and a migrated one applies nothing", async () => {
    await onFreshDatabase(async (migrate) => {
      assert.deepEqual(await migrate(MIGRATION_FOLDERS), allNames());
      assert.deepEqual(await migrate(MIGRATION_FOLDERS), []);
    });
  });

  it('lists every migrations folder of the sources (the bundle takes them all)', () => {
    const src = path.resolve('src');
    const found = (directory: string): string[] =>
      readdirSync(directory, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .flatMap((entry) => (entry.name === 'migrations' ? [path.join(directory, entry.name)] : found(path.join(directory, entry.name))));
    assert.deepEqual(found(src).sort(), [...MIGRATION_FOLDERS].sort());
  });

  it("the bundled command finds every surface's migrations", async () => {
    // Inside the project, so the bundle resolves its packages from node_modules as dist/ does.
    const out = path.resolve(`.bundle-test-${process.pid}`);
    after(() => rmSync(out, { recursive: true, force: true }));
    const { buildBundle } = (await import(pathToFileURL(path.resolve('scripts/bundle.mjs')).href)) as {
      buildBundle: (out: string) => Promise<void>;
    };
    await buildBundle(out);
    const database = await freshDatabase();
    try {
      const run = spawnSync(process.execPath, [path.join(out, 'almanac.mjs'), 'migrate'], {
        env: { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'silent' },
        encoding: 'utf8',
      });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stdout.trim(), `applied: ${allNames().join(', ')}`);
    } finally {
      await database.drop();
    }
  });

  it('keeps migrations frozen: they import Kysely only, never application code', () => {
    for (const folder of MIGRATION_FOLDERS) {
      for (const file of filesOf(folder)) {
        const imported = [...readFileSync(path.join(folder, file), 'utf8').matchAll(/^import .* from '([^']+)';$/gm)].map(
          (match) => match[1],
        );
        assert.deepEqual([...new Set(imported)], ['kysely'], file);
      }
    }
  });
});
