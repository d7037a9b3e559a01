import cors from '@fastify/cors';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import helmet from 'helmet';

const EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-TEC-Total',
  'X-TEC-TotalPages',
  'X-WP-Total',
  'X-WP-TotalPages',
  'Link',
  'Allow',
  'X-Total-Count',
  'Content-Language',
  'Retry-After',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
];

const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * helmet's headers for an API (its CSP aside: the docs UI sets its own, JSON
 * responses get API_CSP). None depends on the request, so helmet runs once
 * here instead of its eleven middlewares on every response.
 */
function helmetHeaders(): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: unknown) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  const middleware = helmet({ contentSecurityPolicy: false, crossOriginEmbedderPolicy: false });
  middleware({} as never, response as never, (error?: unknown) => {
    if (error !== undefined) throw error;
  });
  return Object.freeze(headers);
}

const SECURITY_HEADERS = { ...helmetHeaders(), 'content-security-policy': API_CSP };

/** The security headers and the request id, for a response sent without the request's hooks (a router-level refusal). */
export function markResponse(request: FastifyRequest, reply: FastifyReply): void {
  void reply.headers(SECURITY_HEADERS).header('x-request-id', request.id);
}

/**
 * Security headers suitable for an API and the request id on every response,
 * set as the request arrives (a route may replace them: the docs UI sets its
 * own CSP); CORS per `CORS_ORIGINS`. What caches may store of each answer is
 * cache-control.ts's.
 */
export const securityPlugin = fp<{ corsOrigins: readonly string[] }>(
  async (app: FastifyInstance, { corsOrigins }) => {
    // Before CORS, which answers preflight requests in its own hook.
    app.addHook('onRequest', (request, reply, done) => {
      markResponse(request, reply);
      done();
    });
    // Without an allowed origin CORS adds nothing, and a preflight is an unknown route like any other OPTIONS.
    if (corsOrigins.length === 0) return;
    const anyOrigin = corsOrigins.includes('*');
    await app.register(cors, {
      origin: anyOrigin ? '*' : [...corsOrigins],
      credentials: !anyOrigin,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', 'SOAPAction', 'X-HTTP-Method-Override'],
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: 600,
    });
  },
  { name: 'almanac-security' },
);
