/**
 * The one error type services throw. `code` is stable and machine-readable;
 * each surface renders it once in its own shape (WordPress error, envelope,
 * SOAP fault). `data` carries extra, safe-to-show details.
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

/** Writes elsewhere (a CLI command, another server's transaction) usually end well within a second. */
const DATABASE_BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * Another process kept the database's write lock longer than this process
 * waits for it (`SQLITE_BUSY_WAIT_MS`); the write changed nothing and may be
 * sent again. A class of its own so that best-effort writes can tell it apart.
 */
export class DatabaseBusyError extends AppError {
  constructor(options?: { cause: unknown }) {
    super(503, 'database_busy', 'The database is busy with another write; nothing was changed, try again shortly.', {}, {
      'retry-after': String(DATABASE_BUSY_RETRY_AFTER_SECONDS),
    });
    this.name = 'DatabaseBusyError';
    if (options !== undefined) this.cause = options.cause;
  }
}

/** Platform-level codes shared by every surface; surfaces may rename them when rendering. */
export const PlatformErrors = {
  invalidCredentials: () =>
    new AppError(401, 'invalid_credentials', 'The username or password is incorrect.', {}, wwwAuthenticate),
  invalidAuthorizationHeader: () =>
    new AppError(401, 'invalid_authorization_header', 'The Authorization header is malformed.', {}, wwwAuthenticate),
  invalidToken: () =>
    new AppError(401, 'invalid_token', 'The bearer token is unknown, revoked or expired.', {}, {
      'www-authenticate': 'Bearer realm="almanac", error="invalid_token"',
    }),
  tooManyRequests: (retryAfterSeconds: number) =>
    new AppError(429, 'rest_too_many_requests', 'Too many requests; try again later.', {}, {
      'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))),
    }),
  forbidden: (authenticated: boolean) =>
    new AppError(authenticated ? 403 : 401, 'rest_forbidden', 'Sorry, you are not allowed to do that.'),
  noRoute: () => new AppError(404, 'rest_no_route', 'No route was found matching the URL and request method.'),
  invalidJson: () => new AppError(400, 'rest_invalid_json', 'The request body is not valid JSON.'),
  // WordPress answers json_decode's depth error as invalid JSON too.
  jsonTooDeep: (maxDepth: number) =>
    new AppError(400, 'rest_invalid_json', `The request body nests arrays and objects deeper than ${maxDepth} levels.`, { max_depth: maxDepth }),
  payloadTooLarge: () => new AppError(413, 'rest_payload_too_large', 'The request body is too large.'),
  unsupportedMediaType: () =>
    new AppError(415, 'rest_unsupported_media_type', 'The request body has an unsupported content type.'),
  databaseBusy: (options?: { cause: unknown }) => new DatabaseBusyError(options),
  conflict: () =>
    new AppError(409, 'rest_conflict', 'The write conflicts with another change made at the same time; nothing was changed. Try again.'),
} as const;

const wwwAuthenticate = { 'www-authenticate': 'Basic realm="almanac"' };
