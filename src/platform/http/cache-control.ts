import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * What HTTP caches (RFC 9111) may do with each answer, decided in one place
 * so that a CDN or a reverse proxy can take the anonymous read load and
 * never stores what is someone's own:
 *
 * - an anonymous read (GET or HEAD answered 2xx/3xx) is `public` for
 *   `HTTP_CACHE_MAX_AGE_SECONDS`, and may be served that long again while a
 *   cache fetches it anew (`stale-while-revalidate`), so a write shows
 *   through a cache within about that time; its strong ETag makes the
 *   refetch a 304. `Vary: Authorization`: a signed-in caller's answer differs
 *   (unless the route's config says `sameForEveryCaller`).
 * - a read that carries credentials, a cookie or a `password` (a protected
 *   post unlocked) is `private, no-store`: drafts, protected content and
 *   what a role may see stay out of every cache, the browser's disk included.
 * - writes and errors are `no-store` (a 404 or a 410 is cacheable by default).
 *
 * A route that sets its own Cache-Control on an anonymous read keeps it (a
 * versioned stylesheet, a sync answer, a health check). Cookies change no
 * answer, so they are not in Vary: a cache may give a reader with cookies
 * the anonymous answer, which is the one the server would send.
 */

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The answer is the same whoever asks (a page that never acts for its caller): Authorization is not in its Vary. */
    sameForEveryCaller?: boolean;
  }
}

export interface CacheControlOptions {
  /** How long an anonymous read stays fresh in a cache (`HTTP_CACHE_MAX_AGE_SECONDS`); 0: a cache asks every time. */
  readonly maxAgeSeconds: number;
}

/** The Cache-Control of an anonymous read. */
function publicCacheControl(maxAgeSeconds: number): string {
  return maxAgeSeconds === 0 ? 'public, no-cache' : `public, max-age=${maxAgeSeconds}, stale-while-revalidate=${maxAgeSeconds}`;
}

const present = (value: string | undefined) => value !== undefined && value !== '';

/** Whether the answer may be the caller's own: it sent credentials, a cookie or a password. */
function isPersonal(request: FastifyRequest): boolean {
  const { authorization, cookie } = request.headers;
  const query = request.query as { password?: unknown } | null | undefined;
  return present(authorization) || present(cookie) || query?.password !== undefined;
}

/** Adds `name` to the reply's Vary, keeping what others put there (CORS's `Origin`, the pages' `Accept-Language`). */
export function addVary(reply: FastifyReply, name: string): void {
  // Every read passes here, pages and compressed answers once more: no array per field.
  const current = reply.getHeader('vary');
  const listed = Array.isArray(current) ? current.join(', ') : String(current ?? '').trim();
  if (listed === '') return void reply.header('vary', name);
  const wanted = name.toLowerCase();
  for (const field of listed.split(',')) {
    const known = field.trim().toLowerCase();
    if (known === '*' || known === wanted) return;
  }
  void reply.header('vary', `${listed}, ${name}`);
}

/** The Cache-Control an answer gets, or `undefined` to keep the route's own. */
function cacheControlOf(request: FastifyRequest, reply: FastifyReply, maxAgeSeconds: number): string | undefined {
  const read = request.method === 'GET' || request.method === 'HEAD';
  if (!read || reply.statusCode >= 400) return 'no-store';
  if (isPersonal(request)) return 'private, no-store';
  if (reply.hasHeader('cache-control')) return undefined;
  if (request.routeOptions.config.sameForEveryCaller !== true) addVary(reply, 'Authorization');
  return publicCacheControl(maxAgeSeconds);
}

/** Registered before every surface, so that its onSend hook sees each answer as its route made it. */
export const cacheControlPlugin = fp<CacheControlOptions>(
  async (app: FastifyInstance, { maxAgeSeconds }) => {
    app.addHook('onSend', (request, reply, payload, done) => {
      const value = cacheControlOf(request, reply, maxAgeSeconds);
      if (value !== undefined) void reply.header('cache-control', value);
      done(null, payload);
    });
  },
  { name: 'almanac-cache-control' },
);
