import { EntityErrors } from '../errors.ts';
import type { EntityRecord, FieldValue } from '../provider/entity-provider.ts';
import { wireName, type EntityMapping, type FieldDefinition, type FieldType } from './catalog.ts';

/** A record as clients see it: `key` plus readable names (unmapped fields under their codes). */
export type WireRecord = Record<string, FieldValue>;

const NUMBER = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * A client's value for a field of `type`, or a reason it does not fit.
 * Form bodies and query strings carry only strings, so numeric and boolean
 * strings are accepted for number and boolean fields; a number must be finite.
 */
export function toFieldValue(type: FieldType, value: unknown): { value: FieldValue } | { problem: string } {
  if (value === null) return { value: null };
  switch (type) {
    case 'string':
      if (typeof value !== 'string') return { problem: 'must be a string' };
      // PostgreSQL text cannot hold NUL; refusing it everywhere keeps both databases alike.
      return value.includes('\u0000') ? { problem: 'must not contain NUL characters' } : { value };
    case 'number': {
      const number =
        typeof value === 'number' ? value : typeof value === 'string' && NUMBER.test(value.trim()) ? Number(value.trim()) : undefined;
      if (number === undefined) return { problem: 'must be a number' };
      // `"1e309"` reads as Infinity: stored as JSON it would be null, while the filter and sort index held Inf.
      return Number.isFinite(number) ? { value: number } : { problem: 'must be a finite number' };
    }
    case 'boolean':
      if (typeof value === 'boolean') return { value };
      if (value === 'true' || value === 'false') return { value: value === 'true' };
      return { problem: 'must be true or false' };
  }
}

/** Internal values → the client's names. A stored code that the map does not know is returned as is. */
export function toWireRecord(mapping: EntityMapping, record: EntityRecord): WireRecord {
  return Object.fromEntries([
    ['key', record.key],
    ...Object.entries(record.values).map(([code, value]) => {
      const field = mapping.fieldByCode(code);
      return [field === undefined ? code : wireName(field), value] as const;
    }),
  ]);
}

/**
 * A write body (readable names, unmapped codes) → values by internal code.
 * `key` is left to the caller. Unknown names are a 400 `FIELD_UNKNOWN`;
 * values that do not fit their field, one 400 `INVALID_PARAMETER` naming each.
 */
export function toInternalValues(mapping: EntityMapping, body: Readonly<Record<string, unknown>>): Record<string, FieldValue> {
  const fields: [FieldDefinition, unknown][] = [];
  for (const [name, value] of Object.entries(body)) {
    if (name !== 'key') fields.push([mapping.field(name), value]);
  }
  const problems: Record<string, string> = {};
  const values: [string, FieldValue][] = [];
  for (const [field, raw] of fields) {
    const converted = toFieldValue(field.type, raw);
    if ('problem' in converted) problems[wireName(field)] = converted.problem;
    else values.push([field.code, converted.value]);
  }
  if (Object.keys(problems).length > 0) throw EntityErrors.invalidParameter(problems);
  return Object.fromEntries(values);
}
