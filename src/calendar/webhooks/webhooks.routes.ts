import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Handler } from '../../platform/http/route-handler.ts';
import { archiveHeaders } from '../common/pagination.ts';
import { WpErrorSchema } from '../common/schemas.ts';
import Type from 'typebox';
import type { Page } from './webhooks.service.ts';
import type { WebhooksService } from './webhooks.service.ts';
import {
  CreateWebhookSchema,
  DeletedWebhookSchema,
  DeliveryParamsSchema,
  DeliverySchema,
  ListDeliveriesQuerySchema,
  ListWebhooksQuerySchema,
  RotateSecretSchema,
  UpdateWebhookSchema,
  WebhookParamsSchema,
  WebhookSchema,
  WebhookWithSecretSchema,
} from './webhooks.schemas.ts';

const config = { access: 'manage_webhooks' } as const;
const tags = ['calendar', 'webhooks'];
const errors = { 400: WpErrorSchema, 401: WpErrorSchema, 403: WpErrorSchema, 404: WpErrorSchema };
const ITEM = '/webhooks/:id(^\\d+$)';

/**
 * Webhook subscriptions (issue 24, docs/calendar-webhooks.md), for
 * administrators only: CRUD, secret rotation, the delivery log, replays and
 * a test ping. Never cached: they hold what only administrators see.
 */
export async function webhooksRoutes(app: FastifyInstance, { service }: { service: WebhooksService }): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('onSend', async (_request, reply) => {
    void reply.header('cache-control', 'private, no-store');
  });

  typed.get('/webhooks', { config, schema: listWebhooksSchema, handler: listWebhooks(service) });
  typed.post('/webhooks', { config, schema: createWebhookSchema, handler: createWebhook(service) });
  typed.get(ITEM, { config, schema: getWebhookSchema, handler: getWebhook(service) });
  typed.put(ITEM, { config, schema: updateWebhookSchema, handler: updateWebhook(service) });
  typed.delete(ITEM, { config, schema: deleteWebhookSchema, handler: deleteWebhook(service) });
  typed.post(`${ITEM}/rotate-secret`, { config, schema: rotateWebhookSecretSchema, handler: rotateWebhookSecret(service) });
  typed.post(`${ITEM}/ping`, { config, schema: pingWebhookSchema, handler: pingWebhook(service) });
  typed.get(`${ITEM}/deliveries`, { config, schema: listWebhookDeliveriesSchema, handler: listWebhookDeliveries(service) });
  typed.post(`${ITEM}/deliveries/:delivery_id(^\\d+$)/replay`, {
    config,
    schema: replayWebhookDeliverySchema,
    handler: replayWebhookDelivery(service),
  });
}

/** A page of subscriptions or deliveries: its items, with the totals in headers as the calendar's archives give them. */
function paged<T>(reply: FastifyReply, page: Page<T>): T[] {
  void reply.header('cache-control', 'private, no-store').headers(archiveHeaders(page.total, page.totalPages, {}));
  return page.items;
}

const listWebhooksSchema = {
  operationId: 'listWebhooks',
  tags,
  summary: 'List webhook subscriptions',
  querystring: ListWebhooksQuerySchema,
  response: { 200: Type.Array(WebhookSchema), ...errors },
};
function listWebhooks(service: WebhooksService): Handler<typeof listWebhooksSchema> {
  return async (request, reply) => paged(reply, await service.list(request.query));
}

const createWebhookSchema = {
  operationId: 'createWebhook',
  tags,
  summary: 'Subscribe a URL to calendar changes; the answer holds its signing secret, shown only once',
  body: CreateWebhookSchema,
  response: { 201: WebhookWithSecretSchema, ...errors },
};
function createWebhook(service: WebhooksService): Handler<typeof createWebhookSchema> {
  return async (request, reply) => reply.code(201).send(await service.create(request.body, request.user!));
}

const getWebhookSchema = {
  operationId: 'getWebhook',
  tags,
  summary: 'A webhook subscription',
  params: WebhookParamsSchema,
  response: { 200: WebhookSchema, ...errors },
};
function getWebhook(service: WebhooksService): Handler<typeof getWebhookSchema> {
  return async (request) => service.get(request.params.id);
}

const updateWebhookSchema = {
  operationId: 'updateWebhook',
  tags,
  summary: 'Change a subscription: only the fields sent; active=true enables it again after it was disabled',
  params: WebhookParamsSchema,
  body: UpdateWebhookSchema,
  response: { 200: WebhookSchema, ...errors },
};
function updateWebhook(service: WebhooksService): Handler<typeof updateWebhookSchema> {
  return async (request) => service.update(request.params.id, request.body);
}

const deleteWebhookSchema = {
  operationId: 'deleteWebhook',
  tags,
  summary: 'Delete a subscription and its delivery log',
  params: WebhookParamsSchema,
  response: { 200: DeletedWebhookSchema, ...errors },
};
function deleteWebhook(service: WebhooksService): Handler<typeof deleteWebhookSchema> {
  return async (request) => service.remove(request.params.id);
}

const rotateWebhookSecretSchema = {
  operationId: 'rotateWebhookSecret',
  tags,
  summary: 'A new signing secret, shown only once; the old one also signs during the overlap',
  params: WebhookParamsSchema,
  body: Type.Optional(RotateSecretSchema),
  response: { 200: WebhookWithSecretSchema, ...errors },
};
function rotateWebhookSecret(service: WebhooksService): Handler<typeof rotateWebhookSecretSchema> {
  return async (request) => service.rotateSecret(request.params.id, request.body ?? {});
}

const pingWebhookSchema = {
  operationId: 'pingWebhook',
  tags,
  summary: 'Send a webhook.ping now and answer how the receiver took it (not retried)',
  params: WebhookParamsSchema,
  response: { 200: DeliverySchema, ...errors },
};
function pingWebhook(service: WebhooksService): Handler<typeof pingWebhookSchema> {
  return async (request) => service.ping(request.params.id);
}

const listWebhookDeliveriesSchema = {
  operationId: 'listWebhookDeliveries',
  tags,
  summary: "A subscription's deliveries, newest first",
  params: WebhookParamsSchema,
  querystring: ListDeliveriesQuerySchema,
  response: { 200: Type.Array(DeliverySchema), ...errors },
};
function listWebhookDeliveries(service: WebhooksService): Handler<typeof listWebhookDeliveriesSchema> {
  return async (request, reply) => paged(reply, await service.deliveries(request.params.id, request.query));
}

const replayWebhookDeliverySchema = {
  operationId: 'replayWebhookDelivery',
  tags,
  summary: 'Deliver a message again (same webhook-id and body), as a new delivery',
  params: DeliveryParamsSchema,
  response: { 202: DeliverySchema, ...errors },
};
function replayWebhookDelivery(service: WebhooksService): Handler<typeof replayWebhookDeliverySchema> {
  return async (request, reply) => reply.code(202).send(await service.replay(request.params.id, request.params.delivery_id));
}
