/**
 * Times uploads of a camera-sized photo (4000 × 3000 JPEG with EXIF and GPS, generated here) through
 * `POST /wp/v2/media`, each answered once its five sizes are made and stored (docs/perf.md, "Uploads").
 *
 *   node --import tsx bench/media-upload.ts [--uploads N] [--orientation 1-8] [--compare DIR]
 *
 * Each server runs as `npm start` runs it, on a new SQLite file; `--compare DIR` starts a second one from another
 * checkout (say, the main branch's) and alternates the uploads between the two, so that both meet the same load.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { createBenchDatabase, type BenchDatabase } from './database.ts';
import { npmStartArgs, ROOT, serverEnv, startServerProcess, type ServerProcess } from './processes.ts';

interface Target {
  readonly label: string;
  readonly server: ServerProcess;
  readonly database: BenchDatabase;
  readonly token: string;
  readonly times: number[];
}

/** A photo-like picture (smooth noise, not a flat colour that compresses to nothing) with a camera's metadata. */
async function photo(orientation: number): Promise<Buffer> {
  const noise = await sharp({
    create: { width: 400, height: 300, channels: 3, background: '#888', noise: { type: 'gaussian', mean: 128, sigma: 60 } },
  })
    .png()
    .toBuffer();
  return sharp(noise)
    .resize(4000, 3000)
    .jpeg({ quality: 90 })
    .withExif({
      IFD0: { Make: 'Bench', Model: 'Camera' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '45/1 27/1 0/1', GPSLongitudeRef: 'E', GPSLongitude: '9/1 11/1 0/1' },
    })
    .withMetadata({ orientation })
    .toBuffer();
}

async function startTarget(label: string, checkout: string): Promise<Target> {
  const database = await createBenchDatabase(undefined);
  const env = serverEnv(database.url, randomBytes(12).toString('hex'));
  const server = await startServerProcess(label, [process.execPath, npmStartArgs()], env, 60_000, checkout);
  const cli = spawnSync(process.execPath, ['bin/almanac.js', 'tokens', 'create', '--username', 'admin', '--name', 'bench', '--json'], {
    cwd: checkout,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  if (cli.status !== 0) throw new Error(`tokens create failed in ${checkout}: ${cli.stderr}`);
  return { label, server, database, token: (JSON.parse(cli.stdout) as { token: string }).token, times: [] };
}

async function upload(target: Target, bytes: Buffer, index: number): Promise<void> {
  const started = performance.now();
  const response = await fetch(`${target.server.url}/wp/v2/media`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${target.token}`,
      'content-type': 'image/jpeg',
      'content-disposition': `attachment; filename="photo-${index}.jpg"`,
    },
    body: new Uint8Array(bytes),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`${target.label}: upload answered ${response.status}: ${text.slice(0, 300)}`);
  target.times.push(performance.now() - started);
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { uploads: { type: 'string', default: '10' }, orientation: { type: 'string', default: '1' }, compare: { type: 'string' } },
  });
  const uploads = Number(values.uploads);
  const orientation = Number(values.orientation);
  if (!Number.isInteger(uploads) || uploads < 1) throw new Error('--uploads must be a positive integer');
  if (!Number.isInteger(orientation) || orientation < 1 || orientation > 8) throw new Error('--orientation must be 1 to 8');
  const bytes = await photo(orientation);
  process.stdout.write(
    `photo: 4000×3000 JPEG, ${(bytes.length / 1e6).toFixed(2)} MB, orientation ${orientation}; load average ${loadavg()[0]!.toFixed(2)}\n`,
  );
  const targets = [await startTarget('this checkout', ROOT)];
  if (values.compare !== undefined) targets.push(await startTarget(path.resolve(values.compare), path.resolve(values.compare)));
  try {
    // One upload each to warm up (code loaded, sharp initialised), not counted.
    for (const target of targets) await upload(target, bytes, 0);
    for (const target of targets) target.times.length = 0;
    for (let index = 1; index <= uploads; index += 1) for (const target of targets) await upload(target, bytes, index);
    for (const { label, times } of targets) {
      const sorted = [...times].sort((a, b) => a - b);
      const line = [
        `median ${quantile(sorted, 0.5).toFixed(0)} ms`,
        `p90 ${quantile(sorted, 0.9).toFixed(0)} ms`,
        `min ${sorted[0]!.toFixed(0)} ms`,
      ];
      process.stdout.write(`${label}: ${times.length} uploads, ${line.join(', ')}\n`);
    }
  } finally {
    await Promise.all(
      targets.map(async ({ server, database }) => {
        await server.stop();
        await database.drop();
      }),
    );
  }
}

await main();
