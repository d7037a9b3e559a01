import { createReadStream } from 'node:fs';
import { Readable, pipeline } from 'node:stream';
import { parse } from 'csv-parse';
import { ImportProblemError } from '../common/import-problems.ts';

/**
 * A CSV file read as a stream of rows (bounded memory: one chunk and one row at a time): UTF-8 text (a byte-order
 * mark allowed), its delimiter — a comma, a semicolon (what spreadsheets write where the comma is the decimal
 * separator) or a tab — found in its first line. What makes it no CSV text is a `CsvFileError`, whose message is
 * the one line the command prints.
 */

export class CsvFileError extends ImportProblemError {}

export interface CsvRow {
  /** The line the row starts on, 1-based. */
  readonly line: number;
  readonly cells: readonly string[];
}

/** The longest row: a longer one is no spreadsheet's. */
const MAX_ROW_BYTES = 1024 * 1024;

/** The file's text, checked: UTF-8, and no NUL (a binary file). */
async function* textOf(path: string): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let offset = 0;
  let stream;
  try {
    stream = createReadStream(path);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (offset === 0 && chunk.length >= 2 && ((chunk[0] === 0xff && chunk[1] === 0xfe) || (chunk[0] === 0xfe && chunk[1] === 0xff)))
        throw new CsvFileError('csv_utf16');
      const nul = chunk.indexOf(0);
      if (nul >= 0) throw new CsvFileError('csv_binary', { byte: offset + nul + 1 });
      try {
        yield decoder.decode(chunk, { stream: true });
      } catch {
        throw new CsvFileError('csv_not_utf8', { byte: offset + 1 });
      }
      offset += chunk.length;
    }
    decoder.decode();
  } catch (error) {
    if (error instanceof CsvFileError) throw error;
    if (error instanceof TypeError) throw new CsvFileError('csv_cut_character');
    throw new CsvFileError('csv_unreadable', { detail: (error as NodeJS.ErrnoException).code ?? (error as Error).message });
  }
}

/** The delimiter of the header line: the most frequent of comma, semicolon and tab outside quotes (a comma on a tie). */
function delimiterOf(firstText: string): string {
  const counts = new Map([
    [',', 0],
    [';', 0],
    ['\t', 0],
  ]);
  let quoted = false;
  for (const char of firstText) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) break;
    else if (!quoted && counts.has(char)) counts.set(char, (counts.get(char) as number) + 1);
  }
  return [...counts].reduce((best, entry) => (entry[1] > best[1] ? entry : best))[0];
}

const isBlank = (cells: readonly string[]) => cells.every((cell) => cell.trim() === '');

/** The rows of the file at `path`, blank ones left out; throws `CsvFileError`. */
export async function* readCsvRows(path: string): AsyncGenerator<CsvRow> {
  const text = textOf(path);
  const first = await text.next();
  if (first.done === true) return;
  const parser = parse({
    delimiter: delimiterOf(first.value),
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: MAX_ROW_BYTES,
    info: true,
  });
  async function* all(): AsyncGenerator<string> {
    yield first.value as string;
    yield* text;
  }
  // Errors of the text end the parser, and reach the loop below.
  pipeline(Readable.from(all()), parser, () => undefined);
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (isBlank(record)) continue;
      const breaks = record.reduce((sum, cell) => sum + (cell.match(/\r\n|\r|\n/g)?.length ?? 0), 0);
      yield { line: info.lines - breaks, cells: record };
    }
  } catch (error) {
    if (error instanceof CsvFileError) throw error;
    throw new CsvFileError('csv_malformed', { detail: (error as Error).message });
  }
}
