import Type from 'typebox';
import { parseDate, type Stamp } from '../common/dates.ts';
import { invalidParam } from '../common/wire.ts';

/**
 * `modified_after` and `modified_before`, WordPress's list arguments (5.7)
 * on every post list: ISO 8601 moments, in UTC unless an offset is given,
 * compared with the last modification (both bounds exclusive, as
 * WordPress's date queries). A client mirroring the calendar asks for what
 * changed since its last read.
 */

// The date, optionally a time and an offset; the calendar check (no 30 February) is parseDate's.
const ISO_8601 = '^\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?)?(Z|[+-]\\d{2}:?\\d{2})?$';

const moment = (description: string) =>
  Type.Optional(Type.String({ pattern: ISO_8601, description: `${description} (ISO 8601; UTC unless an offset is given)` }));

export const ModifiedQueryProperties = {
  modified_after: moment('Only items last modified after this moment'),
  modified_before: moment('Only items last modified before this moment'),
};

/** The bounds as UTC stamps, compared with `modified_utc`. */
export interface ModifiedBounds {
  readonly modifiedAfter?: Stamp;
  readonly modifiedBefore?: Stamp;
}

export function modifiedBounds(query: { readonly modified_after?: string; readonly modified_before?: string }): ModifiedBounds {
  const utc = (name: 'modified_after' | 'modified_before'): Stamp | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    const parsed = parseDate(value, 'UTC');
    if (parsed === undefined) throw invalidParam(name, `Invalid date: ${name}.`);
    return parsed.utc;
  };
  const bounds = { modifiedAfter: utc('modified_after'), modifiedBefore: utc('modified_before') };
  return Object.fromEntries(Object.entries(bounds).filter(([, value]) => value !== undefined));
}
