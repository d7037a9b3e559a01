import { createHash } from 'node:crypto';
import { ImportProblemError, type ImportProblemCode, type ProblemParams } from '../common/import-problems.ts';
import type { CsvKind, Columns } from './csv.columns.ts';
import { DateTextProblem, parseDateTimeText, parseTimeText, type DateOrder } from './csv.dates.ts';

/**
 * A CSV row → what the API would be sent for it. Only the columns a file has are written: an empty cell in one of
 * them clears the field, so that a row emptied in the spreadsheet empties it here too. Venues and organizers are
 * named, and found or created when the row is written.
 */

/** A cell the row cannot be imported with: the field of its column and why. */
export class RowProblem extends ImportProblemError {
  constructor(
    readonly field: string,
    code: ImportProblemCode,
    params: ProblemParams = {},
  ) {
    super(code, params);
  }
}

export interface ImportRow {
  /**
   * Where the item came from, stable across runs: its id column when the file has one (`id:…`), else for an event
   * its name and start (`name:` and a hash of both), for a venue or organizer its name without case.
   */
  readonly key: string;
  /** The API write's fields, without the links. */
  readonly body: Readonly<Record<string, unknown>>;
  /** An event's venue, by name; null when its cell is empty; absent without the column. */
  readonly venue?: string | null;
  /** An event's organizers: their names separated by commas (csv.import.ts reads it). */
  readonly organizers?: string;
}

type Cells = (field: string) => string | undefined;

function cellsOf(cells: readonly string[], columns: Columns): Cells {
  return (field) => {
    const column = columns.index.get(field);
    return column === undefined ? undefined : (cells[column] ?? '').trim();
  };
}

const TRUE = new Set(['1', 'true', 'yes', 'y', 'x', 'si', 'sì', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'n', 'off', '']);

function booleanOf(cell: Cells, field: string): boolean | undefined {
  const text = cell(field);
  if (text === undefined) return undefined;
  const lower = text.toLowerCase();
  if (TRUE.has(lower)) return true;
  if (FALSE.has(lower)) return false;
  throw new RowProblem(field, 'csv_not_yes_no', { value: text });
}

const listOf = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

function guarded<T>(field: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof DateTextProblem) throw new RowProblem(field, error.problem.code, error.problem.params);
    throw error;
  }
}

const hashOf = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

/** The fields whose column is in the file, with their cells; `as` renames a field for the API. */
function present(cell: Cells, fields: readonly string[], as: Readonly<Record<string, string>> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of fields) {
    const text = cell(field);
    if (text !== undefined) body[as[field] ?? field] = text;
  }
  return body;
}

function requiredName(cell: Cells, field: string): string {
  const name = cell(field);
  if (name === undefined || name === '') throw new RowProblem(field, 'csv_name_empty');
  return name;
}

function keyOf(cell: Cells, otherwise: () => string): string {
  const id = cell('id');
  return id !== undefined && id !== '' ? `id:${id}` : otherwise();
}

/** The cost with its currency symbol where the file gives it apart (`20` and `€`): the API reads the symbol from the cost. */
function costOf(cell: Cells): string | undefined {
  return costWithSymbol(cell('cost'), cell('currency_symbol'), cell('currency_position'));
}

/** A cost and the currency symbol given apart, before it or (`suffix`, `postfix`, `after`) after it: one text. */
export function costWithSymbol(cost: string | undefined, symbol = '', position = ''): string | undefined {
  if (cost === undefined || symbol === '' || !/\d/.test(cost) || cost.includes(symbol)) return cost;
  const after = ['suffix', 'postfix', 'after'].includes(position.toLowerCase());
  return after ? `${cost}${symbol}` : `${symbol}${cost}`;
}

const wallTime = (date: string, time: string) => `${date} ${time}`;

function scheduleOf(cell: Cells, order: DateOrder | undefined): Record<string, unknown> {
  const startText = cell('start_date');
  if (startText === undefined || startText === '') throw new RowProblem('start_date', 'csv_start_empty');
  const start = guarded('start_date', () => parseDateTimeText(startText, order));
  const startTimeText = cell('start_time');
  const startTime = startTimeText ? guarded('start_time', () => parseTimeText(startTimeText)) : (start.time ?? '00:00:00');
  const endText = cell('end_date');
  const end = endText ? guarded('end_date', () => parseDateTimeText(endText, order)) : undefined;
  const endTimeText = cell('end_time');
  const endDate = end?.date ?? start.date;
  const endTime = endTimeText ? guarded('end_time', () => parseTimeText(endTimeText)) : (end?.time ?? startTime);
  const allDay = booleanOf(cell, 'all_day') ?? false;
  const startsAt = wallTime(start.date, allDay ? '00:00:00' : startTime);
  const endsAt = wallTime(endDate, allDay ? '23:59:59' : endTime);
  if (endsAt < startsAt) throw new RowProblem(endText ? 'end_date' : 'end_time', 'csv_ends_before_start', { end: endsAt, start: startsAt });
  return { start_date: startsAt, end_date: endsAt, all_day: allDay };
}

const EVENT_FLAGS = ['hide_from_listings', 'sticky', 'featured', 'show_map', 'show_map_link'];

function eventRow(cell: Cells, order: DateOrder | undefined): ImportRow {
  const title = requiredName(cell, 'title');
  const schedule = scheduleOf(cell, order);
  const body: Record<string, unknown> = {
    title,
    ...schedule,
    ...present(cell, ['description', 'excerpt', 'timezone', 'website', 'image']),
  };
  const cost = costOf(cell);
  if (cost !== undefined) body.cost = cost;
  for (const field of ['categories', 'tags']) {
    const text = cell(field);
    if (text !== undefined) body[field] = listOf(text);
  }
  const status = cell('status');
  if (status) body.status = status.toLowerCase();
  for (const flag of EVENT_FLAGS) {
    const value = cell(flag) ? booleanOf(cell, flag) : undefined;
    if (value !== undefined) body[flag] = value;
  }
  const venue = cell('venue');
  const organizers = cell('organizers');
  return {
    key: keyOf(cell, () => `name:${hashOf(`${title.toLowerCase()}\n${String(schedule.start_date)}`)}`),
    body,
    ...(venue === undefined ? {} : { venue: venue === '' ? null : venue }),
    ...(organizers === undefined ? {} : { organizers }),
  };
}

function coordinateOf(cell: Cells, field: string, limit: number): number | undefined {
  const text = cell(field);
  if (text === undefined || text === '') return undefined;
  const value = Number(text.replace(',', '.'));
  if (!Number.isFinite(value) || Math.abs(value) > limit) throw new RowProblem(field, 'csv_not_coordinate', { value: text, limit });
  return value;
}

function venueRow(cell: Cells): ImportRow {
  const name = requiredName(cell, 'venue');
  const body: Record<string, unknown> = {
    venue: name,
    ...present(cell, ['description', 'address', 'city', 'stateprovince', 'zip', 'country', 'phone', 'website', 'image']),
  };
  const second = cell('address2');
  if (second) body.address = [body.address, second].filter((part) => part !== undefined && part !== '').join(', ');
  const lat = coordinateOf(cell, 'geo_lat', 90);
  const lng = coordinateOf(cell, 'geo_lng', 180);
  if ((lat === undefined) !== (lng === undefined)) throw new RowProblem(lat === undefined ? 'geo_lat' : 'geo_lng', 'csv_coordinates_apart');
  if (lat !== undefined) Object.assign(body, { geo_lat: lat, geo_lng: lng });
  return { key: keyOf(cell, () => `name:${name.toLowerCase()}`), body };
}

function organizerRow(cell: Cells): ImportRow {
  const name = requiredName(cell, 'organizer');
  const body = { organizer: name, ...present(cell, ['description', 'email', 'website', 'phone', 'image']) };
  return { key: keyOf(cell, () => `name:${name.toLowerCase()}`), body };
}

/** The item of a row of a `kind` file; throws `RowProblem`. */
export function rowOf(kind: CsvKind, cells: readonly string[], columns: Columns, order: DateOrder | undefined): ImportRow {
  const cell = cellsOf(cells, columns);
  if (kind === 'events') return eventRow(cell, order);
  return kind === 'venues' ? venueRow(cell) : organizerRow(cell);
}

/** What a second run compares to tell an unchanged row: a digest of what the row writes. */
export function digestOf(row: ImportRow): string {
  return hashOf(JSON.stringify([row.body, row.venue ?? null, row.organizers ?? null]));
}
