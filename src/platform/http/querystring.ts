/**
 * Query strings as WordPress clients send them: `x[]=a&x[]=b` and repeated
 * keys become arrays under `x`; `filter[Name]=v` keeps its bracketed key.
 * Returns a prototype-free object so `__proto__` is just another key.
 */
export function parseQuerystring(query: string): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const [rawKey, value] of new URLSearchParams(query)) {
    const isList = rawKey.endsWith('[]');
    const key = isList ? rawKey.slice(0, -2) : rawKey;
    if (key === '') continue;
    const existing = result[key];
    if (existing === undefined) result[key] = isList ? [value] : value;
    else if (Array.isArray(existing)) existing.push(value);
    else result[key] = [existing, value];
  }
  return result;
}
