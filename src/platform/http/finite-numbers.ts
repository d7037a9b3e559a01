import type { Ajv, ValidateFunction, ErrorObject } from 'ajv';

/** The JSON pointer of the first non-finite number in a value, if any. */
function nonFinitePath(value: unknown, path: string, depth: number): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path;
  if (value === null || typeof value !== 'object' || depth > 32) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const found = nonFinitePath(item, `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Ajv plugin: a validated request never carries Infinity or NaN.
 * Ajv coerces `"1e309"` (query, form) to Infinity after its type check and
 * skips `minimum`/`maximum` for non-finite numbers, and `JSON.parse('1e309')`
 * is Infinity too, so without this any numeric parameter could smuggle an
 * infinite page, offset or id into a handler (and into SQL: a 500).
 */
export function finiteNumbersPlugin(ajv: Ajv): Ajv {
  const compile = ajv.compile.bind(ajv);
  ajv.compile = (<T>(schema: object, meta?: boolean): ValidateFunction<T> => {
    const inner = compile<T>(schema, meta);
    const validate = ((data: unknown, context?: unknown) => {
      const valid = (inner as (data: unknown, context?: unknown) => boolean)(data, context);
      validate.errors = inner.errors;
      if (!valid) return false;
      const path = nonFinitePath(data, '', 0);
      if (path === undefined) return true;
      const error: ErrorObject = {
        instancePath: path,
        schemaPath: '#/type',
        keyword: 'type',
        params: { type: 'number' },
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
