import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { PlatformErrors } from '../errors.ts';

const WINDOW_MS = 60_000;

/**
 * `RATE_LIMIT_PER_MINUTE` requests per fixed minute window, per credential
 * (or per client address when anonymous), with the IETF `RateLimit-*`
 * headers. Counted per process (docs/deploy.md): N processes behind a
 * balancer admit up to N times the limit.
 */
export const rateLimitPlugin = fp<{ perMinute: number; now?: () => number }>(
  async (app: FastifyInstance, { perMinute, now = Date.now }) => {
    if (perMinute <= 0) return;
    let windowStart = now();
    let counts = new Map<string, number>();

    // Registered after authentication, so the credential is known.
    app.addHook('onRequest', async (request, reply) => {
      const at = now();
      if (at - windowStart >= WINDOW_MS) {
        windowStart = at - ((at - windowStart) % WINDOW_MS);
        counts = new Map();
      }
      const key = request.user === null ? `address:${request.ip}` : `user:${request.user.id}`;
      const used = (counts.get(key) ?? 0) + 1;
      counts.set(key, used);
      const resetSeconds = Math.max(1, Math.ceil((windowStart + WINDOW_MS - at) / 1000));
      void reply.headers({
        'ratelimit-limit': String(perMinute),
        'ratelimit-remaining': String(Math.max(0, perMinute - used)),
        'ratelimit-reset': String(resetSeconds),
      });
      if (used > perMinute) throw PlatformErrors.tooManyRequests(resetSeconds);
    });
  },
  { name: 'almanac-rate-limit', dependencies: ['almanac-access'] },
);
