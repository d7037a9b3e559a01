import {
  ConflictError,
  InternalError,
  InvalidError,
  NotFoundError,
  PlatformErrors,
  type AnyPlatformError,
  type Reason,
} from '../../src/platform/errors.ts';
import { classifyError, ValidationError } from '../../src/platform/http/classify-error.ts';

/**
 * One platform error for every reason, as the platform raises it. Keyed by
 * reason, so a reason added to the platform does not compile until it is
 * here, and each surface's mapping test then asks for its wire code.
 */
export const ONE_ERROR_PER_REASON: Readonly<Record<Reason, AnyPlatformError>> = {
  malformed_json: PlatformErrors.invalidJson(),
  json_too_deep: PlatformErrors.jsonTooDeep(32),
  malformed_request: classified(Object.assign(new Error('bad url'), { statusCode: 400 })),
  invalid_parameter: new ValidationError({ page: 'page is not of type integer.' }, []),
  missing_parameter: new ValidationError({}, ['id']),
  unknown_role: new InvalidError('unknown_role', 'Unknown role "owner".'),
  invalid_username: new InvalidError('invalid_username', 'A username is 1–60 letters, digits or . _ @ + -.'),
  invalid_password: new InvalidError('invalid_password', 'A password has 8 to 1024 characters.'),
  credentials_required: PlatformErrors.forbidden(false),
  wrong_credentials: PlatformErrors.invalidCredentials(),
  malformed_authorization: PlatformErrors.invalidAuthorizationHeader(),
  token_rejected: PlatformErrors.invalidToken(),
  not_allowed: PlatformErrors.forbidden(true),
  no_route: PlatformErrors.noRoute(),
  unknown_user: new NotFoundError('unknown_user', 'No user named "nobody".'),
  unknown_token: new NotFoundError('unknown_token', 'No live token with id 7.'),
  concurrent_write: PlatformErrors.conflict(),
  duplicate_username: new ConflictError('duplicate_username', 'A user named "ada" already exists.'),
  body_too_large: PlatformErrors.payloadTooLarge(),
  unsupported_media_type: PlatformErrors.unsupportedMediaType(),
  rate_limited: PlatformErrors.tooManyRequests(2.5),
  database_busy: PlatformErrors.databaseBusy(),
  database_unreachable: PlatformErrors.databaseUnreachable(),
  unexpected: new InternalError(),
};

function classified(error: Error): AnyPlatformError {
  const result = classifyError(error);
  if (!(result instanceof InvalidError)) throw new Error(`${error.message} was not classified as Invalid`);
  return result;
}

export const reasons = Object.keys(ONE_ERROR_PER_REASON) as Reason[];
