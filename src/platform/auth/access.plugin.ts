import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PlatformErrors } from '../errors.ts';
import type { RevisionsHolder } from '../db/revisions.ts';
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
  interface FastifyRequest extends RevisionsHolder {
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
    app.decorateRequest('revisions', null);

    app.addHook('onRoute', (route) => {
      if (publicPrefixes.some((prefix) => route.url.startsWith(prefix))) return;
      const access: unknown = route.config?.access;
      if (!isAccess(access)) {
        throw new Error(`Route ${String(route.method)} ${route.url} declares no access (a capability or 'public')`);
      }
    });

    // Callback-style hooks: an anonymous request or a public route costs no promise.
    app.addHook('onRequest', (request, _reply, done) => {
      const header = request.headers.authorization;
      if (header === undefined || header === '') return done();
      authenticator.authenticate(request, header, request.ip).then((user) => {
        request.user = user;
        done();
      }, done);
    });

    // After validation, as the reference checks permissions after arguments.
    app.addHook('preHandler', (request: FastifyRequest, _reply, done) => {
      const access = request.routeOptions.config.access;
      if (access === undefined || access === 'public' || can(request.user?.role ?? null, access)) return done();
      done(PlatformErrors.forbidden(request.user !== null));
    });
  },
  { name: 'almanac-access' },
);
