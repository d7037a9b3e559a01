import type { FastifyReply, FastifyRequest } from 'fastify';
import { isPlatformError, type AppError, type Reason } from '../platform/errors.ts';
import { ValidationError, classifyError } from '../platform/http/classify-error.ts';

/** The WordPress REST error shape of the calendar surface and the API index. */
export interface WpError {
  code: string;
  message: string;
  data: Record<string, unknown>;
}

/** A 5xx hides what happened: the body says only this and the request id. */
const INTERNAL = 'internal_error';

/** Each platform reason's WordPress code: WordPress's own where it has one. */
export const WP_CODE_OF_REASON: Readonly<Record<Reason, string>> = {
  malformed_json: 'rest_invalid_json',
  // WordPress answers json_decode's depth error as invalid JSON too.
  json_too_deep: 'rest_invalid_json',
  malformed_request: 'rest_bad_request',
  invalid_parameter: 'rest_invalid_param',
  missing_parameter: 'rest_missing_callback_param',
  credentials_required: 'rest_forbidden',
  wrong_credentials: 'invalid_credentials',
  malformed_authorization: 'invalid_authorization_header',
  token_rejected: 'invalid_token',
  not_allowed: 'rest_forbidden',
  no_route: 'rest_no_route',
  concurrent_write: 'rest_conflict',
  body_too_large: 'rest_payload_too_large',
  unsupported_media_type: 'rest_unsupported_media_type',
  rate_limited: 'rest_too_many_requests',
  // The one 5xx that says what happened: the client should send the write again.
  database_busy: 'database_busy',
  database_unreachable: INTERNAL,
  unexpected: INTERNAL,
  // User administration is the CLI's and never answers a client: its reasons stand as they are.
  unknown_role: 'unknown_role',
  invalid_username: 'invalid_username',
  invalid_password: 'invalid_password',
  unknown_user: 'unknown_user',
  unknown_token: 'unknown_token',
  duplicate_username: 'duplicate_username',
};

/** The code an `AppError` has on the wire: a platform error's is its reason's WordPress code. */
export const wireCodeOf = (error: AppError): string => (isPlatformError(error) ? WP_CODE_OF_REASON[error.reason] : error.code);

function validationBody(error: ValidationError): WpError {
  if (error.missing.length > 0) {
    return {
      code: WP_CODE_OF_REASON.missing_parameter,
      message: `Missing parameter(s): ${error.missing.join(', ')}`,
      data: { status: error.status, params: error.missing },
    };
  }
  return {
    code: WP_CODE_OF_REASON.invalid_parameter,
    message: error.message,
    data: { status: error.status, params: error.invalid, details: {} },
  };
}

/** A 5xx the server chose to answer, not a failure: 501, what it does not do (WordPress's `rest_trash_not_supported`). */
const isFailure = (status: number) => status >= 500 && status !== 501;

export function toWpError(error: unknown, requestId: string): { status: number; body: WpError; headers: Record<string, string> } {
  const appError = classifyError(error);
  const { status, headers } = appError;
  if (appError instanceof ValidationError) return { status, headers: {}, body: validationBody(appError) };
  // The calendar's own errors carry their WordPress codes already.
  const code = wireCodeOf(appError);
  if (code === INTERNAL || (!isPlatformError(appError) && isFailure(status))) {
    return { status, headers, body: { code: INTERNAL, message: 'internal error', data: { status, request_id: requestId } } };
  }
  return { status, headers, body: { code, message: appError.message, data: { status, ...appError.data } } };
}

/** Fastify error handler for WordPress-shaped surfaces. */
export async function sendWpError(error: unknown, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { status, body, headers } = toWpError(error, request.id);
  if (isFailure(status)) request.log.error({ err: error }, 'request failed');
  await reply.code(status).headers(headers).type('application/json; charset=utf-8').send(body);
}
