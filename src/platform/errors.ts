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
  payloadTooLarge: () => new AppError(413, 'rest_payload_too_large', 'The request body is too large.'),
  unsupportedMediaType: () =>
    new AppError(415, 'rest_unsupported_media_type', 'The request body has an unsupported content type.'),
} as const;

const wwwAuthenticate = { 'www-authenticate': 'Basic realm="almanac"' };
