import type { CompiledQuery } from 'kysely';

/** `in (?, ?, …)` as Kysely writes a list of values (`not in` included). */
const VALUE_LIST = /\bin \((\?(?:, \?)*)\)/g;

/**
 * Values of one list bound per statement when `inParts` splits it: SQLite binds at most 32,766 values to one
 * statement (a list may be bound twice), and spreading a list of 100,000 into one call's arguments overflows
 * the stack.
 */
export const VALUES_PER_PART = 1000;

/** `read` of `values` a part at a time, each part its own statements, the parts' rows in order. */
export async function inParts<T, R>(values: readonly T[], read: (part: readonly T[]) => Promise<readonly R[]>): Promise<R[]> {
  if (values.length <= VALUES_PER_PART) return [...(await read(values))];
  const rows: R[] = [];
  for (let start = 0; start < values.length; start += VALUES_PER_PART) {
    for (const row of await read(values.slice(start, start + VALUES_PER_PART))) rows.push(row);
  }
  return rows;
}

/** The next power of two at or above `length`. */
export function listBucket(length: number): number {
  return length <= 1 ? length : 2 ** Math.ceil(Math.log2(length));
}

/** `values` grown to their bucket by repeating the last one (for lists the application spells out itself). */
export function bucketed<T>(values: readonly T[]): T[] {
  const size = listBucket(values.length);
  return [...values, ...Array.from({ length: size - values.length }, () => values[values.length - 1] as T)];
}

/**
 * The query with each `in (…)` list of n placeholders grown to the next
 * power of two, its last value repeated: the same set, so the same rows.
 * Clients choose the length of id lists (up to 1,000 parameters), and each
 * length was a statement text of its own — on SQLite a prepared statement
 * whose memory lives outside the V8 heap and returns only when the collector
 * happens to finalize it. Bucketed, a call site has about ten shapes instead
 * of a thousand (issue 19.4). Every value is a placeholder in the SQL the
 * application writes, so a `?` is always one.
 */
export function boundListShapes(query: CompiledQuery): CompiledQuery {
  if (!query.sql.includes('in (?')) return query;
  const parameters: unknown[] = [];
  let text = '';
  let position = 0;
  let used = 0;
  for (const match of query.sql.matchAll(VALUE_LIST)) {
    const before = query.sql.slice(position, match.index);
    const placeholdersBefore = before.split('?').length - 1;
    parameters.push(...query.parameters.slice(used, used + placeholdersBefore));
    used += placeholdersBefore;
    const length = (match[1]!.length + 2) / 3;
    const size = listBucket(length);
    const values = query.parameters.slice(used, used + length);
    used += length;
    parameters.push(...values, ...Array.from({ length: size - length }, () => values[length - 1]));
    text += `${before}in (${Array.from({ length: size }, () => '?').join(', ')})`;
    position = match.index + match[0].length;
  }
  parameters.push(...query.parameters.slice(used));
  return { ...query, sql: text + query.sql.slice(position), parameters };
}
