import fc from 'fast-check';
import type { JsonSchema } from './openapi.ts';

/** Strings that have broken real services: injections, traversal, prototype keys. */
export const INJECTIONS: readonly string[] = [
  "' OR '1'='1",
  "1; DROP TABLE events; --",
  "1' UNION SELECT username, password_hash FROM users --",
  '%',
  '_',
  '\\',
  '%_\\%',
  '"; SELECT pg_sleep(5); --',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '<a href="javascript:alert(1)">x</a>',
  '"><svg/onload=alert(1)>',
  '{{7*7}}',
  '${7*7}',
  '../../../../etc/passwd',
  '..%2f..%2f..%2fetc%2fpasswd',
  '..\\..\\windows\\win.ini',
  '/dev/zero',
  'file:///etc/passwd',
  'http://169.254.169.254/latest/meta-data/',
  '__proto__',
  'constructor',
  'prototype',
  '{"__proto__":{"admin":true}}',
  '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>',
  '$where',
  '{"$gt":""}',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-0',
  'true',
  '[]',
  '{}',
];

/** Unicode that trips naive code: RTL overrides, combining marks, lone surrogates, NUL, astral planes. */
export const UNICODE: readonly string[] = [
  '\u202Egnp.exe',
  'עברית العربية',
  'e\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301',
  'Z̴̡̪̫͎̈́͌a̸̢͔͐l̶͍̈́g̷̱̏o̴̙͑',
  '\uD800',
  '\uDFFF',
  'a\uD83Db',
  '\u0000',
  'a\u0000b',
  '\u200B\u200C\u200D\uFEFF',
  '😀👩‍👩‍👧‍👦🏳️‍🌈',
  '\u{10FFFF}',
  'İıſK',
  'ǅ',
  '\r\n\t\v\f',
  'H3£TDO',
  '\u2028\u2029',
];

export const BOUNDARY_NUMBERS: readonly (number | string)[] = [
  0, -0, 1, -1, 2, 9, 10, 49, 50, 51, 99, 100, 101, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), 2 ** 32, 2 ** 53 - 1, 2 ** 53 + 2,
  Number.MAX_VALUE, Number.MIN_VALUE, 1.5, -1.5, 1e-300, '1e309', '-1e309', '0x10', '010', '1_000', ' 1', '1 ', '+1', '١٢',
];

const huge = (size: number) => fc.constantFrom('x', 'é', '😀', '<', "'").map((unit) => unit.repeat(Math.ceil(size / unit.length)));

/** Any hostile string: empty, huge (up to 100 KB), unicode edge cases, injections, random text. */
export function evilString(options: { maxHuge?: number } = {}): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...INJECTIONS) },
    { weight: 3, arbitrary: fc.constantFrom(...UNICODE) },
    { weight: 1, arbitrary: fc.constant('') },
    { weight: 1, arbitrary: fc.constant(' ') },
    { weight: 1, arbitrary: huge(options.maxHuge ?? 100 * 1024) },
    { weight: 1, arbitrary: fc.constantFrom(...BOUNDARY_NUMBERS).map(String) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  );
}

/** A JSON value of the wrong shape for nearly any field. */
export function evilJson(): fc.Arbitrary<unknown> {
  return fc.oneof(
    evilString(),
    fc.constantFrom<unknown>(...BOUNDARY_NUMBERS.filter((n) => typeof n === 'number')),
    fc.constantFrom<unknown>(null, true, false, [], {}, [[]], [null], { __proto__: null }, { id: 1 }, [1, 2, 3]),
    fc.jsonValue({ maxDepth: 3 }),
    fc.array(evilString({ maxHuge: 2048 }), { maxLength: 3 }),
  );
}

/** A plausible, valid value for a JSON schema (used so that requests also get past validation and reach handlers). */
export function validValue(schema: JsonSchema | undefined, pool: { ids: readonly number[]; slugs: readonly string[] }): fc.Arbitrary<unknown> {
  if (schema === undefined) return fc.string({ maxLength: 12 });
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(variants) && variants.length > 0) return fc.oneof(...variants.map((variant) => validValue(variant, pool)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : 0;
      const max = typeof schema.maximum === 'number' ? schema.maximum : Math.max(min + 100, 1000);
      const ranged = type === 'integer' ? fc.integer({ min: Math.ceil(min), max: Math.floor(Math.min(max, 2 ** 31)) }) : fc.double({ min, max, noNaN: true });
      return pool.ids.length > 0 ? fc.oneof(ranged, fc.constantFrom(...pool.ids)) : ranged;
    }
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validValue(schema.items as JsonSchema | undefined, pool), { maxLength: 3 });
    case 'object':
      return fc.constant({});
    default:
      if (schema.format === 'date-time' || /date/i.test(String(schema.description ?? ''))) {
        return fc.constantFrom('2030-01-01 10:00:00', 'tomorrow 9am', '2029-12-31', 'now', '+2 weeks');
      }
      return fc.oneof(
        fc.string({ minLength: 1, maxLength: 16 }),
        pool.slugs.length > 0 ? fc.constantFrom(...pool.slugs) : fc.constant('x'),
        fc.constantFrom('2030-01-01 10:00:00', 'tomorrow 9am', 'publish', 'draft', 'en', 'it', 'true', '1'),
      );
  }
}
