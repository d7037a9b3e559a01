import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isPlatformError, type AnyPlatformError } from '../platform/errors.ts';
import { classifyError } from '../platform/http/classify-error.ts';
import { NS } from './namespaces.ts';
import { escapeXml } from '../platform/xml/xml.ts';

/** The fault codes of docs/soap.md; FailedAuthentication is WS-Security's, the others SOAP 1.1's. */
type FaultCode = 'Client' | 'VersionMismatch' | 'MustUnderstand' | 'FailedAuthentication' | 'Server';

const FAULT_OF_ERROR_CODE: Readonly<Record<string, FaultCode>> = {
  soap_client: 'Client',
  soap_version_mismatch: 'VersionMismatch',
  soap_must_understand: 'MustUnderstand',
  soap_failed_authentication: 'FailedAuthentication',
};

/** What the SOAP surface throws; `sendFault` renders each as its fault. */
export const SoapErrors = {
  client: (reason: string) => new AppError(400, 'soap_client', reason),
  versionMismatch: () => new AppError(400, 'soap_version_mismatch', 'This service speaks SOAP 1.1: send a SOAP 1.1 envelope as text/xml.'),
  mustUnderstand: (header: string) =>
    new AppError(
      400,
      'soap_must_understand',
      `The header block ${header} is marked mustUnderstand, and this service does not understand it.`,
    ),
  failedAuthentication: (reason: string) => new AppError(401, 'soap_failed_authentication', reason),
} as const;

interface Fault {
  readonly code: FaultCode;
  readonly reason: string;
  /** 500 by the SOAP 1.1 HTTP binding; 413 for an oversized body. */
  readonly status: number;
}

/** A fault that hides what happened; the log has it. */
const internalFault = (requestId: string): Fault => ({ code: 'Server', reason: `internal error (request id ${requestId})`, status: 500 });

/** Each platform error's fault: 500 by the SOAP 1.1 HTTP binding, except a body over the limit. */
export function faultOfPlatformError(error: AnyPlatformError, requestId: string): Fault {
  switch (error.kind) {
    case 'Unauthenticated':
      // Bad HTTP credentials from the access hook.
      return { code: 'FailedAuthentication', reason: error.message, status: 500 };
    case 'PayloadTooLarge':
      return { code: 'Client', reason: error.message, status: 413 };
    // A lockout or rate limit (429) keeps its Retry-After.
    case 'Invalid':
    case 'Forbidden':
    case 'NotFound':
    case 'Conflict':
    case 'UnsupportedMediaType':
    case 'TooManyRequests':
      return { code: 'Client', reason: error.message, status: 500 };
    case 'Unavailable':
      // Not a fault of this service: said as it is, with its Retry-After.
      if (error.reason === 'database_busy') return { code: 'Server', reason: error.message, status: 500 };
      return internalFault(requestId);
    case 'Internal':
      return internalFault(requestId);
  }
}

function faultOf(error: AppError, requestId: string): Fault {
  if (isPlatformError(error)) return faultOfPlatformError(error, requestId);
  const named = FAULT_OF_ERROR_CODE[error.code];
  if (named !== undefined) return { code: named, reason: error.message, status: 500 };
  if (error.status >= 500) return internalFault(requestId);
  return { code: 'Client', reason: error.message, status: 500 };
}

/** A SOAP 1.1 fault envelope; the `wsse` prefix is declared when the fault code uses it. */
function faultEnvelope(code: FaultCode, reason: string): string {
  const qualifiedCode = code === 'FailedAuthentication' ? 'wsse:FailedAuthentication' : `soap:${code}`;
  const wsse = code === 'FailedAuthentication' ? ` xmlns:wsse="${NS.wsse}"` : '';
  return (
    '<?xml version="1.0" encoding="utf-8"?>\n' +
    `<soap:Envelope xmlns:soap="${NS.soap11}"><soap:Body><soap:Fault${wsse}>` +
    `<faultcode>${qualifiedCode}</faultcode><faultstring>${escapeXml(reason)}</faultstring>` +
    '</soap:Fault></soap:Body></soap:Envelope>'
  );
}

/** Fastify error handler of the SOAP endpoint: every error becomes a fault, never a stack trace. */
export async function sendFault(error: unknown, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const appError = classifyError(error);
  const fault = faultOf(appError, request.id);
  if (fault.code === 'Server') request.log.error({ err: error }, 'SOAP request failed');
  // A Basic challenge means nothing on a SOAP fault; Retry-After (lockouts) still helps.
  const { 'www-authenticate': _challenge, ...headers } = appError.headers;
  await reply.code(fault.status).headers(headers).type('text/xml; charset=utf-8').send(faultEnvelope(fault.code, fault.reason));
}
