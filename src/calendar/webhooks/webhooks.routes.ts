import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
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

/**
 * Webhook subscriptions (issue 24, docs/calendar-webhooks.md), for
 * administrators only: CRUD, secret rotation, the delivery log, replays and
 * a test ping. Never cached: they hold what only administrators see.
 */
export async function webhooksRoutes(app: FastifyInstance, { service }: { service: WebhooksService }): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const access = 'manage_webhooks';
  const tags = ['calendar', 'webhooks'];
  const errors = { 400: WpErrorSchema, 401: WpErrorSchema, 403: WpErrorSchema, 404: WpErrorSchema };
  const item = '/webhooks/:id(^\\d+$)';
  const paged = <T>(reply: FastifyReply, page: Page<T>) => {
    void reply.header('cache-control', 'private, no-store').headers(archiveHeaders(page.total, page.totalPages, {}));
    return page.items;
  };
  app.addHook('onSend', async (_request, reply) => {
    void reply.header('cache-control', 'private, no-store');
  });

  typed.get('/webhooks', {
    config: { access },
    schema: {
      operationId: 'listWebhooks',
      tags,
      summary: 'List webhook subscriptions',
      querystring: ListWebhooksQuerySchema,
      response: { 200: Type.Array(WebhookSchema), ...errors },
    },
    handler: async (request, reply) => paged(reply, await service.list(request.query)),
  });

  typed.post('/webhooks', {
    config: { access },
    schema: {
      operationId: 'createWebhook',
      tags,
      summary: 'Subscribe a URL to calendar changes; the answer holds its signing secret, shown only once',
      body: CreateWebhookSchema,
      response: { 201: WebhookWithSecretSchema, ...errors },
    },
    handler: async (request, reply) => reply.code(201).send(await service.create(request.body, request.user!)),
  });

  typed.get(item, {
    config: { access },
    schema: {
      operationId: 'getWebhook',
      tags,
      summary: 'A webhook subscription',
      params: WebhookParamsSchema,
      response: { 200: WebhookSchema, ...errors },
    },
    handler: async (request) => service.get(request.params.id),
  });

  typed.put(item, {
    config: { access },
    schema: {
      operationId: 'updateWebhook',
      tags,
      summary: 'Change a subscription: only the fields sent; active=true enables it again after it was disabled',
      params: WebhookParamsSchema,
      body: UpdateWebhookSchema,
      response: { 200: WebhookSchema, ...errors },
    },
    handler: async (request) => service.update(request.params.id, request.body),
  });

  typed.delete(item, {
    config: { access },
    schema: {
      operationId: 'deleteWebhook',
      tags,
      summary: 'Delete a subscription and its delivery log',
      params: WebhookParamsSchema,
      response: { 200: DeletedWebhookSchema, ...errors },
    },
    handler: async (request) => service.remove(request.params.id),
  });

  typed.post(`${item}/rotate-secret`, {
    config: { access },
    schema: {
      operationId: 'rotateWebhookSecret',
      tags,
      summary: 'A new signing secret, shown only once; the old one also signs during the overlap',
      params: WebhookParamsSchema,
      body: Type.Optional(RotateSecretSchema),
      response: { 200: WebhookWithSecretSchema, ...errors },
    },
    handler: async (request) => service.rotateSecret(request.params.id, request.body ?? {}),
  });

  typed.post(`${item}/ping`, {
    config: { access },
    schema: {
      operationId: 'pingWebhook',
      tags,
      summary: 'Send a webhook.ping now and answer how the receiver took it (not retried)',
      params: WebhookParamsSchema,
      response: { 200: DeliverySchema, ...errors },
    },
    handler: async (request) => service.ping(request.params.id),
  });

  typed.get(`${item}/deliveries`, {
    config: { access },
    schema: {
      operationId: 'listWebhookDeliveries',
      tags,
      summary: "A subscription's deliveries, newest first",
      params: WebhookParamsSchema,
      querystring: ListDeliveriesQuerySchema,
      response: { 200: Type.Array(DeliverySchema), ...errors },
    },
    handler: async (request, reply) => paged(reply, await service.deliveries(request.params.id, request.query)),
  });

  typed.post(`${item}/deliveries/:delivery_id(^\\d+$)/replay`, {
    config: { access },
    schema: {
      operationId: 'replayWebhookDelivery',
      tags,
      summary: 'Deliver a message again (same webhook-id and body), as a new delivery',
      params: DeliveryParamsSchema,
      response: { 202: DeliverySchema, ...errors },
    },
    handler: async (request, reply) => reply.code(202).send(await service.replay(request.params.id, request.params.delivery_id)),
  });
}
