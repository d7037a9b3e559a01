import type { Ajv, ValidateFunction, ErrorObject } from 'ajv';

/** The keys leading to the first non-finite number in a value, if any (a valid request has none: no path is built then). */
function nonFiniteKeys(value: unknown, depth: number): string[] | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : [];
  if (value === null || typeof value !== 'object' || depth > 32) return undefined;
  for (const key of Object.keys(value)) {
    const found = nonFiniteKeys((value as Record<string, unknown>)[key], depth + 1);
    if (found !== undefined) return [key, ...found];
  }
  return undefined;
}

function jsonPointer(keys: readonly string[]): string {
  return keys.map((key) => `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/**
 * Ajv plugin: a validated request never carries Infinity or NaN.
 * Ajv coerces `"1e309"` (query, form) to Infinity after its type check and
 * skips `minimum`/`maximum` for non-finite numbers, so without this any
 * numeric parameter could smuggle an infinite page, offset or id into a
 * handler (and into SQL: a 500). JSON bodies holding one (`1e309` parses to
 * Infinity) are refused earlier, by the body parser, before ajv could coerce
 * it into the text "Infinity" for a string parameter.
 */
export function finiteNumbersPlugin(ajv: Ajv): Ajv {
  const compile = ajv.compile.bind(ajv);
  ajv.compile = (<T>(schema: object, meta?: boolean): ValidateFunction<T> => {
    const inner = compile<T>(schema, meta);
    const validate = ((data: unknown, context?: unknown) => {
      const valid = (inner as (data: unknown, context?: unknown) => boolean)(data, context);
      validate.errors = inner.errors;
      if (!valid) return false;
      const keys = nonFiniteKeys(data, 0);
      if (keys === undefined) return true;
      const error: ErrorObject = {
        instancePath: jsonPointer(keys),
        schemaPath: '#/type',
        // Not `type`: the refusal reads "… must be a finite number", not "… is not of type number".
        keyword: 'finite',
        params: {},
        message: 'must be a finite number',
      };
      validate.errors = [error];
      return false;
    }) as ValidateFunction<T>;
    Object.assign(validate, { schema: inner.schema, schemaEnv: inner.schemaEnv });
    return validate;
  }) as Ajv['compile'];
  return ajv;
}
