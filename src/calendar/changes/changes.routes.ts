import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requestContext, type CalendarDeps } from '../shared/context.ts';
import { WpErrorSchema } from '../shared/schemas.ts';
import { ChangesPageSchema, ChangesQuerySchema } from './changes.schemas.ts';
import type { ChangesService } from './changes.service.ts';

/** `GET /changes`: incremental sync (issue 23, docs/calendar-changes.md). */
export async function changesRoutes(
  app: FastifyInstance,
  { deps, service }: { deps: CalendarDeps; service: ChangesService },
): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().get('/changes', {
    config: { access: 'public' },
    schema: {
      operationId: 'listChanges',
      tags: ['calendar'],
      summary: 'What changed since a sync token: items as their lists show them, tombstones for what the caller no longer sees',
      querystring: ChangesQuerySchema,
      response: { 200: ChangesPageSchema, 400: WpErrorSchema, 410: WpErrorSchema },
    },
    handler: async (request, reply) => {
      const page = await service.read(request.query, requestContext(request, deps));
      // What a sync answers depends on the caller and moves with every write: no cache keeps it.
      return reply.header('cache-control', 'private, no-store').send(page);
    },
  });
}
