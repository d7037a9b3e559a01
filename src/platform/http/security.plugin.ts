import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

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

/** Security headers suitable for an API, CORS per `CORS_ORIGINS`, and the request id on every response. */
export const securityPlugin = fp<{ corsOrigins: readonly string[] }>(
  async (app: FastifyInstance, { corsOrigins }) => {
    // The docs UI sets its own CSP; JSON responses get the strictest one below.
    await app.register(helmet, { contentSecurityPolicy: false, crossOriginEmbedderPolicy: false });

    const anyOrigin = corsOrigins.includes('*');
    await app.register(cors, {
      origin: anyOrigin ? '*' : corsOrigins.length === 0 ? false : [...corsOrigins],
      credentials: !anyOrigin && corsOrigins.length > 0,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', 'SOAPAction'],
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: 600,
    });

    app.addHook('onSend', async (request, reply, payload) => {
      void reply.header('x-request-id', request.id);
      if (!reply.hasHeader('content-security-policy')) {
        void reply.header('content-security-policy', "default-src 'none'; frame-ancestors 'none'");
      }
      if (request.user !== null && !reply.hasHeader('cache-control')) void reply.header('cache-control', 'no-store');
      return payload;
    });
  },
  { name: 'almanac-security' },
);
