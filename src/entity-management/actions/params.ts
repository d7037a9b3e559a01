import { EntityErrors } from '../errors.ts';
import type { ParamDeclaration, ParamType } from './action.schemas.ts';
import type { RunParams } from './placeholders.ts';

function fits(type: ParamType, value: unknown): value is string | number | boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isSafeInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
  }
}

/**
 * Checks a run's JSON body against the action's declaration: every required
 * parameter present, every value of its declared type, nothing undeclared.
 * All problems are reported at once, by parameter, in a 422 `ACTION_PARAMS_INVALID`.
 */
export function toRunParams(declared: readonly ParamDeclaration[], body: unknown): RunParams {
  const given = body ?? {};
  if (typeof given !== 'object' || Array.isArray(given)) {
    throw EntityErrors.actionParamsInvalid({ body: 'must be a JSON object of parameters' });
  }
  const entries = new Map(Object.entries(given));
  // A Map, not an object: parameter names come from the client (`__proto__` included).
  const problems = new Map<string, string>();
  const params = new Map<string, string | number | boolean>();
  for (const param of declared) {
    const value = entries.get(param.name);
    entries.delete(param.name);
    if (value === undefined) {
      if (param.required) problems.set(param.name, 'is required');
    } else if (typeof value === 'string' && value.includes('\u0000')) {
      // Parameters end up in the database, whose text cannot hold NUL on PostgreSQL.
      problems.set(param.name, 'must not contain NUL characters');
    } else if (fits(param.type, value)) {
      params.set(param.name, value);
    } else {
      problems.set(param.name, `must be ${param.type === 'integer' ? 'an' : 'a'} ${param.type}`);
    }
  }
  for (const name of entries.keys()) problems.set(name, 'is not a parameter of this action');
  if (problems.size > 0) throw EntityErrors.actionParamsInvalid(Object.fromEntries(problems));
  return params;
}
