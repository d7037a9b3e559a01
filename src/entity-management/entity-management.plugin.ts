import type { FastifyInstance } from 'fastify';
import type { BackgroundWork } from '../platform/background.ts';
import type { Store } from '../platform/db/database.ts';
import { revisionOf } from '../platform/db/revisions.ts';
import { PlatformErrors } from '../platform/errors.ts';
import { cacheBudgets, ReadCache } from '../platform/cache/read-cache.ts';
import { CachedAnswers } from '../platform/http/cached-answers.ts';
import { actionsRoutes } from './actions/actions.routes.ts';
import { ActionsService } from './actions/actions.service.ts';
import { Definitions, DEFINITIONS_POLL_MS } from './definitions.ts';
import { entitiesRoutes } from './entities.routes.ts';
import { EntitiesService } from './entities.service.ts';
import { sendEnvelopeError } from './envelope.ts';
import { sqlBackend } from './provider/sql/sql-provider.ts';
import { ErrorEnvelopeSchema, toTypeSchema } from './schemas.ts';
import { declareErrorSchema } from '../platform/openapi/contract.ts';
import { seedDefinitions } from './seed/definitions.seed.ts';

export interface EntityManagementOptions {
  readonly store: Store;
  /** RESPONSE_CACHE_MB in bytes: answers to record reads cached per revision. */
  readonly responseCacheBytes: number;
  /** Runs the poll for definitions reloaded by other processes. */
  readonly background: BackgroundWork;
}

/**
 * The entity-management surface (`/apiservice/api/services`): seeds the
 * back-end's definitions on first start, loads them, serves records and
 * actions, renders every error in the `{messages, payload}` envelope, and
 * follows definition changes made by other processes.
 */
export async function entityManagementPlugin(
  app: FastifyInstance,
  { store, responseCacheBytes, background }: EntityManagementOptions,
): Promise<void> {
  await seedDefinitions(store);
  const definitions = await Definitions.load(store.db, app.log);
  const context = { backend: sqlBackend(store), definitions };

  app.setErrorHandler(sendEnvelopeError);
  declareErrorSchema(app, ErrorEnvelopeSchema);
  app.setNotFoundHandler(async (request, reply) => sendEnvelopeError(PlatformErrors.noRoute(), request, reply));

  const types = definitions.current.catalog.mappings.map((mapping) => mapping.type);
  for (const type of types) app.addSchema(toTypeSchema(type));
  // Record reads are the same for every caller allowed to read: cached per `entities` revision (ADR 22), read with
  // the `auth` revision that authenticated the request.
  const cache = new ReadCache(cacheBudgets(responseCacheBytes));
  const answers = new CachedAnswers(cache, (request) => revisionOf(store.db, request, 'entities'), responseCacheBytes > 0);
  await app.register(entitiesRoutes, {
    prefix: '/entity-management',
    service: new EntitiesService(context),
    answers,
    segments: types.map((type) => type.segment),
  });
  await app.register(actionsRoutes, { prefix: '/actions', service: new ActionsService(context) });

  background.every({ name: 'follow entity definitions', everyMs: DEFINITIONS_POLL_MS, run: () => definitions.refresh() });
}
