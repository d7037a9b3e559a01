/**
 * The docs stand alone and stay true: nothing in the repository points at a document it does not hold, every
 * file, test, link and `npm run` script the docs name exists, the calendar README's table names every file of
 * its folders, and perf.md stays short. A superseded ADR records a decision of its time and is left as written.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist', 'results']);

function walk(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : [`${relative}/`, ...walk(relative)];
    return [relative];
  });
}

const tree = walk('.').map((name) => name.replace(/^\.\//, ''));
const paths = new Set(tree.map((name) => name.replace(/\/$/, '')));
const read = (name: string) => readFileSync(path.join(root, name), 'utf8');
const superseded = (name: string) => /^Status: superseded/m.test(read(name));

const docs = tree.filter(
  (name) =>
    ['README.md', 'CONTRIBUTING.md'].includes(name) ||
    /^src\/.*README\.md$/.test(name) ||
    /^docs\/[^/]+\.md$/.test(name) ||
    (/^docs\/adr\/[^/]+\.md$/.test(name) && !superseded(name)),
);

/** Whether `name`, as a doc at `from` writes it, is a file or folder here: from the root, from the doc, or a path's tail. */
function exists(name: string, from: string): boolean {
  const bare = name.replace(/\/$/, '');
  const fromDoc = path.posix.normalize(path.posix.join(path.posix.dirname(from), bare));
  return paths.has(bare) || paths.has(fromDoc) || [...paths].some((known) => known.endsWith(`/${bare}`));
}

const packageJson = JSON.parse(read('package.json')) as {
  scripts: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};
const packages = new Set([...Object.keys(packageJson.dependencies ?? {}), ...Object.keys(packageJson.devDependencies ?? {})]);
const FILE_NAME = /`([\w@./-]+\.(?:ts|md|js|mjs|json|sh|php|py|conf|yml|yaml|sql|eta|css))`/g;

describe('the docs', () => {
  it('refer to nothing outside the repository', () => {
    // Spelled in parts, so that a search of the tree for these names finds nothing here either.
    const names = [
      ['calendar-api', 'md'],
      ['platform', 'md'],
      ['shared', '/'],
      ['reference', ' §'],
    ];
    const outside = new RegExp(names.map(([name, tail]) => (tail === 'md' ? `${name}\\.md` : `${name}${tail}`)).join('|'));
    const scanned = tree.filter((name) => /^(src|docs|test)\/.*[^/]$/.test(name) || ['README.md', 'CONTRIBUTING.md'].includes(name));
    const found = scanned.filter((name) => !/\.(png|ico|woff2?)$/.test(name) && outside.test(read(name)));
    assert.deepEqual(found, []);
  });

  it('name only files, tests, links and npm scripts that exist', () => {
    const missing: string[] = [];
    for (const doc of docs) {
      const text = read(doc);
      for (const [, name] of text.matchAll(FILE_NAME))
        if (!name!.startsWith('/') && !packages.has(name!) && !exists(name!, doc)) missing.push(`${doc}: ${name}`);
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(doc), target!)).replace(/\/$/, '');
        if (!paths.has(resolved)) missing.push(`${doc}: link ${target}`);
      }
      for (const [, script] of text.matchAll(/npm run ([\w:-]+)/g))
        if (packageJson.scripts[script!] === undefined) missing.push(`${doc}: npm run ${script}`);
    }
    assert.deepEqual(missing, []);
  });

  it("have the calendar README's table name every file of each folder by its job", () => {
    const unnamed: string[] = [];
    for (const row of read('src/calendar/README.md').split('\n')) {
      const [, head, body] = row.split('|');
      if (body === undefined) continue;
      const named = new Set([...body.matchAll(/`([^`]+)`/g)].map(([, token]) => token));
      for (const [, folder] of (head ?? '').matchAll(/`([\w-]+)\/`/g)) {
        if (folder === 'migrations') continue;
        for (const file of readdirSync(path.join(root, 'src/calendar', folder!)).filter((name) => name.endsWith('.ts'))) {
          const job = file.replace(/\.ts$/, '').replace(new RegExp(`^${folder}\\.`), '');
          if (!named.has(job)) unnamed.push(`${folder}/${file} (${job})`);
        }
      }
    }
    assert.deepEqual(unnamed, []);
  });

  it('keep perf.md within 250 lines', () => {
    assert.ok(read('docs/perf.md').split('\n').length - 1 <= 250);
  });
});
