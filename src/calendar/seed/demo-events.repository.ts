import { CompiledQuery, type Insertable, type Kysely } from 'kysely';
import type { Database, Db } from '../../platform/db/schema.ts';
import type { TermTable, TranslatableType } from '../calendar.tables.ts';
import '../calendar.tables.ts';

/** Tables the demo loader fills in bulk. */
export type BulkTable = 'venues' | 'organizers' | 'events' | 'event_organizers' | 'event_terms' | 'translations' | 'slugs';
export type BulkRow<T extends BulkTable> = Required<Insertable<Database[T]>>;

// Under SQLite's 32,766 and PostgreSQL's 65,535 bound parameters for the widest table (events, 30 columns).
const MAX_PARAMETERS = 15_000;
const MAX_ROWS = 500;

/**
 * Multi-row INSERT statements for one table. The SQL of a batch is compiled
 * once per (table, row count) and reused with new parameters, so a million
 * rows cost a few thousand executions and no per-row query building.
 * Rows are buffered until `flush()`, so the caller decides the order tables
 * are written in (foreign keys) and flushes before the transaction commits.
 */
export class BulkInsert<T extends BulkTable> {
  private readonly rowsPerStatement: number;
  private readonly statements = new Map<number, string>();
  private pending: unknown[] = [];
  private pendingRows = 0;

  constructor(
    private readonly table: T,
    private readonly columns: readonly (keyof BulkRow<T> & string)[],
    /** Slugs are claimed WordPress-style elsewhere; in bulk a taken slug is skipped rather than failing the load. */
    private readonly ignoreConflicts = false,
  ) {
    this.rowsPerStatement = Math.min(MAX_ROWS, Math.floor(MAX_PARAMETERS / columns.length));
  }

  add(row: BulkRow<T>): void {
    for (const column of this.columns) this.pending.push(row[column]);
    this.pendingRows += 1;
  }

  async flush(db: Db): Promise<void> {
    const width = this.columns.length;
    for (let first = 0; first < this.pendingRows; first += this.rowsPerStatement) {
      const count = Math.min(this.rowsPerStatement, this.pendingRows - first);
      const parameters = this.pending.slice(first * width, (first + count) * width);
      await db.executeQuery(CompiledQuery.raw(this.statementFor(db, count), parameters));
    }
    this.pending = [];
    this.pendingRows = 0;
  }

  private statementFor(db: Db, rows: number): string {
    let statement = this.statements.get(rows);
    if (statement === undefined) {
      const placeholder = Object.fromEntries(this.columns.map((column) => [column, null]));
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a generic table: the row type is checked in add()
      let query = (db as Kysely<any>).insertInto(this.table).values(Array.from({ length: rows }, () => placeholder));
      if (this.ignoreConflicts) query = query.onConflict((oc) => oc.doNothing());
      statement = query.compile().sql;
      this.statements.set(rows, statement);
    }
    return statement;
  }
}

/** Takes `count` fresh ids from the shared post id sequence (safe alongside a running server). */
export async function insertTerm(db: Db, term: Insertable<TermTable>): Promise<number> {
  const row = await db.insertInto('terms').values(term).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** slug → owner id, for the slugs of one resource type that already exist. */
export async function findSlugOwners(db: Db, type: TranslatableType, slugs: readonly string[]): Promise<Map<string, number>> {
  const owners = new Map<string, number>();
  for (let offset = 0; offset < slugs.length; offset += MAX_ROWS) {
    const rows = await db
      .selectFrom('slugs')
      .select(['slug', 'resource_id'])
      .where('resource_type', '=', type)
      .where('slug', 'in', slugs.slice(offset, offset + MAX_ROWS))
      .execute();
    for (const row of rows) owners.set(row.slug, row.resource_id);
  }
  return owners;
}

/** The first administrator, the author of the demo content (null on a database without users). */
export async function findFirstAdministratorId(db: Db): Promise<number | null> {
  const row = await db.selectFrom('users').select('id').where('role', '=', 'administrator').orderBy('id').executeTakeFirst();
  return row?.id ?? null;
}

/** Events stored: single events and series, not the occurrences of series. */
export async function countEvents(db: Db): Promise<number> {
  return countEventRows(db, 'is');
}

/** Occurrences of series stored, in all. */
export async function countOccurrences(db: Db): Promise<number> {
  return countEventRows(db, 'is not');
}

// Occurrences are the rows with an original start.
async function countEventRows(db: Db, originalStart: 'is' | 'is not'): Promise<number> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('original_start_utc', originalStart, null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The ids of the events that are neither series nor occurrences, in order. */
export async function findSingleEventIds(db: Db): Promise<number[]> {
  const rows = await db
    .selectFrom('events')
    .select('id')
    .where('recurrence', 'is', null)
    .where('parent_id', 'is', null)
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}
