import type { FastifyReply, FastifyRequest } from 'fastify';
import { isPlatformError, type AnyPlatformError } from '../platform/errors.ts';
import { ValidationError, classifyError } from '../platform/http/classify-error.ts';
import { ERROR_STATUS, isErrorCode, type ErrorCode } from './errors.ts';

export type Level = 'info' | 'warning' | 'error';

export interface ListMeta {
  readonly page: number;
  readonly per_page: number;
  readonly total: number;
  readonly total_pages: number;
}

export interface Message {
  readonly level: Level;
  readonly code: string;
  readonly text: string;
  readonly meta?: ListMeta;
  readonly details?: Readonly<Record<string, unknown>>;
}

/** Every response of this surface, success or failure. */
export interface Envelope<T> {
  readonly messages: Message[];
  readonly payload: T;
}

export function envelope<T>(payload: T, message: Message): Envelope<T> {
  return { messages: [message], payload };
}

/** Each platform error's code on this surface, by kind. */
export function entityCodeOf(error: AnyPlatformError): ErrorCode {
  switch (error.kind) {
    case 'Invalid':
      return 'INVALID_PARAMETER';
    case 'Unauthenticated':
      return 'UNAUTHORIZED';
    case 'Forbidden':
      return 'FORBIDDEN';
    case 'NotFound':
      return 'ROUTE_NOT_FOUND';
    case 'Conflict':
      return 'KEY_CONFLICT';
    case 'PayloadTooLarge':
      return 'PAYLOAD_TOO_LARGE';
    case 'UnsupportedMediaType':
      return 'UNSUPPORTED_MEDIA_TYPE';
    case 'TooManyRequests':
      return 'TOO_MANY_REQUESTS';
    case 'Unavailable':
      // The one 5xx that says what happened: the client should send the write again.
      return error.reason === 'database_busy' ? 'DATABASE_BUSY' : 'INTERNAL_ERROR';
    case 'Internal':
      return 'INTERNAL_ERROR';
  }
}

function validationDetails(error: ValidationError): Record<string, string> {
  return Object.fromEntries([...Object.entries(error.invalid), ...error.missing.map((name) => [name, 'is required'] as const)]);
}

/** Any error → its status, headers and error envelope. A 500 says only "internal error" and the request id. */
export function toErrorEnvelope(
  error: unknown,
  requestId: string,
): { status: number; headers: Readonly<Record<string, string>>; body: Envelope<null> } {
  const appError = classifyError(error);
  // This surface's own errors carry its codes; any other code here is a bug, answered as one.
  const code: ErrorCode = isPlatformError(appError)
    ? entityCodeOf(appError)
    : isErrorCode(appError.code)
      ? appError.code
      : 'INTERNAL_ERROR';
  const status = ERROR_STATUS[code];
  if (code === 'INTERNAL_ERROR') {
    return {
      status,
      headers: {},
      body: envelope(null, { level: 'error', code, text: 'internal error', details: { request_id: requestId } }),
    };
  }
  const details = appError instanceof ValidationError ? validationDetails(appError) : appError.data;
  const message: Message =
    Object.keys(details).length === 0
      ? { level: 'error', code, text: appError.message }
      : { level: 'error', code, text: appError.message, details };
  return { status, headers: appError.headers, body: envelope(null, message) };
}

/** The error handler of the entity-management scope. */
export async function sendEnvelopeError(error: unknown, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { status, headers, body } = toErrorEnvelope(error, request.id);
  if (status >= 500) request.log.error({ err: error }, 'request failed');
  await reply.code(status).headers(headers).type('application/json; charset=utf-8').send(body);
}
