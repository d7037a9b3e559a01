import { basename } from 'node:path';
import type { TSchema } from 'typebox';
import Value from 'typebox/value';
import type { Config } from '../../config/config.ts';
import type { Db } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import { UniqueViolationError } from '../../platform/db/dialect/errors.ts';
import { importProblem, type ImportProblem, type OwnProblem } from '../common/import-problems.ts';
import { refusalProblem, withWriteUnits, type WriteUnit } from '../common/import-transactions.ts';
import { invalidParam } from '../common/wire.ts';
import type { RequestContext } from '../common/context.ts';
import { EventsService } from '../events/events.service.ts';
import { CreateEventBodySchema, type CreateEventBody } from '../events/events.schemas.ts';
import { LinkedPostsService } from '../linked-posts/linked-posts.service.ts';
import type { PostWriteInput } from '../linked-posts/linked-posts.writes.ts';
import { CreateOrganizerBodySchema } from '../organizers/organizers.schemas.ts';
import { organizerKind } from '../organizers/organizers.kind.ts';
import type { PostPasswords } from '../posts/posts.passwords.ts';
import { CreateVenueBodySchema } from '../venues/venues.schemas.ts';
import { venueKind } from '../venues/venues.kind.ts';
import { findOrganizerByName, findVenuesNamed } from '../ical/ical.import.repository.ts';
import { FIELDS, MapError, nameField, parseMap, resolveColumns, unknownMappedFields, type Columns, type CsvKind } from './csv.columns.ts';
import { DATE_ORDERS, type DateOrder } from './csv.dates.ts';
import { CsvFileError, readCsvRows } from './csv.read.ts';
import { digestOf, rowOf, RowProblem, type ImportRow } from './csv.rows.ts';
import * as repository from './imports.repository.ts';

/**
 * Import of CSV files (docs/moving-in.md): venues first, then organizers, then events (which name them). Every
 * file is read through once to check it — a file that is no CSV of its kind is a `CsvImportError` and nothing is
 * written — then again to write each row through the services, as the API would, in a transaction of its own; a
 * row with a problem is an error of the report, with its line and column, and the other rows go on. Each item
 * records its key (csv.rows.ts): the same files imported again update what changed and write nothing else.
 */

const SOURCE = 'csv';
const MAX_LISTED_ERRORS = 1000;
const KINDS: readonly CsvKind[] = ['venues', 'organizers', 'events'];
const SINGULAR: Readonly<Record<CsvKind, string>> = { events: 'event', venues: 'venue', organizers: 'organizer' };
/** The problem of a row that is the same item as an earlier one: by its id column, or by its name (and start). */
const SAME_ID = { events: 'csv_same_event_id', venues: 'csv_same_venue_id', organizers: 'csv_same_organizer_id' } as const;
const SAME_ITEM = { events: 'csv_same_event', venues: 'csv_same_venue', organizers: 'csv_same_organizer' } as const;
const SCHEMAS: Readonly<Record<CsvKind, TSchema>> = {
  events: CreateEventBodySchema,
  venues: CreateVenueBodySchema,
  organizers: CreateOrganizerBodySchema,
};
type LinkedKind = Exclude<CsvKind, 'events'>;
const KIND_OF = { venues: venueKind, organizers: organizerKind } as const;
/** The API's names of event fields whose CSV field is named otherwise. */
const FIELD_OF_PARAM: Readonly<Record<string, string>> = { organizer: 'organizers' };

/**
 * A file that is not a CSV file of its kind (at `path`: nothing is imported), or a setting of the command refused:
 * the one line the command prints.
 */
export class CsvImportError extends Error {
  constructor(
    readonly problem: OwnProblem,
    readonly path?: string,
  ) {
    super(path === undefined ? problem.message : `${path}: ${problem.message}; nothing imported`);
  }
}

export type CsvFiles = Partial<Record<CsvKind, string>>;

export interface CsvImportOptions {
  readonly dateOrder?: DateOrder;
  /** `--map`: normalised header → field. */
  readonly map?: ReadonlyMap<string, string>;
  /** Every row is written, then everything is rolled back: the report says what would happen. */
  readonly dryRun?: boolean;
  readonly onProgress?: (done: number, total: number) => void;
}

export interface CsvCounts {
  created: number;
  updated: number;
  unchanged: number;
}

/** A row not imported: where it is, and the problem (`message`, and its `code` and `params`). */
export interface CsvRowError extends ImportProblem {
  readonly file: string;
  readonly line: number;
  /** 1-based; null when the problem is the row's, not one cell's. */
  readonly column: number | null;
  readonly header: string | null;
}

export interface CsvImportReport {
  readonly events: CsvCounts;
  readonly venues: CsvCounts;
  readonly organizers: CsvCounts;
  /** The rows not imported: the first `MAX_LISTED_ERRORS` found are listed, in file order; `error_count` counts them all. */
  readonly errors: CsvRowError[];
  readonly error_count: number;
  /** Headers of each file that no field reads (map them with --map, or they are not imported). */
  readonly ignored_columns: Partial<Record<CsvKind, string[]>>;
}

export interface CsvImportDeps {
  readonly db: Db;
  readonly config: Config;
  readonly passwords: PostPasswords;
  /** The store's driver-error translation (`Store.translateError`). */
  readonly translateError: (error: unknown) => unknown;
}

type Outcome = keyof CsvCounts;

interface RowVisitor {
  readonly header?: (columns: Columns) => void;
  readonly problem?: (error: CsvRowError) => void;
  readonly row: (columns: Columns, line: number, row: ImportRow) => void | Promise<void>;
}

/** A file's header row and its rows after it. */
async function* rowsOf(
  kind: CsvKind,
  path: string,
  map: ReadonlyMap<string, string>,
): AsyncGenerator<Columns | { line: number; cells: readonly string[] }> {
  let columns: Columns | undefined;
  try {
    for await (const row of readCsvRows(path)) {
      if (columns !== undefined) {
        yield row;
        continue;
      }
      columns = resolveColumns(kind, row.cells, map);
      const name = nameField(kind);
      if (!columns.index.has(name)) {
        const wanted = FIELDS[kind][name]?.[0] ?? name;
        throw new CsvFileError('csv_no_name_column', { line: row.line, header: wanted, field: name });
      }
      yield columns;
    }
  } catch (error) {
    if (error instanceof CsvFileError) throw new CsvImportError(error.problem, path);
    throw error;
  }
  if (columns === undefined) throw new CsvImportError(importProblem('csv_empty'), path);
}

/** A write as the API's schema takes it: what the route would refuse is refused here too, naming the field. */
export function checked<T>(schema: TSchema, body: unknown): T {
  if (Value.Check(schema, body)) return body as T;
  const [first] = Value.Errors(schema, body);
  const param = first?.instancePath.split('/')[1] || 'body';
  throw invalidParam(param, first === undefined ? 'Invalid parameter.' : `${first.instancePath} ${first.message}`);
}

export class CsvImport {
  constructor(private readonly deps: CsvImportDeps) {}

  async importFiles(files: CsvFiles, caller: RequestContext, options: CsvImportOptions = {}): Promise<CsvImportReport> {
    const errors: CsvRowError[] = [];
    let errorCount = 0;
    // A file whose every row is wrong (a wrong --date-order) would otherwise hold one error per row.
    const refuse = (error: CsvRowError) => {
      errorCount += 1;
      if (errors.length < MAX_LISTED_ERRORS) errors.push(error);
    };
    const ignored: Partial<Record<CsvKind, string[]>> = {};
    // The line each key was first seen on: a later row with the same key is an error, not an update of the first.
    const firstLines = new Map<string, number>();
    let total = 0;
    for (const kind of KINDS) {
      const path = files[kind];
      if (path === undefined) continue;
      await this.eachRow(kind, path, options, {
        header: (columns) => {
          if (columns.ignored.length > 0) ignored[kind] = [...columns.ignored];
        },
        problem: refuse,
        row: (_columns, line, row) => {
          total += 1;
          const seen = firstLines.get(`${kind}/${row.key}`);
          if (seen === undefined) firstLines.set(`${kind}/${row.key}`, line);
          else refuse({ file: basename(path), line, column: null, header: null, ...sameItem(kind, row, seen) });
        },
      });
    }
    const counts = { events: zero(), venues: zero(), organizers: zero() };
    await withWriteUnits(this.deps.db, options.dryRun === true, async (unit) => {
      let done = 0;
      for (const kind of KINDS) {
        const path = files[kind];
        if (path === undefined) continue;
        await this.eachRow(kind, path, options, {
          row: async (columns, line, row) => {
            if (firstLines.get(`${kind}/${row.key}`) === line) {
              const outcome = await this.writeRow(unit, kind, row, caller).catch((error: unknown) => {
                refuse(this.errorOf(error, basename(path), line, columns));
                return undefined;
              });
              if (outcome !== undefined) counts[kind][outcome] += 1;
            }
            done += 1;
            options.onProgress?.(done, total);
          },
        });
      }
    });
    errors.sort((a, b) => KINDS.indexOf(kindOfFile(files, a.file)) - KINDS.indexOf(kindOfFile(files, b.file)) || a.line - b.line);
    return { ...counts, errors, error_count: errorCount, ignored_columns: ignored };
  }

  /** Visits the header of a file, then each row: as the item it reads as, or as the problem that keeps it from being one. */
  private async eachRow(kind: CsvKind, path: string, options: CsvImportOptions, visit: RowVisitor): Promise<void> {
    let columns: Columns | undefined;
    for await (const item of rowsOf(kind, path, options.map ?? new Map<string, string>())) {
      if (!('line' in item)) {
        columns = item;
        visit.header?.(columns);
        continue;
      }
      const current = columns as Columns;
      let row: ImportRow;
      try {
        row = rowOf(kind, item.cells, current, options.dateOrder);
      } catch (error) {
        if (!(error instanceof RowProblem)) throw error;
        visit.problem?.(cellError(basename(path), item.line, current, error.field, error.problem));
        continue;
      }
      await visit.row(current, item.line, row);
    }
  }

  private async writeRow(unit: WriteUnit, kind: CsvKind, row: ImportRow, caller: RequestContext): Promise<Outcome> {
    const key = `${SINGULAR[kind]}/${row.key}`;
    const digest = digestOf(row);
    return unit(async (db) => {
      const known = await repository.findImported(db, SOURCE, key);
      if (known !== undefined && known.digest === digest) return 'unchanged';
      const existing = known?.post_id ?? (kind === 'events' ? undefined : await this.named(db, kind, row));
      const id =
        kind === 'events' ? await this.writeEvent(db, row, existing, caller) : await this.writeLinked(db, kind, row, existing, caller);
      if (known === undefined) await repository.insertImported(db, { source: SOURCE, item_key: key, post_id: id, digest });
      else await repository.updateImportedDigest(db, SOURCE, key, digest);
      return existing === undefined ? 'created' : 'updated';
    });
  }

  private async writeEvent(db: Db, row: ImportRow, id: number | undefined, caller: RequestContext): Promise<number> {
    const body = checked<CreateEventBody>(SCHEMAS.events, { ...row.body, ...(await this.links(db, row)) });
    const service = new EventsService({ db, config: this.deps.config, passwords: this.deps.passwords });
    if (id === undefined) return (await service.createEvent(body, caller)).item.id;
    await service.updateEvent({ id }, body, caller);
    return id;
  }

  private async writeLinked(db: Db, kind: LinkedKind, row: ImportRow, id: number | undefined, caller: RequestContext): Promise<number> {
    const service = new LinkedPostsService(KIND_OF[kind], db, this.deps.passwords);
    const body = checked<PostWriteInput>(SCHEMAS[kind], row.body);
    if (id === undefined) return (await service.create(body, caller)).item.id as number;
    await service.update({ id }, body, caller);
    return id;
  }

  /**
   * A venue or organizer already here under a row's name (without an id column), which the row then updates: as an
   * event naming it links to it, rather than to a second one of the same name.
   */
  private async named(db: Db, kind: LinkedKind, row: ImportRow): Promise<number | undefined> {
    if (row.key.startsWith('id:')) return undefined;
    const name = String(row.body[KIND_OF[kind].nameField]);
    return kind === 'venues' ? (await findVenuesNamed(db, name))[0]?.id : findOrganizerByName(db, name);
  }

  /** An event row's venue and organizers: existing ones by name (any case), else new ones the service creates. */
  private async links(db: Db, row: ImportRow): Promise<Pick<CreateEventBody, 'venue' | 'organizer'>> {
    const links: Pick<CreateEventBody, 'venue' | 'organizer'> = {};
    if (row.venue !== undefined)
      links.venue = row.venue === null ? null : ((await findVenuesNamed(db, row.venue))[0]?.id ?? { venue: row.venue });
    if (row.organizers !== undefined) links.organizer = await this.organizersNamed(db, row.organizers);
    return links;
  }

  /**
   * The organizers a cell names, separated by commas: at each place the longest run of names that is one
   * organizer's here (an organizer named with a comma, from the organizers file or already here), else one name,
   * found or made new.
   */
  private async organizersNamed(db: Db, cell: string): Promise<NonNullable<CreateEventBody['organizer']>> {
    const parts = cell.split(',');
    const organizers: Exclude<NonNullable<CreateEventBody['organizer']>, unknown[]>[] = [];
    for (let start = 0; start < parts.length;) {
      let end = parts.length;
      let found: number | undefined;
      for (; end > start + 1; end -= 1) {
        found = await findOrganizerByName(db, parts.slice(start, end).join(',').trim());
        if (found !== undefined) break;
      }
      const name = parts.slice(start, end).join(',').trim();
      if (name !== '') organizers.push(found ?? (await findOrganizerByName(db, name)) ?? { organizer: name });
      start = end;
    }
    return organizers;
  }

  private errorOf(error: unknown, file: string, line: number, columns: Columns): CsvRowError {
    if (error instanceof AppError) {
      const problem = refusalProblem(error);
      const param = problem.params.param === undefined ? undefined : String(problem.params.param);
      return cellError(file, line, columns, param === undefined ? undefined : (FIELD_OF_PARAM[param] ?? param), problem);
    }
    // Two imports of one new item at once: the second one's write is rolled back.
    if (this.deps.translateError(error) instanceof UniqueViolationError)
      return { file, line, column: null, header: null, ...importProblem('csv_taken_meanwhile') };
    throw error;
  }
}

const zero = (): CsvCounts => ({ created: 0, updated: 0, unchanged: 0 });

function sameItem(kind: CsvKind, row: ImportRow, line: number): OwnProblem {
  return importProblem((row.key.startsWith('id:') ? SAME_ID : SAME_ITEM)[kind], { line });
}

function kindOfFile(files: CsvFiles, file: string): CsvKind {
  return KINDS.find((kind) => files[kind] !== undefined && basename(files[kind]) === file) ?? 'events';
}

/** The error of a row, at the column of `field` when the file has one. */
function cellError(file: string, line: number, columns: Columns, field: string | undefined, problem: ImportProblem): CsvRowError {
  const index = field === undefined ? undefined : columns.index.get(field);
  return index === undefined
    ? { file, line, column: null, header: null, ...problem }
    : { file, line, column: index + 1, header: columns.headers[index]?.trim() ?? null, ...problem };
}

/** `--date-order` and `--map` as the import takes them; a `CsvImportError` naming what is wrong. */
export function importSettingsOf(order: string | undefined, mapText: string | undefined): Pick<CsvImportOptions, 'dateOrder' | 'map'> {
  const dateOrder = DATE_ORDERS.find((known) => known === order);
  if (order !== undefined && dateOrder === undefined) throw new CsvImportError(importProblem('csv_date_order', { order }));
  let map: ReadonlyMap<string, string>;
  try {
    map = parseMap(mapText);
  } catch (error) {
    throw error instanceof MapError ? new CsvImportError(error.problem) : error;
  }
  const unknown = unknownMappedFields(map);
  if (unknown.length > 0) throw new CsvImportError(importProblem('csv_map_field', { fields: unknown.join(', ') }));
  return { dateOrder, map };
}

/** The report as the command prints it: the counts, the columns left out, then each error. */
export function csvReportLines(report: CsvImportReport, dryRun: boolean): string[] {
  const counts = KINDS.map(
    (kind) => `${kind}: ${report[kind].created} created, ${report[kind].updated} updated, ${report[kind].unchanged} unchanged`,
  );
  return [
    `${counts.join('; ')}; errors ${report.error_count}${dryRun ? ' (dry run: nothing written)' : ''}`,
    ...Object.entries(report.ignored_columns).map(([kind, headers]) => `${kind}: columns not imported: ${headers.join(', ')}`),
    ...report.errors.map(
      (error) =>
        `${error.file} line ${error.line}${error.column === null ? '' : `, column ${error.column} (${error.header})`}: ${error.message}`,
    ),
    ...(report.error_count > report.errors.length ? [`… and ${report.error_count - report.errors.length} more errors`] : []),
  ];
}
