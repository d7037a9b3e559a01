import { AppError } from '../platform/errors.ts';

/** The stable error codes of this surface and their HTTP status (docs/entity-management.md, Errors). */
export const ERROR_STATUS = {
  INVALID_PARAMETER: 400,
  FIELD_UNKNOWN: 400,
  KEY_MISMATCH: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  ENTITY_TYPE_UNKNOWN: 404,
  RECORD_NOT_FOUND: 404,
  ACTION_NOT_FOUND: 404,
  // A path outside the route table, and a body that is neither JSON nor a form, have codes of their own.
  ROUTE_NOT_FOUND: 404,
  KEY_CONFLICT: 409,
  ACTION_FAILED: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  ACTION_PARAMS_INVALID: 422,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_ERROR: 500,
  // Another process held the SQLite write lock too long (with Retry-After): worth sending again, unlike a 500.
  DATABASE_BUSY: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, code);
}

function error(code: ErrorCode, text: string, details: Record<string, unknown> = {}): AppError {
  return new AppError(ERROR_STATUS[code], code, text, details);
}

/** What services throw; `data` becomes the message's `details`. */
export const EntityErrors = {
  invalidParameter: (details: Record<string, string>) =>
    error('INVALID_PARAMETER', `Invalid parameter(s): ${Object.keys(details).join(', ')}`, details),
  fieldUnknown: (field: string, valid: readonly string[]) =>
    error('FIELD_UNKNOWN', `Unknown field "${field}"; valid fields: ${valid.join(', ')}`, { field, valid }),
  keyMismatch: (pathKey: string, bodyKey: string) =>
    error('KEY_MISMATCH', `The body key "${bodyKey}" differs from the path key "${pathKey}"`, { path: pathKey, body: bodyKey }),
  entityTypeUnknown: (given: string, valid: readonly string[]) =>
    error('ENTITY_TYPE_UNKNOWN', `Unknown entity type "${given}"; valid types: ${valid.join(', ')}`, { valid }),
  recordNotFound: (key: string) => error('RECORD_NOT_FOUND', `No record with key "${key}"`, { key }),
  actionNotFound: (code: string) => error('ACTION_NOT_FOUND', `No action "${code}"`),
  keyConflict: (key: string) => error('KEY_CONFLICT', `A record with key "${key}" already exists`, { key }),
  actionFailed: (step: number, reason: string) =>
    error('ACTION_FAILED', `Step ${step} failed: ${reason}; nothing was changed`, { step, reason }),
  actionParamsInvalid: (details: Record<string, string>) =>
    error('ACTION_PARAMS_INVALID', "The parameters do not match the action's declaration", details),
  forbidden: (text: string) => error('FORBIDDEN', text),
} as const;
