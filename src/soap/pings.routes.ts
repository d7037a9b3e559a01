import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { PingService } from './ping.service.ts';
import { ListPingsQuerySchema, PingListSchema } from './pings.schemas.ts';

/** `/pings`: the log that makes a one-way operation observable (administrators). */
export async function pingsRoutes(app: FastifyInstance, { service }: { service: PingService }): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().get('/pings', {
    config: { access: 'soap_pings_read' },
    schema: {
      operationId: 'listSoapPings',
      tags: ['soap'],
      summary: 'Recent SOAP pings, newest first',
      querystring: ListPingsQuerySchema,
      response: { 200: PingListSchema },
    },
    handler: async (request) => service.list(request.query.page, request.query.per_page),
  });
}
