// The `almanac` command as one ESM bundle in dist/ (esbuild, ~50 ms), with every surface's migrations
// beside it as separate modules, each folder at its path under src/ (Kysely's migrator reads folders,
// and src/migrations.ts finds them relative to itself, which is dist/almanac.mjs once bundled). `npm ci` builds it (the `prepare` script);
// bin/almanac.js runs it when it is newer than every source file, else the sources through tsx.
// Running the bundle saves the tsx loader thread (~40 MB) and its per-call helpers.
import { cpSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCES = path.join(ROOT, 'src');
const DIST = path.join(ROOT, 'dist');
const ENTRY = path.join(DIST, 'almanac.mjs');
const PAGE_FILES = ['calendar/pages/templates', 'calendar/pages/assets', 'calendar/admin/templates', 'calendar/admin/assets'];

/** Every folder named `migrations` under `directory`. */
function migrationFolders(directory) {
  return readdirSync(directory, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const full = path.join(directory, entry.name);
      return entry.name === 'migrations' ? [full] : migrationFolders(full);
    });
}

function newestSourceMs(directory) {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSourceMs(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/** The bundle's URL when it is at least as new as every source file, else undefined. */
export function freshBundle() {
  try {
    return statSync(ENTRY).mtimeMs >= newestSourceMs(SOURCES) ? pathToFileURL(ENTRY).href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Builds dist/ (or `out`, a folder of the project, so the bundle finds its packages) afresh: written
 * beside it, then swapped in, so a process starting meanwhile never sees half of it.
 */
export async function buildBundle(out = DIST) {
  const { build } = await import('esbuild');
  const staging = `${out}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  const common = { platform: 'node', format: 'esm', target: 'node22', logLevel: 'warning' };
  // What a command imports when it runs (the server, the seeds, the importer) is a chunk of its own, so a
  // command such as `almanac users list` loads none of the HTTP server. Chunks sit beside almanac.mjs:
  // modules find their files (the pages' templates, the migrations) relative to their own URL.
  await build({
    ...common,
    entryPoints: { almanac: path.join(SOURCES, 'cli/main.ts') },
    bundle: true,
    splitting: true,
    chunkNames: 'almanac-[hash]',
    packages: 'external',
    sourcemap: 'linked',
    outdir: staging,
    outExtension: { '.js': '.mjs' },
  });
  await build({
    ...common,
    entryPoints: migrationFolders(SOURCES).flatMap((folder) => readdirSync(folder).map((name) => path.join(folder, name))),
    outbase: SOURCES,
    outdir: staging,
    outExtension: { '.js': '.mjs' },
  });
  // The public pages' and the editor's templates and stylesheets, read at run time from their folders (*.views.ts).
  for (const folder of PAGE_FILES) cpSync(path.join(SOURCES, folder), path.join(staging, folder), { recursive: true });
  rmSync(out, { recursive: true, force: true });
  renameSync(staging, out);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await buildBundle();
