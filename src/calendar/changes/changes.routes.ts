import { cacheKey } from '../../platform/cache/read-cache.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { isCacheable, requestContext, type CalendarDeps } from '../common/context.ts';
import { WpErrorSchema } from '../common/schemas.ts';
import { ChangesPageSchema, ChangesQuerySchema } from './changes.schemas.ts';
import type { ChangesService } from './changes.service.ts';

/** `GET /changes`: incremental sync (issue 23, docs/calendar-changes.md). */
export async function changesRoutes(
  app: FastifyInstance,
  { deps, service }: { deps: CalendarDeps; service: ChangesService },
): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().get('/changes', {
    config: { access: 'public', collection: 'changes' },
    schema: {
      operationId: 'listChanges',
      tags: ['calendar'],
      summary: 'What changed since a sync token: items as their lists show them, tombstones for what the caller no longer sees',
      querystring: ChangesQuerySchema,
      response: { 200: ChangesPageSchema, 400: WpErrorSchema, 410: WpErrorSchema },
    },
    handler: async (request, reply) => {
      // Not for HTTP caches: a sync answer moves with every write. Anonymous pollers holding one token ask the same
      // question until the calendar changes, so their answer is cached per calendar version (ADR 22), and per hour:
      // a cached next token was issued at most an hour before it is handed out. A new sync's token is not cached: two
      // alike would tell that nothing was written between them, drafts included.
      const hour = Math.floor(Date.now() / 3_600_000);
      const resumes = request.query.sync_token !== undefined || request.query.page_token !== undefined;
      const key = resumes && isCacheable(request, {}) ? cacheKey(request.url, hour) : undefined;
      void reply.header('cache-control', 'private, no-store');
      return deps.answers.answer(reply, key, async () => ({ payload: await service.read(request.query, requestContext(request, deps)) }));
    },
  });
}
