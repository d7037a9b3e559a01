import type { EntityContext } from './context.ts';
import type { ListMeta } from './envelope.ts';
import { EntityErrors } from './errors.ts';
import type { EntityMapping } from './mapping/catalog.ts';
import { toFieldValue, toInternalValues, toWireRecord, type WireRecord } from './mapping/record.mapper.ts';
import type { FieldFilter, ReadQuery, RecordSort } from './provider/entity-provider.ts';

export interface ListRequest {
  readonly page: number;
  readonly perPage: number;
  readonly fields?: string | readonly string[];
  readonly sort?: string;
  readonly q?: string;
  /** `filter[Name]=value` pairs as sent (a repeated one arrives as an array). */
  readonly filters: ReadonlyArray<readonly [name: string, value: string | readonly string[]]>;
}

const CONTROL_CHARACTER = /\p{Cc}/u;

/** `fields` as sent (comma-separated or repeated) → field codes; `undefined` for all fields. */
function projectionOf(mapping: EntityMapping, fields: string | readonly string[] | undefined): string[] | undefined {
  if (fields === undefined) return undefined;
  const names = [fields]
    .flat()
    .flatMap((entry) => entry.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return names.filter((name) => name.toLowerCase() !== 'key').map((name) => mapping.field(name).code);
}

function sortOf(mapping: EntityMapping, sort: string | undefined): RecordSort | undefined {
  if (sort === undefined || sort === '') return undefined;
  const descending = sort.startsWith('-');
  const name = descending ? sort.slice(1) : sort;
  return name.toLowerCase() === 'key' ? { descending } : { field: mapping.field(name).code, descending };
}

/** `filter[Name]` pairs → a key criterion and exact-match filters in internal codes. */
function criteriaOf(mapping: EntityMapping, filters: ListRequest['filters']): { key?: string; filters: FieldFilter[] } {
  const problems = new Map<string, string>();
  const result: FieldFilter[] = [];
  let key: string | undefined;
  for (const [name, raw] of filters) {
    const param = `filter[${name}]`;
    if (typeof raw !== 'string') {
      problems.set(param, 'must be given once');
      continue;
    }
    if (name.toLowerCase() === 'key') {
      key = raw;
      continue;
    }
    const field = mapping.field(name);
    const converted = toFieldValue(field.type, raw);
    if ('problem' in converted) problems.set(param, converted.problem);
    else if (converted.value !== null) result.push({ field: field.code, value: converted.value });
  }
  if (problems.size > 0) throw EntityErrors.invalidParameter(Object.fromEntries(problems));
  return key === undefined ? { filters: result } : { key, filters: result };
}

function bodyKey(body: Readonly<Record<string, unknown>>): string | undefined {
  const key = body.key;
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || key.length === 0 || key.length > 255 || CONTROL_CHARACTER.test(key)) {
    throw EntityErrors.invalidParameter({ key: 'must be a string of 1 to 255 characters without control characters' });
  }
  return key;
}

/** The records of every entity type: reads and writes by readable names, through the back-end of the definitions in use. */
export class EntitiesService {
  constructor(private readonly context: EntityContext) {}

  /** The version of the definitions in use: a read's answer depends on it. */
  definitionsVersion(): number {
    return this.context.definitions.current.version;
  }

  async list(typeName: string, request: ListRequest): Promise<{ records: WireRecord[]; meta: ListMeta }> {
    const mapping = this.resolve(typeName);
    const query: ReadQuery = {
      ...criteriaOf(mapping, request.filters),
      fields: projectionOf(mapping, request.fields),
      sort: sortOf(mapping, request.sort),
      search: request.q,
      page: request.page,
      perPage: request.perPage,
    };
    const { records, total } = await this.context.backend.reader.read(mapping.type.code, query);
    return {
      records: records.map((record) => toWireRecord(mapping, record)),
      meta: { page: request.page, per_page: request.perPage, total, total_pages: Math.ceil(total / request.perPage) },
    };
  }

  async get(typeName: string, key: string, fields: string | readonly string[] | undefined): Promise<WireRecord> {
    const mapping = this.resolve(typeName);
    const query: ReadQuery = { key, perPage: 1, fields: projectionOf(mapping, fields) };
    const [record] = (await this.context.backend.reader.read(mapping.type.code, query)).records;
    if (record === undefined) throw EntityErrors.recordNotFound(key);
    return toWireRecord(mapping, record);
  }

  async create(typeName: string, body: Readonly<Record<string, unknown>>): Promise<WireRecord> {
    const mapping = this.resolve(typeName);
    const key = bodyKey(body);
    if (key === undefined) throw EntityErrors.invalidParameter({ key: 'is required' });
    const record = { key, values: toInternalValues(mapping, body) };
    const created = await this.context.backend.transaction((provider) => provider.write(mapping.type.code, 'create', record));
    return toWireRecord(mapping, created ?? record);
  }

  /** `pathKey` is absent on `PUT /{type}`, where the body's key names the record. */
  async update(typeName: string, pathKey: string | undefined, body: Readonly<Record<string, unknown>>): Promise<WireRecord> {
    const mapping = this.resolve(typeName);
    const sentKey = bodyKey(body);
    if (pathKey !== undefined && sentKey !== undefined && sentKey !== pathKey) throw EntityErrors.keyMismatch(pathKey, sentKey);
    const key = pathKey ?? sentKey;
    if (key === undefined) throw EntityErrors.invalidParameter({ key: 'is required' });
    const record = { key, values: toInternalValues(mapping, body) };
    const updated = await this.context.backend.transaction((provider) => provider.write(mapping.type.code, 'update', record));
    return toWireRecord(mapping, updated ?? record);
  }

  async delete(typeName: string, key: string): Promise<void> {
    const mapping = this.resolve(typeName);
    await this.context.backend.transaction((provider) => provider.write(mapping.type.code, 'delete', { key, values: {} }));
  }

  private resolve(typeName: string): EntityMapping {
    return this.context.definitions.current.catalog.resolve(typeName);
  }
}
