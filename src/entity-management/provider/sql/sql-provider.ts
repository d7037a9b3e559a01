import type { Kysely } from 'kysely';
import type { Store } from '../../../platform/db/database.ts';
import type { Database } from '../../../platform/db/schema.ts';
import { EntityErrors } from '../../errors.ts';
import type { EntityBackend, EntityProvider, EntityRecord, FieldValue, ReadQuery, ReadResult, WriteOperation } from '../entity-provider.ts';
import { postgresRecords } from './dialect/postgres.ts';
import type { RecordsDialect } from './dialect/records-dialect.ts';
import { sqliteRecords } from './dialect/sqlite.ts';
import { deleteRecord, findRecord, insertRecord, listRecords, updateRecord, type RecordRow } from './records.repository.ts';

const DEFAULT_PER_PAGE = 20;

function toRecord(row: RecordRow, fields: readonly string[] | undefined): EntityRecord {
  const stored = JSON.parse(row.data) as Record<string, FieldValue>;
  if (fields === undefined) return { key: row.record_key, values: stored };
  const values: Record<string, FieldValue> = {};
  for (const field of fields) if (Object.hasOwn(stored, field)) values[field] = stored[field] ?? null;
  return { key: row.record_key, values };
}

/** The embedded back-end: every entity type in the generic records tables. */
export class SqlEntityProvider implements EntityProvider {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: RecordsDialect,
  ) {}

  async read(entityCode: string, query: ReadQuery): Promise<ReadResult> {
    const perPage = query.perPage ?? DEFAULT_PER_PAGE;
    const { rows, total } = await listRecords(this.db, entityCode, {
      key: query.key,
      filters: query.filters ?? [],
      search: query.search,
      sort: query.sort,
      limit: perPage,
      offset: ((query.page ?? 1) - 1) * perPage,
    });
    return { records: rows.map((row) => toRecord(row, query.fields)), total };
  }

  async write(entityCode: string, operation: WriteOperation, record: EntityRecord): Promise<EntityRecord | null> {
    switch (operation) {
      case 'create':
        if (!(await insertRecord(this.db, entityCode, record.key, record.values))) throw EntityErrors.keyConflict(record.key);
        return record;
      case 'update': {
        const row = await findRecord(this.db, this.dialect, entityCode, record.key, true);
        if (row === undefined) throw EntityErrors.recordNotFound(record.key);
        const merged = { ...(JSON.parse(row.data) as Record<string, FieldValue>), ...record.values };
        await updateRecord(this.db, row, entityCode, merged, Object.keys(record.values));
        return { key: row.record_key, values: merged };
      }
      case 'delete':
        if (!(await deleteRecord(this.db, entityCode, record.key))) throw EntityErrors.recordNotFound(record.key);
        return null;
    }
  }
}

export function recordsDialectOf(store: Store): RecordsDialect {
  return store.dialect === 'postgres' ? postgresRecords : sqliteRecords;
}

/** One transaction per unit of work, on the service's own database. */
export function sqlBackend(store: Store): EntityBackend {
  const dialect = recordsDialectOf(store);
  return {
    transaction: (work) => store.db.transaction().execute((trx) => work(new SqlEntityProvider(trx, dialect))),
    reader: new SqlEntityProvider(store.db, dialect),
  };
}
