import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PlatformErrors } from '../errors.ts';
import type { AuthUser, Authenticator } from './authenticate.ts';
import { can, CAPABILITIES, type Capability } from './capabilities.ts';

/**
 * What a route requires: `public`, or a capability from the role table.
 * Routes that need more (ownership, status) check it in their service too.
 */
export type Access = 'public' | Capability;

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    /** The authenticated caller, `null` when anonymous. */
    user: AuthUser | null;
  }
}

export interface AccessOptions {
  readonly authenticator: Authenticator;
  /** Route URL prefixes whose routes are public without declaring it (static documentation assets). */
  readonly publicPrefixes: readonly string[];
}

function isAccess(value: unknown): value is Access {
  return value === 'public' || (CAPABILITIES as readonly unknown[]).includes(value);
}

/**
 * Authenticates every request (bad credentials are a 401, never anonymous)
 * and enforces each route's declared access. A route that declares neither
 * a capability nor `public` stops the application at start-up.
 */
export const accessPlugin = fp<AccessOptions>(
  async (app: FastifyInstance, { authenticator, publicPrefixes }) => {
    app.decorateRequest('user', null);

    app.addHook('onRoute', (route) => {
      if (publicPrefixes.some((prefix) => route.url.startsWith(prefix))) return;
      const access: unknown = route.config?.access;
      if (!isAccess(access)) {
        throw new Error(`Route ${String(route.method)} ${route.url} declares no access (a capability or 'public')`);
      }
    });

    app.addHook('onRequest', async (request: FastifyRequest) => {
      request.user = await authenticator.authenticate(request.headers.authorization, request.ip);
    });

    // After validation, as the reference checks permissions after arguments.
    app.addHook('preHandler', async (request: FastifyRequest) => {
      const access = request.routeOptions.config.access;
      if (access === undefined || access === 'public') return;
      if (!can(request.user?.role ?? null, access)) throw PlatformErrors.forbidden(request.user !== null);
    });
  },
  { name: 'almanac-access' },
);
