import cors from '@fastify/cors';
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';

const EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-TEC-Total',
  'X-TEC-TotalPages',
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

/** Security headers suitable for an API, CORS per `CORS_ORIGINS`, and the request id on every response. */
export const securityPlugin = fp<{ corsOrigins: readonly string[] }>(
  async (app: FastifyInstance, { corsOrigins }) => {
    // Before CORS, which answers preflight requests in its own hook.
    const securityHeaders = helmetHeaders();
    app.addHook('onRequest', (_request, reply, done) => {
      void reply.headers(securityHeaders);
      done();
    });
    const anyOrigin = corsOrigins.includes('*');
    await app.register(cors, {
      origin: anyOrigin ? '*' : corsOrigins.length === 0 ? false : [...corsOrigins],
      credentials: !anyOrigin && corsOrigins.length > 0,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', 'SOAPAction'],
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: 600,
    });

    app.addHook('onSend', (request, reply, payload, done) => {
      void reply.header('x-request-id', request.id);
      if (!reply.hasHeader('content-security-policy')) void reply.header('content-security-policy', API_CSP);
      if (request.user !== null && !reply.hasHeader('cache-control')) void reply.header('cache-control', 'no-store');
      done(null, payload);
    });
  },
  { name: 'almanac-security' },
);
