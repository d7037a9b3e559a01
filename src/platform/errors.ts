/**
 * The one error type services throw. `code` is stable and machine-readable;
 * each surface renders it once in its own shape (WordPress error, envelope,
 * SOAP fault). `data` carries extra, safe-to-show details.
 *
 * A surface's own errors are `AppError`s with that surface's codes
 * (`rest-event-not-found`, `KEY_CONFLICT`, `soap_client`); what the platform
 * itself refuses or fails with is a `PlatformError` below, which no surface's
 * code names.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly data: Readonly<Record<string, unknown>> = {},
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/**
 * What happened, by kind: the platform's whole vocabulary. A reason names one
 * kind only, so that a surface may map reasons without looking at kinds.
 */
export interface PlatformReasons {
  Invalid:
    | 'malformed_json'
    | 'json_too_deep'
    | 'malformed_request'
    | 'invalid_parameter'
    | 'missing_parameter'
    // User administration (the CLI): never an HTTP answer.
    | 'unknown_role'
    | 'invalid_username'
    | 'invalid_password';
  Unauthenticated: 'credentials_required' | 'wrong_credentials' | 'malformed_authorization' | 'token_rejected';
  Forbidden: 'not_allowed';
  NotFound: 'no_route' | 'unknown_user' | 'unknown_token';
  Conflict: 'concurrent_write' | 'duplicate_username';
  PayloadTooLarge: 'body_too_large';
  UnsupportedMediaType: 'unsupported_media_type';
  TooManyRequests: 'rate_limited';
  Unavailable: 'database_busy' | 'database_unreachable';
  Internal: 'unexpected';
}
export type ErrorKind = keyof PlatformReasons;
export type Reason<K extends ErrorKind = ErrorKind> = PlatformReasons[K];

export const STATUS_OF_KIND = {
  Invalid: 400,
  Unauthenticated: 401,
  Forbidden: 403,
  NotFound: 404,
  Conflict: 409,
  PayloadTooLarge: 413,
  UnsupportedMediaType: 415,
  TooManyRequests: 429,
  Internal: 500,
  Unavailable: 503,
} as const satisfies Record<ErrorKind, number>;

interface Extras {
  readonly data?: Readonly<Record<string, unknown>>;
  readonly headers?: Readonly<Record<string, string>>;
  /** A 4xx that Node or Fastify chose for a malformed request, left as it was. */
  readonly status?: number;
}

/**
 * An error of the platform: a `kind` (as HTTP would say it) and a `reason`
 * (what happened, also its `code`). Each surface maps kind and reason to its
 * wire code in one place, with exhaustive switches: a new kind or reason does
 * not compile until every surface renders it. The message is safe to show.
 */
export class PlatformError<K extends ErrorKind = ErrorKind> extends AppError {
  constructor(
    readonly kind: K,
    readonly reason: Reason<K>,
    message: string,
    extras: Extras = {},
  ) {
    super(extras.status ?? STATUS_OF_KIND[kind], reason, message, extras.data, extras.headers);
    this.name = `${kind}Error`;
  }
}

/** Any platform error, narrowed by `kind` (and its `reason` with it). */
export type AnyPlatformError = { [K in ErrorKind]: PlatformError<K> }[ErrorKind];

export function isPlatformError(error: unknown): error is AnyPlatformError {
  return error instanceof PlatformError;
}

const retryAfter = (seconds: number) => ({ 'retry-after': String(Math.max(1, Math.ceil(seconds))) });

export class InvalidError extends PlatformError<'Invalid'> {
  constructor(reason: Reason<'Invalid'>, message: string, extras?: Extras) {
    super('Invalid', reason, message, extras);
  }
}

/** No (valid) credentials; `challenge` is the `WWW-Authenticate` to answer with, if any. */
export class UnauthenticatedError extends PlatformError<'Unauthenticated'> {
  constructor(reason: Reason<'Unauthenticated'>, message: string, challenge?: string) {
    super('Unauthenticated', reason, message, { headers: challenge === undefined ? {} : { 'www-authenticate': challenge } });
  }
}

export class ForbiddenError extends PlatformError<'Forbidden'> {
  constructor(reason: Reason<'Forbidden'>, message: string) {
    super('Forbidden', reason, message);
  }
}

export class NotFoundError extends PlatformError<'NotFound'> {
  constructor(reason: Reason<'NotFound'>, message: string) {
    super('NotFound', reason, message);
  }
}

export class ConflictError extends PlatformError<'Conflict'> {
  constructor(reason: Reason<'Conflict'>, message: string) {
    super('Conflict', reason, message);
  }
}

export class PayloadTooLargeError extends PlatformError<'PayloadTooLarge'> {
  constructor(reason: Reason<'PayloadTooLarge'>, message: string) {
    super('PayloadTooLarge', reason, message);
  }
}

export class UnsupportedMediaTypeError extends PlatformError<'UnsupportedMediaType'> {
  constructor(reason: Reason<'UnsupportedMediaType'>, message: string) {
    super('UnsupportedMediaType', reason, message);
  }
}

export class TooManyRequestsError extends PlatformError<'TooManyRequests'> {
  constructor(reason: Reason<'TooManyRequests'>, message: string, retryAfterSeconds: number) {
    super('TooManyRequests', reason, message, { headers: retryAfter(retryAfterSeconds) });
  }
}

/** Not the request's fault; with `retryAfterSeconds` when trying again soon should work. */
export class UnavailableError extends PlatformError<'Unavailable'> {
  constructor(reason: Reason<'Unavailable'>, message: string, retryAfterSeconds?: number) {
    super('Unavailable', reason, message, { headers: retryAfterSeconds === undefined ? {} : retryAfter(retryAfterSeconds) });
  }
}

/** Anything unexpected; every surface hides the message and logs the cause. */
export class InternalError extends PlatformError<'Internal'> {
  constructor() {
    super('Internal', 'unexpected', 'internal error');
  }
}

/** Writes elsewhere (a CLI command, another server's transaction) usually end well within a second. */
const DATABASE_BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * Another process held the database's write lock longer than this process
 * waits for it (`SQLITE_BUSY_WAIT_MS`); the write changed nothing and may be
 * sent again. A class of its own so that best-effort writes can tell it apart.
 */
export class DatabaseBusyError extends UnavailableError {
  constructor(options?: { cause: unknown }) {
    super(
      'database_busy',
      'The database is busy with another write; nothing was changed, try again shortly.',
      DATABASE_BUSY_RETRY_AFTER_SECONDS,
    );
    this.name = 'DatabaseBusyError';
    if (options !== undefined) this.cause = options.cause;
  }
}

const basicChallenge = 'Basic realm="almanac"';

/** The platform's errors, by what happened; surfaces render them (`kind`, `reason`) in their own codes. */
export const PlatformErrors = {
  invalidCredentials: () => new UnauthenticatedError('wrong_credentials', 'The username or password is incorrect.', basicChallenge),
  invalidAuthorizationHeader: () =>
    new UnauthenticatedError('malformed_authorization', 'The Authorization header is malformed.', basicChallenge),
  invalidToken: () =>
    new UnauthenticatedError(
      'token_rejected',
      'The bearer token is unknown, revoked or expired.',
      'Bearer realm="almanac", error="invalid_token"',
    ),
  tooManyRequests: (retryAfterSeconds: number) =>
    new TooManyRequestsError('rate_limited', 'Too many requests; try again later.', retryAfterSeconds),
  // Anonymous callers are asked to sign in; the message is the same either way, as WordPress says it.
  forbidden: (authenticated: boolean) =>
    authenticated
      ? new ForbiddenError('not_allowed', 'Sorry, you are not allowed to do that.')
      : new UnauthenticatedError('credentials_required', 'Sorry, you are not allowed to do that.'),
  noRoute: () => new NotFoundError('no_route', 'No route was found matching the URL and request method.'),
  invalidJson: () => new InvalidError('malformed_json', 'The request body is not valid JSON.'),
  jsonTooDeep: (maxDepth: number) =>
    new InvalidError('json_too_deep', `The request body nests arrays and objects deeper than ${maxDepth} levels.`, {
      data: { max_depth: maxDepth },
    }),
  payloadTooLarge: () => new PayloadTooLargeError('body_too_large', 'The request body is too large.'),
  unsupportedMediaType: () => new UnsupportedMediaTypeError('unsupported_media_type', 'The request body has an unsupported content type.'),
  databaseBusy: (options?: { cause: unknown }) => new DatabaseBusyError(options),
  databaseUnreachable: () => new UnavailableError('database_unreachable', 'The database is not reachable.'),
  conflict: () =>
    new ConflictError('concurrent_write', 'The write conflicts with another change made at the same time; nothing was changed. Try again.'),
} as const;
