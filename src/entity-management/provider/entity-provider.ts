/**
 * The seam between the API and a back-end. Everything here speaks internal
 * codes (entity `CNCLI`, field `D_I/57`); readable names never get this far.
 * The embedded SQL provider implements it; a remote back-end could too.
 */

/** The values a record field may hold: flat JSON scalars. */
export type FieldValue = string | number | boolean | null;

/** A record: its key (unique per entity type) and its values by field code. */
export interface EntityRecord {
  readonly key: string;
  readonly values: Readonly<Record<string, FieldValue>>;
}

/** Exact match of one field's value. */
export interface FieldFilter {
  readonly field: string;
  readonly value: string | number | boolean;
}

export interface RecordSort {
  /** A field code; absent sorts by key. Records without a value sort last; ties break on the key ascending. */
  readonly field?: string;
  readonly descending: boolean;
}

/** What `read` returns: at most `perPage` records of the page, and how many match in all. */
export interface ReadResult {
  readonly records: readonly EntityRecord[];
  readonly total: number;
}

export interface ReadQuery {
  /** Get by key: matches at most one record (other criteria still apply). */
  readonly key?: string;
  /** All must match. */
  readonly filters?: readonly FieldFilter[];
  /** Case-insensitive substring of any text value. */
  readonly search?: string;
  /** Default: key ascending. */
  readonly sort?: RecordSort;
  /** 1-based; default 1. */
  readonly page?: number;
  /** Default 20. */
  readonly perPage?: number;
  /** Field codes to return; default all. The key is always returned. */
  readonly fields?: readonly string[];
}

export type WriteOperation = 'create' | 'update' | 'delete';

/**
 * The two services of a back-end.
 *
 * `write` semantics, which every implementation must keep:
 * - `create` inserts `record` and returns it; a taken key throws `KEY_CONFLICT`.
 * - `update` merges `record.values` into the stored values (a field sent
 *   replaces, a field omitted stays) and returns the merged record.
 * - `delete` removes the record and returns `null` (`record.values` is ignored).
 * - `update` and `delete` of a missing key throw `RECORD_NOT_FOUND`.
 * Errors are `AppError`s with the surface's codes (see `../errors.ts`).
 */
export interface EntityProvider {
  read(entityCode: string, query: ReadQuery): Promise<ReadResult>;
  write(entityCode: string, operation: WriteOperation, record: EntityRecord): Promise<EntityRecord | null>;
}

/**
 * Where a provider comes from: `transaction` hands `work` a provider whose
 * calls all commit together, or none do when `work` throws. One write
 * request, or one whole action command, is one unit.
 */
export interface EntityBackend {
  transaction<T>(work: (provider: EntityProvider) => Promise<T>): Promise<T>;
  /** Reads outside any transaction, for a request that only reads once (no lock, no round trips to begin and commit). */
  readonly reader: Pick<EntityProvider, 'read'>;
}
