import type { FastifyInstance } from 'fastify';
import type { Store } from '../db/database.ts';
import { AppError } from '../errors.ts';

export async function healthRoutes(app: FastifyInstance, { store }: { store: Store }): Promise<void> {
  app.get('/healthz', {
    config: { access: 'public' },
    schema: { tags: ['platform'], summary: 'Liveness: the process answers' },
    handler: async () => ({ status: 'ok' }),
  });

  app.get('/readyz', {
    config: { access: 'public' },
    schema: { tags: ['platform'], summary: 'Readiness: the database answers' },
    handler: async (request) => {
      try {
        await store.ping();
      } catch (error) {
        request.log.warn({ err: error }, 'database not reachable');
        throw new AppError(503, 'not_ready', 'The database is not reachable.');
      }
      return { status: 'ok', database: store.dialect };
    },
  });
}
