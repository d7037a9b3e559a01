import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { PlatformErrors } from '../errors.ts';
import { withHookFirst } from '../http/route-hooks.ts';
import type { RevisionsHolder } from '../db/revisions.ts';
import type { AuthUser, Authenticator } from './authenticate.ts';
import type { Capability, CapabilityRegistry } from './capabilities.ts';

/**
 * What a route requires: `public`, or a capability a surface registered.
 * Routes that need more (ownership, status) check it in their service too.
 */
export type Access = 'public' | Capability;

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    /**
     * Checks the arguments that name stored things (an id in the path, a
     * parent), after validation and before the capability: a caller without
     * the capability who names a missing item learns it is missing, as the
     * reference validates such ids with the other arguments.
     */
    resolveFirst?: (request: FastifyRequest) => Promise<void>;
  }
  interface FastifyRequest extends RevisionsHolder {
    /** The authenticated caller, `null` when anonymous. */
    user: AuthUser | null;
  }
}

export interface AccessOptions {
  readonly authenticator: Authenticator;
  /** Every surface's capabilities: a route declaring any other stops the application at start-up. */
  readonly capabilities: CapabilityRegistry;
  /** Route URL prefixes whose routes are public without declaring it (static documentation assets). */
  readonly publicPrefixes: readonly string[];
}

/**
 * Authenticates every request (bad credentials are a 401, never anonymous)
 * and enforces each route's declared access. A route that declares neither
 * a registered capability nor `public` stops the application at start-up.
 */
export const accessPlugin = fp<AccessOptions>(
  async (app: FastifyInstance, { authenticator, capabilities, publicPrefixes }) => {
    app.decorateRequest('user', null);
    app.decorateRequest('revisions', null);

    // Checked after validation, as the reference checks permissions after arguments; public routes need no check.
    app.addHook('onRoute', (route) => {
      if (publicPrefixes.some((prefix) => route.url.startsWith(prefix))) return;
      const access: unknown = route.config?.access;
      if (access === 'public') {
        if (route.config?.resolveFirst !== undefined)
          throw new Error(`Route ${String(route.method)} ${route.url} is public: nothing to resolve first`);
        return;
      }
      if (typeof access !== 'string' || !capabilities.has(access)) {
        throw new Error(`Route ${String(route.method)} ${route.url} declares no access (a registered capability or 'public')`);
      }
      const check = (request: FastifyRequest): Error | undefined =>
        capabilities.can(request.user?.role ?? null, access) ? undefined : PlatformErrors.forbidden(request.user !== null);
      const resolveFirst = route.config?.resolveFirst;
      const hook =
        resolveFirst === undefined
          ? (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => done(check(request))
          : async (request: FastifyRequest) => {
              await resolveFirst(request);
              const denied = check(request);
              if (denied !== undefined) throw denied;
            };
      route.preHandler = withHookFirst(hook, route.preHandler);
    });

    // Callback-style hook: an anonymous request costs no promise.
    app.addHook('onRequest', (request, _reply, done) => {
      const header = request.headers.authorization;
      if (header === undefined || header === '') return done();
      authenticator.authenticate(request, header, request.ip).then((user) => {
        request.user = user;
        done();
      }, done);
    });
  },
  { name: 'almanac-access' },
);
