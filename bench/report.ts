import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LoadResult } from './load.ts';
import { ROOT } from './processes.ts';

/** One line of the report: a measured scenario, a scenario that could not run, or a derived figure. */
export interface Row {
  readonly name: string;
  readonly title: string;
  readonly result?: LoadResult;
  /** The baseline measured in rounds alternating with this scenario, when it was. */
  readonly baseline?: LoadResult;
  /** Shown in the value columns instead of figures (e.g. "n/a (route missing)", "1.12×", "143 MB"). */
  readonly value?: string;
  readonly ratio?: number;
  readonly target?: string;
  /** The scenario's target as a share of the baseline's req/s. */
  readonly minRatio?: number;
  readonly pass?: boolean;
  readonly note?: string;
}

const fixed = (value: number, digits: number) => value.toFixed(digits);

export function formatTable(rows: readonly Row[]): string {
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'baseline req/s', 'vs baseline', 'target', 'ok'];
  const lines = rows.map((row) => {
    const mark = row.pass === undefined ? '' : row.pass ? '✓' : '✗';
    if (row.result === undefined) return [row.title, row.value ?? '', '', '', '', '', row.target ?? '', mark];
    return [
      row.title,
      fixed(row.result.requestsPerSecond, 0),
      fixed(row.result.p50Ms, 2),
      fixed(row.result.p99Ms, 2),
      row.baseline === undefined ? '' : fixed(row.baseline.requestsPerSecond, 0),
      row.ratio === undefined ? '' : `${fixed(row.ratio * 100, 1)}%`,
      row.target ?? '',
      mark,
    ];
  });
  const widths = header.map((_, column) => Math.max(...[header, ...lines].map((line) => [...(line[column] ?? '')].length)));
  const render = (line: readonly string[]) =>
    line
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ')
      .trimEnd();
  const notes = rows.filter((row) => row.note !== undefined).map((row) => `  ${row.title}: ${row.note}`);
  return [
    render(header),
    widths.map((width) => '-'.repeat(width)).join('  '),
    ...lines.map(render),
    ...(notes.length > 0 ? ['', 'Notes:', ...notes] : []),
  ].join('\n');
}

/** Writes the run to bench/results/<time>-<dialect>.json and returns the path. */
export function writeResults(dialect: string, content: unknown): string {
  const directory = path.join(ROOT, 'bench', 'results');
  mkdirSync(directory, { recursive: true });
  const file = path.join(directory, `${new Date().toISOString().replace(/[:.]/g, '-')}-${dialect}.json`);
  writeFileSync(file, `${JSON.stringify(content, null, 2)}\n`);
  return file;
}
