/**
 * The layer rules of docs/architecture.md, as the linter enforces them: each
 * refuses a deliberate violation and lets the compliant form through.
 * Snippets are linted with eslint.boundaries.js alone (the type-aware rules of
 * the full config would need each fake file on disk and a TypeScript program);
 * the full config is checked to turn every one of those rules on.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const boundaries = new ESLint({ cwd: root, overrideConfigFile: 'eslint.boundaries.js' });

/** The rules that refuse `code` as the file at `filePath` (relative to the repository). */
async function refusedBy(filePath: string, code: string): Promise<Array<string | null>> {
  const [result] = await boundaries.lintText(code, { filePath });
  assert.ok(result);
  const fatal = result.messages.find((message) => message.fatal);
  assert.equal(fatal, undefined, fatal?.message);
  return [...new Set(result.messages.map((message) => message.ruleId))].sort();
}

const SERVICE = 'src/calendar/events/events.service.ts';
const MIGRATION = 'src/platform/db/migrations/2030-01-01T0000-example.ts';
const ROUTES = 'src/calendar/events/events.routes.ts';

describe('surfaces are independent', () => {
  it('refuses a surface importing another surface', async () => {
    assert.deepEqual(await refusedBy(SERVICE, "import { x } from '../../entity-management/errors.ts';"), ['layers/surfaces-independent']);
    assert.deepEqual(await refusedBy('src/soap/ping.service.ts', "export { x } from '../calendar/common/dates.ts';"), [
      'layers/surfaces-independent',
    ]);
    assert.deepEqual(
      await refusedBy('src/entity-management/provider/sql/sql-provider.ts', "import type { X } from '../../../soap/xml.ts';"),
      ['layers/surfaces-independent'],
    );
  });

  it('lets a surface import itself and the platform', async () => {
    const code = "import { x } from '../common/dates.ts';\nimport { AppError } from '../../platform/errors.ts';";
    assert.deepEqual(await refusedBy(SERVICE, code), []);
  });
});

describe('the platform knows no surface', () => {
  it('refuses src/platform and src/config importing a surface', async () => {
    assert.deepEqual(await refusedBy('src/platform/http/x.ts', "import { x } from '../../calendar/events/events.service.ts';"), [
      'layers/platform-knows-no-surface',
    ]);
    assert.deepEqual(await refusedBy('src/config/x.ts', "import type { X } from '../soap/xml.ts';"), ['layers/platform-knows-no-surface']);
  });

  it('lets the platform import itself', async () => {
    assert.deepEqual(await refusedBy('src/platform/http/x.ts', "import { AppError } from '../errors.ts';"), []);
  });
});

describe('routes never import repositories', () => {
  it('refuses a routes file importing a repository', async () => {
    const code = "import { findById } from './events.repository.ts';";
    assert.deepEqual(await refusedBy('src/calendar/events/events.routes.ts', code), ['layers/routes-without-repositories']);
  });

  it('lets a routes file import its service', async () => {
    const code = "import { createEvent } from './events.service.ts';";
    assert.deepEqual(await refusedBy('src/calendar/events/events.routes.ts', code), []);
  });
});

describe('migrations are frozen in time', () => {
  it('refuses a migration importing application code', async () => {
    assert.deepEqual(await refusedBy(MIGRATION, "import { AppError } from '../../errors.ts';"), ['layers/migrations-frozen']);
    assert.deepEqual(await refusedBy(MIGRATION, "import { DateTime } from 'luxon';"), ['layers/migrations-frozen']);
  });

  it('lets a migration import kysely and Node built-ins, and write SQL', async () => {
    const code = [
      "import { sql, type Kysely } from 'kysely';",
      "import { randomUUID } from 'node:crypto';",
      "import path from 'path';",
      'export const up = (db: Kysely<unknown>) => db.schema.createTable(`t${randomUUID()}`).execute();',
    ].join('\n');
    assert.deepEqual(await refusedBy(MIGRATION, code), []);
  });
});

describe('SQL only in repositories', () => {
  it('refuses importing sql or CompiledQuery from kysely elsewhere', async () => {
    assert.deepEqual(await refusedBy('src/soap/ping.service.ts', "import { sql, type Kysely } from 'kysely';"), [
      'layers/sql-imports-in-repositories',
    ]);
    assert.deepEqual(await refusedBy('src/platform/x.ts', "import { CompiledQuery } from 'kysely';"), [
      'layers/sql-imports-in-repositories',
    ]);
  });

  it('refuses starting a query elsewhere', async () => {
    for (const call of [
      "db.selectFrom('events').selectAll().execute()",
      "trx.insertInto('events').values(row).execute()",
      "db.updateTable('events').set(row).execute()",
      "db.deleteFrom('events').execute()",
      "db.replaceInto('events').values(row).execute()",
      "db.with('recent', (q) => q.selectFrom('events').selectAll())",
      'db.with((cte) => cte("recent"), (q) => q.selectFrom("events").selectAll())',
    ]) {
      const rules = await refusedBy(SERVICE, `export const run = (db: any, trx: any, row: any) => ${call};`);
      assert.deepEqual(rules, ['layers/sql-calls-in-repositories'], call);
    }
  });

  it('lets a service hold Kysely types, open a transaction and use Array.prototype.with', async () => {
    const code = [
      "import type { Kysely } from 'kysely';",
      "import { type Transaction } from 'kysely';",
      'export const run = (db: Kysely<unknown>, work: (trx: Transaction<unknown>) => Promise<void>) =>',
      '  db.transaction().execute(work);',
      'export const replaced = [1, 2].with(0, 3);',
    ].join('\n');
    assert.deepEqual(await refusedBy(SERVICE, code), []);
  });

  it('lets repositories, dialect files and database.ts write SQL', async () => {
    const code = "import { sql } from 'kysely';\nexport const run = (db: any) => db.selectFrom('events').where(sql`1 = 1`);";
    for (const filePath of [
      'src/calendar/events/events.repository.ts',
      'src/platform/db/dialect/sqlite.ts',
      'src/entity-management/provider/sql/dialect/postgres.ts',
      'src/platform/db/database.ts',
    ]) {
      assert.deepEqual(await refusedBy(filePath, code), [], filePath);
    }
  });
});

describe('no source file over 400 lines', () => {
  /** A file of `count` lines as `wc -l` counts them, taking turns: code, a comment, a blank line. */
  const fileOf = (count: number) =>
    Array.from({ length: count }, (_, index) => [`export const a${index} = 0;`, '// Why.', ''][index % 3] + '\n').join('');

  it('refuses a src file of 401 lines, blank lines and comments counted', async () => {
    assert.deepEqual(await refusedBy(SERVICE, fileOf(401)), ['max-lines']);
  });

  it('lets a src file of 400 lines through', async () => {
    assert.deepEqual(await refusedBy(SERVICE, fileOf(400)), []);
  });

  it('warns, and does not fail the lint', async () => {
    const [result] = await boundaries.lintText(fileOf(401), { filePath: SERVICE });
    assert.deepEqual(
      result?.messages.map((message) => [message.ruleId, message.severity]),
      [['max-lines', 1]],
    );
    assert.equal(result?.errorCount, 0);
  });
});

describe('route handlers in functions of their own', () => {
  /** A registration function of `count` code lines, with a comment and a blank line after each. */
  const registrationOf = (count: number) =>
    [
      'export async function routes(app) {',
      ...Array.from({ length: count - 2 }, (_, index) => `  app.get('/r${index}', handler);\n  // Why.\n`),
      '}',
      '',
    ].join('\n');

  it('refuses a registration function of 61 lines, blank lines and comments not counted', async () => {
    assert.deepEqual(await refusedBy(ROUTES, registrationOf(61)), ['max-lines-per-function']);
    assert.deepEqual(await refusedBy('src/calendar/calendar.plugin.ts', registrationOf(61)), ['max-lines-per-function']);
  });

  it('lets a registration function of 60 lines through', async () => {
    assert.deepEqual(await refusedBy(ROUTES, registrationOf(60)), []);
  });

  it('leaves functions elsewhere alone', async () => {
    assert.deepEqual(await refusedBy(SERVICE, registrationOf(61)), []);
  });
});

describe('eslint.config.js', () => {
  it('turns every layer rule on where it applies', async () => {
    const full = new ESLint({ cwd: root });
    // Severities: 2 an error, 1 a warning.
    const expected: Record<string, [string, number]> = {
      'layers/surfaces-independent': [SERVICE, 2],
      'layers/platform-knows-no-surface': ['src/platform/http/x.ts', 2],
      'layers/routes-without-repositories': [ROUTES, 2],
      'layers/migrations-frozen': [MIGRATION, 2],
      'layers/sql-imports-in-repositories': [SERVICE, 2],
      'layers/sql-calls-in-repositories': [SERVICE, 2],
      'max-lines': [SERVICE, 1],
      'max-lines-per-function': [ROUTES, 2],
    };
    for (const [rule, [filePath, severity]] of Object.entries(expected)) {
      const config = await full.calculateConfigForFile(path.join(root, filePath));
      assert.equal(config.rules?.[rule]?.[0], severity, `${rule} on ${filePath}`);
    }
  });

  it('limits the length of source files only', async () => {
    const full = new ESLint({ cwd: root });
    const config = await full.calculateConfigForFile(path.join(root, 'test/platform/lint-boundaries.test.ts'));
    assert.equal(config.rules?.['max-lines'], undefined);
  });
});

describe('no import cycles', () => {
  const cycles = new ESLint({ cwd: root, overrideConfigFile: 'eslint.cycles.js' });
  const refusals = async (filePath: string, code: string) => {
    const [result] = await cycles.lintText(code, { filePath });
    assert.ok(result);
    return result.messages.map((message) => message.ruleId);
  };

  it('refuses an import of a module that imports the file back, through others too, and lets the others through', async () => {
    // events.service imports events.repository, which imports neither of them back.
    assert.deepEqual(await refusals('src/calendar/events/events.repository.ts', "import type { X } from './events.service.ts';"), [
      'cycles/no-import-cycles',
    ]);
    // events.routes → events.service → events.repository: a cycle of three.
    assert.deepEqual(await refusals('src/calendar/events/events.repository.ts', "import { y } from './events.routes.ts';"), [
      'cycles/no-import-cycles',
    ]);
    assert.deepEqual(await refusals('src/calendar/events/events.service.ts', "import { z } from './events.repository.ts';"), []);
  });

  it('is on in the full configuration, and the sources have no cycle', async () => {
    const full = new ESLint({ cwd: root });
    const config = (await full.calculateConfigForFile(path.join(root, 'src/calendar/events/events.service.ts'))) as {
      rules: Record<string, unknown>;
    };
    assert.deepEqual(config.rules['cycles/no-import-cycles'], [2]);
    const found = (await cycles.lintFiles(['src/**/*.ts'])).flatMap((result) =>
      result.messages.flatMap((message) =>
        message.ruleId === 'cycles/no-import-cycles' ? [`${path.relative(root, result.filePath)}: ${message.message}`] : [],
      ),
    );
    assert.deepEqual(found, []);
  });
});
