import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../../platform/db/schema.ts';
import type { FieldFilter, FieldValue, RecordSort } from '../entity-provider.ts';
import type { RecordsDialect } from './dialect/records-dialect.ts';

/** A stored record as the repository returns it: `data` is still JSON text. */
export interface RecordRow {
  readonly id: number;
  readonly record_key: string;
  readonly data: string;
}

export interface ListCriteria {
  readonly key?: string;
  readonly filters: readonly FieldFilter[];
  readonly search?: string;
  readonly sort?: RecordSort;
  readonly limit: number;
  readonly offset: number;
}

/** Where a scalar lives in `em_record_values`: strings as text, numbers and booleans (0/1) as numbers. */
function indexedValue(value: string | number | boolean): { column: 'text_value' | 'number_value'; value: string | number } {
  if (typeof value === 'string') return { column: 'text_value', value };
  return { column: 'number_value', value: typeof value === 'boolean' ? Number(value) : value };
}

function valueRows(recordId: number, entityCode: string, key: string, values: Readonly<Record<string, FieldValue>>) {
  return Object.entries(values)
    .filter((entry): entry is [string, string | number | boolean] => entry[1] !== null)
    .map(([field, value]) => {
      const indexed = indexedValue(value);
      return {
        record_id: recordId,
        entity_code: entityCode,
        field_code: field,
        record_key: key,
        text_value: indexed.column === 'text_value' ? (indexed.value as string) : null,
        number_value: indexed.column === 'number_value' ? (indexed.value as number) : null,
      };
    });
}

function matches(alias: string, filter: FieldFilter): RawBuilder<unknown> {
  const { column, value } = indexedValue(filter.value);
  return sql`${sql.ref(`${alias}.field_code`)} = ${filter.field} and ${sql.ref(`${alias}.${column}`)} = ${value}`;
}

const SEARCH_SEPARATOR = '\u001f';

/** What `q` scans: text values lower-cased here, as the pattern is, so both databases fold case alike. */
function searchTextOf(values: Readonly<Record<string, FieldValue>>): string {
  return Object.values(values)
    .filter((value): value is string => typeof value === 'string')
    .map((value) => value.toLowerCase())
    .join(SEARCH_SEPARATOR);
}

function likePattern(search: string): string {
  return `%${search.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/**
 * Lists one type's records. With filters, the first one drives the query
 * through the `(entity_code, field_code, value, record_key)` index, which
 * also yields key order; without, the `(entity_code, record_key)` unique
 * index does. Other filters are probes on the primary key of the values;
 * `q` scans the type's records (a substring match cannot use a B-tree).
 */
export async function listRecords(db: Db, entityCode: string, criteria: ListCriteria): Promise<{ rows: RecordRow[]; total: number }> {
  const [first, ...rest] = criteria.filters;
  const anchorId = first === undefined ? sql.ref('r.id') : sql.ref('f0.record_id');
  const anchorKey = first === undefined ? sql.ref('r.record_key') : sql.ref('f0.record_key');
  const conditions: RawBuilder<unknown>[] =
    first === undefined ? [sql`r.entity_code = ${entityCode}`] : [sql`f0.entity_code = ${entityCode}`, matches('f0', first)];
  for (const filter of rest) {
    conditions.push(sql`exists (select 1 from em_record_values f where f.record_id = ${anchorId} and ${matches('f', filter)})`);
  }
  if (criteria.key !== undefined) conditions.push(sql`${anchorKey} = ${criteria.key}`);
  const searching = criteria.search !== undefined && criteria.search !== '';
  if (searching) conditions.push(sql`r.search_text like ${likePattern(criteria.search ?? '')} escape '\\'`);
  const where = sql.join(conditions, sql` and `);
  const from = first === undefined ? sql`em_records r` : sql`em_record_values f0`;
  const join = first === undefined ? sql`` : sql`join em_records r on r.id = f0.record_id`;

  const sort = criteria.sort;
  const direction = sort?.descending === true ? sql`desc` : sql`asc`;
  const sortJoin =
    sort?.field === undefined ? sql`` : sql`left join em_record_values sv on sv.record_id = r.id and sv.field_code = ${sort.field}`;
  // Records without the sort field come last either way; a string field has no number_value and vice versa.
  const order =
    sort?.field === undefined
      ? sql`${anchorKey} ${direction}`
      : sql`(sv.record_id is null) asc, sv.number_value ${direction}, sv.text_value ${direction}, r.record_key asc`;

  const select = (limit: number, offset: number) =>
    sql<RecordRow>`select r.id, r.record_key, r.data from ${from} ${join} ${sortJoin}
    where ${where} order by ${order} limit ${limit} offset ${offset}`.execute(db);

  // A key matches at most one record: get-by-key is one unique-index probe, with no count.
  if (criteria.key !== undefined) {
    const { rows } = await select(1, 0);
    return { rows: criteria.offset === 0 ? rows : [], total: rows.length };
  }
  // Counting filtered records needs only the values index, unless the search reads the records.
  const counted = await sql<{ total: number | string }>`select count(*) as total from ${from} ${searching ? join : sql``}
    where ${where}`.execute(db);
  const total = Number(counted.rows[0]?.total ?? 0);
  if (total === 0 || criteria.offset >= total) return { rows: [], total };
  return { rows: (await select(criteria.limit, criteria.offset)).rows, total };
}

/** One record by key; `lock` holds it for a write later in the same transaction. */
export async function findRecord(
  db: Db,
  dialect: RecordsDialect,
  entityCode: string,
  key: string,
  lock: boolean,
): Promise<RecordRow | undefined> {
  const result = await sql<RecordRow>`select id, record_key, data from em_records
    where entity_code = ${entityCode} and record_key = ${key} ${lock ? dialect.lockRow : sql``}`.execute(db);
  return result.rows[0];
}

/** Inserts a record and its index rows; `false` when the key is taken (nothing written). */
export async function insertRecord(
  db: Db,
  entityCode: string,
  key: string,
  values: Readonly<Record<string, FieldValue>>,
): Promise<boolean> {
  // ON CONFLICT DO NOTHING keeps a PostgreSQL transaction usable after a conflict.
  const inserted = await db
    .insertInto('em_records')
    .values({ entity_code: entityCode, record_key: key, data: JSON.stringify(values), search_text: searchTextOf(values) })
    .onConflict((conflict) => conflict.columns(['entity_code', 'record_key']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted === undefined) return false;
  const rows = valueRows(inserted.id, entityCode, key, values);
  if (rows.length > 0) await db.insertInto('em_record_values').values(rows).execute();
  return true;
}

/** Replaces a record's values; `changed` are the fields whose index rows must be rewritten. */
export async function updateRecord(
  db: Db,
  row: RecordRow,
  entityCode: string,
  values: Readonly<Record<string, FieldValue>>,
  changed: readonly string[],
): Promise<void> {
  await db
    .updateTable('em_records')
    .set({ data: JSON.stringify(values), search_text: searchTextOf(values) })
    .where('id', '=', row.id)
    .execute();
  if (changed.length === 0) return;
  await db.deleteFrom('em_record_values').where('record_id', '=', row.id).where('field_code', 'in', changed).execute();
  const changedValues = Object.fromEntries(changed.map((field) => [field, values[field] ?? null]));
  const rows = valueRows(row.id, entityCode, row.record_key, changedValues);
  if (rows.length > 0) await db.insertInto('em_record_values').values(rows).execute();
}

/** Deletes a record (its index rows cascade); `false` when there was none. */
export async function deleteRecord(db: Db, entityCode: string, key: string): Promise<boolean> {
  const result = await db.deleteFrom('em_records').where('entity_code', '=', entityCode).where('record_key', '=', key).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
