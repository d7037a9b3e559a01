import type { FastifyInstance } from 'fastify';
import type { ChangesService } from '../changes/changes.service.ts';
import { retentionSeconds } from '../changes/changes.retention.ts';
import type { CalendarDeps } from '../common/context.ts';
import { deliverySettingsOf } from './webhooks.delivery.ts';
import { WebhookDispatcher } from './webhooks.dispatch.ts';
import { webhooksRoutes } from './webhooks.routes.ts';
import { WebhooksService } from './webhooks.service.ts';
import { WebhookWorker } from './webhooks.worker.ts';

/** Attempts one process makes at once. */
const CONCURRENCY = 8;

/**
 * Webhooks (issue 24): the administrators' routes, and this process's
 * delivery worker (unless WEBHOOK_DELIVERY is off), whose rounds the
 * server's `BackgroundWork` runs from when the server is ready until it closes.
 */
export async function webhooksPlugin(
  app: FastifyInstance,
  { deps, changes }: { deps: CalendarDeps; changes: ChangesService },
): Promise<void> {
  const { config, store, site, versions, background } = deps;
  const settings = deliverySettingsOf(config);
  await app.register(webhooksRoutes, { service: new WebhooksService(store.db, settings) });
  if (!config.webhookDelivery) return;
  new WebhookWorker({
    db: store.db,
    settings,
    dispatcher: new WebhookDispatcher({ db: store.db, config, site, versions, settings: deps.settings, changes }),
    log: app.log.child({ component: 'webhooks' }),
    background,
    pollMs: config.webhookPollMs,
    concurrency: CONCURRENCY,
    keepLogMs: retentionSeconds(config) * 1000,
  });
}
