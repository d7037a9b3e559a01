import type { FastifyInstance } from 'fastify';
import type { Store } from '../platform/db/database.ts';
import { revisionOf } from '../platform/db/revisions.ts';
import { PlatformErrors } from '../platform/errors.ts';
import { RememberedAnswers } from '../platform/http/remembered-answers.ts';
import { actionsRoutes } from './actions/actions.routes.ts';
import { Definitions } from './definitions.ts';
import { entitiesRoutes } from './entities.routes.ts';
import { sendEnvelopeError } from './envelope.ts';
import { sqlBackend } from './provider/sql/sql-provider.ts';
import { ErrorEnvelopeSchema, toTypeSchema } from './schemas.ts';
import { declareErrorSchema } from '../platform/openapi/contract.ts';
import { seedDefinitions } from './seed/definitions.seed.ts';

export interface EntityManagementOptions {
  readonly store: Store;
  /** RESPONSE_CACHE_MB in bytes: remembered answers to record reads. */
  readonly responseCacheBytes: number;
}

/**
 * The entity-management surface (`/apiservice/api/services`): seeds the
 * back-end's definitions on first start, loads them, serves records and
 * actions, renders every error in the `{messages, payload}` envelope, and
 * follows definition changes made by other processes.
 */
export async function entityManagementPlugin(app: FastifyInstance, { store, responseCacheBytes }: EntityManagementOptions): Promise<void> {
  await seedDefinitions(store);
  const definitions = await Definitions.load(store.db, app.log);
  const context = { backend: sqlBackend(store), definitions };

  app.setErrorHandler(sendEnvelopeError);
  declareErrorSchema(app, ErrorEnvelopeSchema);
  app.setNotFoundHandler(async (request, reply) => sendEnvelopeError(PlatformErrors.noRoute(), request, reply));

  const types = definitions.current.catalog.mappings.map((mapping) => mapping.type);
  for (const type of types) app.addSchema(toTypeSchema(type));
  // Record reads are the same for every caller allowed to read: remembered per `entities` revision (ADR 9),
  // read with the `auth` revision that authenticated the request.
  const answers = new RememberedAnswers((request) => revisionOf(store.db, request, 'entities'), responseCacheBytes);
  await app.register(entitiesRoutes, { prefix: '/entity-management', context, answers, segments: types.map((type) => type.segment) });
  await app.register(actionsRoutes, { prefix: '/actions', context });

  const timer = definitions.watch();
  app.addHook('onClose', async () => clearInterval(timer));
}
