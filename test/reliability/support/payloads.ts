import fc from 'fast-check';
import type { JsonSchema } from './openapi.ts';

/** Strings that have broken real services: injections, traversal, prototype keys. */
export const INJECTIONS: readonly string[] = [
  "' OR '1'='1",
  '1; DROP TABLE events; --',
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
  0,
  -0,
  1,
  -1,
  2,
  9,
  10,
  49,
  50,
  51,
  99,
  100,
  101,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31),
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53 + 2,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  1.5,
  -1.5,
  1e-300,
  '1e309',
  '-1e309',
  '0x10',
  '010',
  '1_000',
  ' 1',
  '1 ',
  '+1',
  '١٢',
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

/** Plausible strings by parameter name, so that a share of the requests gets past validation and reaches handlers. */
const NAMED_STRINGS: readonly [RegExp, readonly string[]][] = [
  [
    /date|_before|_after|starts|ends/i,
    ['2031-01-01 10:00:00', '2031-01-01', 'tomorrow 9am', '+2 weeks', 'now', '2031-05-06T10:00:00Z', '1924992000'],
  ],
  [/timezone/i, ['Europe/Rome', 'UTC', 'America/New_York', 'UTC+5']],
  [/email/i, ['someone@example.com', '']],
  [/website|url|image/i, ['https://example.com/poster.png', 'http://example.org/']],
  [/cost/i, ['10', '5-20', 'Free']],
  [/currency/i, ['€', 'EUR', 'prefix', 'postfix']],
  [/country|city|province|state|zip|address|phone/i, ['Italia', 'Brescia', '25121', '+39 030 123456']],
  [/lang/i, ['en', 'it']],
  [/order/i, ['asc', 'desc', 'id', 'name']],
  [/lat|lng|radius/i, ['45.5', '10.2', '50']],
];

/** A plausible, valid value for a JSON schema (used so that requests also get past validation and reach handlers). */
export function validValue(
  schema: JsonSchema | undefined,
  pool: { ids: readonly number[]; slugs: readonly string[] },
  name = '',
): fc.Arbitrary<unknown> {
  if (schema === undefined) return fc.string({ maxLength: 12 });
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(variants) && variants.length > 0) return fc.oneof(...variants.map((variant) => validValue(variant, pool, name)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'string' && typeof schema.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((value) => value.length <= 64);
    } catch {
      // A pattern JavaScript cannot compile: fall through to plain strings.
    }
  }
  switch (type) {
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : 0;
      const max = typeof schema.maximum === 'number' ? schema.maximum : Math.max(min + 100, 1000);
      const ranged =
        type === 'integer'
          ? fc.integer({ min: Math.ceil(min), max: Math.floor(Math.min(max, 2 ** 31)) })
          : fc.double({ min, max, noNaN: true });
      return pool.ids.length > 0 && !/page|radius|lat|lng/i.test(name) ? fc.oneof(ranged, fc.constantFrom(...pool.ids)) : ranged;
    }
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validValue(schema.items as JsonSchema | undefined, pool, name), { maxLength: 3 });
    case 'object':
      return fc.constant({});
    default: {
      const named = NAMED_STRINGS.find(([pattern]) => pattern.test(name));
      if (named !== undefined) return fc.constantFrom(...named[1]);
      if (/slug/i.test(name) && pool.slugs.length > 0)
        return fc.oneof(fc.constantFrom(...pool.slugs), fc.stringMatching(/^[a-z0-9-]{1,12}$/));
      return fc.oneof(
        fc.string({ minLength: 1, maxLength: 16 }),
        fc.constantFrom('Concert in the park', "Mostra d'arte", 'Festa di paese', 'Jazz night'),
        pool.slugs.length > 0 ? fc.constantFrom(...pool.slugs) : fc.constant('x'),
      );
    }
  }
}
