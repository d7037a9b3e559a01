import type { FastifyError } from 'fastify';
import { ForeignKeyViolationError, UniqueViolationError } from '../db/dialect/errors.ts';
import { translatePostgresError } from '../db/dialect/postgres.ts';
import { translateSqliteError } from '../db/dialect/sqlite.ts';
import { AppError, InternalError, InvalidError, PlatformErrors } from '../errors.ts';

/** A request failed schema validation: invalid values and missing required parameters, by name. */
export class ValidationError extends InvalidError {
  constructor(
    readonly invalid: Readonly<Record<string, string>>,
    readonly missing: readonly string[],
  ) {
    const names = missing.length > 0 ? missing : Object.keys(invalid);
    super(missing.length > 0 ? 'missing_parameter' : 'invalid_parameter', `Invalid parameter(s): ${names.join(', ')}`);
  }
}

interface AjvIssue {
  readonly instancePath: string;
  readonly keyword: string;
  readonly message?: string;
  readonly params: Record<string, unknown>;
}

function unescapePointer(part: string): string {
  return part.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The request parameter an issue is about: a missing top-level one by its name, anything deeper by the parameter it is in. */
function paramName(issue: AjvIssue): string {
  if (issue.keyword === 'required' && issue.instancePath === '' && typeof issue.params.missingProperty === 'string') {
    return issue.params.missingProperty;
  }
  const first = issue.instancePath.split('/')[1];
  return first === undefined || first === '' ? 'body' : unescapePointer(first);
}

/** `['venue', 'geo_lat']` → `venue[geo_lat]`: the value as a form or query string names it (`body` for the whole body). */
export function bracketName(keys: readonly string[]): string {
  const [first = 'body', ...rest] = keys;
  return `${first}${rest.map((part) => `[${part}]`).join('')}`;
}

function valueName(instancePath: string): string {
  return bracketName(instancePath.split('/').slice(1).map(unescapePointer));
}

function describe(issue: AjvIssue, issues: readonly AjvIssue[]): string {
  const name = valueName(issue.instancePath);
  switch (issue.keyword) {
    case 'type': {
      // A union refuses a value once per member: name every type it would have taken.
      const types = issues
        .filter((other) => other.keyword === 'type' && other.instancePath === issue.instancePath)
        .map((other) => String(other.params.type));
      return `${name} is not of type ${[...new Set(types)].join(' or ')}.`;
    }
    case 'enum':
      return `${name} is not one of ${(issue.params.allowedValues as unknown[] | undefined)?.join(', ') ?? 'the allowed values'}.`;
    case 'anyOf':
    case 'oneOf':
      return 'Invalid parameter.';
    default:
      return `${name} ${issue.message ?? 'is invalid'}.`;
  }
}

function fromValidation(issues: readonly AjvIssue[]): ValidationError {
  const invalid: Record<string, string> = {};
  const missing: string[] = [];
  for (const issue of issues) {
    const name = paramName(issue);
    if (issue.keyword === 'required' && issue.instancePath === '') {
      if (!missing.includes(name)) missing.push(name);
    } else {
      invalid[name] ??= describe(issue, issues);
    }
  }
  return new ValidationError(invalid, missing);
}

/**
 * Any error reaching a surface's error handler, as an AppError: a surface's
 * own, or a platform error (Fastify's and the database's translated, an
 * `InternalError` for anything unexpected).
 */
export function classifyError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as Partial<FastifyError> & { validation?: AjvIssue[] };
  if (Array.isArray(fastifyError.validation)) return fromValidation(fastifyError.validation);
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return PlatformErrors.payloadTooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return PlatformErrors.unsupportedMediaType();
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return PlatformErrors.invalidJson();
    default:
      break;
  }
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) return PlatformErrors.invalidJson();
  if (fastifyError.statusCode === 404) return PlatformErrors.noRoute();
  if (fastifyError.statusCode === 413) return PlatformErrors.payloadTooLarge();
  if (fastifyError.statusCode === 415) return PlatformErrors.unsupportedMediaType();
  // Any other refusal raised by Fastify or Node (a malformed URL, headers over the limit…) stays a 4xx.
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new InvalidError('malformed_request', 'The request is malformed.', { status: fastifyError.statusCode });
  }
  // A constraint the database enforced that no check before it caught (a concurrent change): nothing was written.
  const stored = translatePostgresError(translateSqliteError(error));
  if (stored instanceof UniqueViolationError || stored instanceof ForeignKeyViolationError) return PlatformErrors.conflict();
  return new InternalError();
}
