import type { FastifyReply, FastifyRequest } from 'fastify';
import { DatabaseBusyError } from '../platform/errors.ts';
import { ValidationError, classifyError } from '../platform/http/classify-error.ts';

/** The WordPress REST error shape of the calendar surface and the API index. */
export interface WpError {
  code: string;
  message: string;
  data: Record<string, unknown>;
}

export function toWpError(error: unknown, requestId: string): { status: number; body: WpError; headers: Record<string, string> } {
  const appError = classifyError(error);
  if (appError instanceof ValidationError) {
    if (appError.missing.length > 0) {
      return {
        status: 400,
        headers: {},
        body: {
          code: 'rest_missing_callback_param',
          message: `Missing parameter(s): ${appError.missing.join(', ')}`,
          data: { status: 400, params: appError.missing },
        },
      };
    }
    return {
      status: 400,
      headers: {},
      body: {
        code: 'rest_invalid_param',
        message: appError.message,
        data: { status: 400, params: appError.invalid, details: {} },
      },
    };
  }
  // A 5xx hides what happened, except a database another process keeps locked: the client should retry.
  if (appError.status >= 500 && !(appError instanceof DatabaseBusyError)) {
    return {
      status: appError.status,
      headers: appError.headers,
      body: { code: 'internal_error', message: 'internal error', data: { status: appError.status, request_id: requestId } },
    };
  }
  return {
    status: appError.status,
    headers: appError.headers,
    body: { code: appError.code, message: appError.message, data: { status: appError.status, ...appError.data } },
  };
}

/** Fastify error handler for WordPress-shaped surfaces. */
export async function sendWpError(error: unknown, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { status, body, headers } = toWpError(error, request.id);
  if (status >= 500) request.log.error({ err: error }, 'request failed');
  await reply.code(status).headers(headers).type('application/json; charset=utf-8').send(body);
}
