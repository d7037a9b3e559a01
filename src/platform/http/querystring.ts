import { parse } from 'fast-querystring';

/**
 * Query strings as WordPress clients send them: `x[]=a&x[]=b` and repeated
 * keys become arrays under `x`; `filter[Name]=v` keeps its bracketed key.
 * Returns a prototype-free object so `__proto__` is just another key.
 * fast-querystring (Fastify's own parser) does the splitting and decoding: it
 * is several times faster than URLSearchParams on every request, and keeps a
 * malformed percent-escape as written rather than replacing it with U+FFFD.
 */
export function parseQuerystring(query: string): Record<string, string | string[]> {
  const parsed = parse(query) as Record<string, string | string[]>;
  const result: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const rawKey in parsed) {
    const value = parsed[rawKey] as string | string[];
    const isList = rawKey.endsWith('[]');
    const key = isList ? rawKey.slice(0, -2) : rawKey;
    if (key === '') continue;
    const existing = result[key];
    const values = Array.isArray(value) ? value : [value];
    if (existing === undefined) result[key] = isList || values.length > 1 ? [...values] : value;
    else result[key] = [...(Array.isArray(existing) ? existing : [existing]), ...values];
  }
  return result;
}
