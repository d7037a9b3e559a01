import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { Store } from '../db/database.ts';
import { PlatformErrors } from '../errors.ts';

export async function healthRoutes(app: FastifyInstance, { store }: { store: Store }): Promise<void> {
  // What this process answers now: a cached answer would hide a process that stopped, or a database that went away.
  app.addHook('onRequest', (_request, reply, done) => {
    void reply.header('cache-control', 'no-store');
    done();
  });
  app.get('/healthz', {
    config: { access: 'public' },
    schema: {
      operationId: 'getHealth',
      tags: ['platform'],
      summary: 'Liveness: the process answers',
      response: { 200: Type.Object({ status: Type.Literal('ok') }) },
    },
    handler: async () => ({ status: 'ok' }),
  });

  app.get('/readyz', {
    config: { access: 'public', errors: [503] },
    schema: {
      operationId: 'getReadiness',
      tags: ['platform'],
      summary: 'Readiness: the database answers (503 when it does not)',
      response: { 200: Type.Object({ status: Type.Literal('ok'), database: Type.String() }) },
    },
    handler: async (request) => {
      try {
        await store.ping();
      } catch (error) {
        request.log.warn({ err: error }, 'database not reachable');
        throw PlatformErrors.databaseUnreachable();
      }
      return { status: 'ok', database: store.dialect };
    },
  });
}
