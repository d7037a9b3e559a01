import type { Generated } from 'kysely';

/** The entity-management back-end: types, field maps, generic records and stored actions, all data. */
declare module '../platform/db/schema.ts' {
  interface Database {
    em_entity_types: EntityTypeTable;
    em_fields: FieldTable;
    em_records: RecordTable;
    em_record_values: RecordValueTable;
    em_actions: ActionTable;
    em_definitions_version: DefinitionsVersionTable;
  }
}

/** Bumped by every write to records and their values (migration 2026-11-24T0200). */
declare module '../platform/db/revisions.ts' {
  interface RevisionNames {
    entities: true;
  }
}

export interface EntityTypeTable {
  /** Internal code, byte-exact UTF-8 (`H3£TDO`). */
  code: string;
  /** Readable name (`Customers`). */
  name: string;
  /** Lower-case plural path segment (`customers`). */
  segment: string;
  description: string;
  position: number;
}

export interface FieldTable {
  entity_code: string;
  code: string;
  /** Readable name; `null` leaves the field unmapped (clients see its code). */
  name: string | null;
  type: string;
  description: string;
  position: number;
}

export interface RecordTable {
  id: Generated<number>;
  entity_code: string;
  record_key: string;
  /** The record's values as a JSON object keyed by field code: what reads return. */
  data: string;
  /** Its text values, lower-cased and joined by U+001F: what `q` scans. */
  search_text: string;
}

/**
 * One row per non-null value of a record: the index that filters and sorts
 * use (see docs/adr/0006-entity-records-storage.md). Strings go to
 * `text_value`, numbers and booleans (0/1) to `number_value`.
 */
export interface RecordValueTable {
  record_id: number;
  entity_code: string;
  field_code: string;
  record_key: string;
  text_value: string | null;
  number_value: number | null;
}

export interface ActionTable {
  code: string;
  description: string;
  /** JSON array of parameter declarations. */
  params: string;
  /** JSON command (see docs/entity-management.md). */
  command: string;
  updated_at: string;
}

export interface DefinitionsVersionTable {
  id: number;
  version: number;
}
