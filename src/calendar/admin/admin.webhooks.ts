import type { Static } from 'typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PlatformErrors } from '../../platform/errors.ts';
import { deliverySettingsOf } from '../webhooks/webhooks.delivery.ts';
import { CreateWebhookSchema, UpdateWebhookSchema, WEBHOOK_EVENTS, type Webhook } from '../webhooks/webhooks.schemas.ts';
import { WebhooksService } from '../webhooks/webhooks.service.ts';
import type { AdminContext } from './admin.context.ts';
import * as forms from './admin.forms.ts';
import type { AdminDictionary } from './admin.i18n.ts';

const config = { access: 'manage_webhooks' } as const;
/** The subscriptions an administrator sees at once, and the deliveries shown of one. */
const MAX_LISTED = 100;
const DELIVERIES_SHOWN = 10;

type IdRequest = FastifyRequest<{ Params: Static<typeof forms.IdParams> }>;

/** `/admin/webhooks/` (administrators): subscriptions through the API's service and schemas, with their last deliveries. */
export async function webhookRoutes(app: FastifyInstance, { context }: { context: AdminContext }): Promise<void> {
  const service = new WebhooksService(context.services.deps.store.db, deliverySettingsOf(context.config));
  const typing = { checkboxes: ['active'], groups: ['events'], optional: ['description'] };
  const form = (body: object, params?: object) => forms.formRoute(config.access, typing, body, params);
  app.get('/admin/webhooks', { config, schema: { hide: true, querystring: forms.FormQuery }, handler: listWebhooks(context, service) });
  app.get('/admin/webhooks/new', { config, schema: { hide: true }, handler: newWebhook(context) });
  app.post('/admin/webhooks/new', { ...form(CreateWebhookSchema), handler: createWebhook(context, service) });
  const edit = '/admin/webhooks/:id/edit';
  app.get(edit, {
    config,
    schema: { hide: true, params: forms.IdParams, querystring: forms.FormQuery },
    handler: editWebhook(context, service),
  });
  app.post(edit, { ...form(UpdateWebhookSchema, forms.IdParams), handler: updateWebhook(context, service) });
  app.post('/admin/webhooks/:id/delete', {
    config,
    schema: { hide: true, params: forms.IdParams, body: forms.CsrfOnly },
    handler: deleteWebhook(context, service),
  });
}

function fieldsOf(t: AdminDictionary): forms.Field[] {
  return [
    { name: 'url', label: t.webhook.url, type: 'url', required: true, hint: t.webhook.urlHint },
    { name: 'description', label: t.webhook.description, type: 'textarea' },
    {
      name: 'events',
      label: t.webhook.events,
      type: 'checkboxes',
      options: WEBHOOK_EVENTS.map((event) => ({ value: event, label: event === '*' ? t.webhook.everything : event })),
    },
    { name: 'active', label: t.webhook.active, type: 'checkbox' },
  ];
}

const valuesOf = (webhook: Webhook): forms.Values => ({
  url: webhook.url,
  description: webhook.description,
  events: webhook.events.join(','),
  active: webhook.active ? '1' : '0',
});

function listWebhooks(context: AdminContext, service: WebhooksService) {
  return async (request: FastifyRequest<{ Querystring: Static<typeof forms.FormQuery> }>, reply: FastifyReply) => {
    const page = context.page(request);
    const { t } = page;
    const { items, total } = await service.list({ page: 1, per_page: MAX_LISTED });
    const base = `${context.config.basePath}/admin/webhooks`;
    return forms.sendList(context, request, reply, {
      heading: t.nav.webhooks,
      add: { href: `${base}/new`, label: t.webhook.add },
      columns: [t.webhook.url, t.webhook.events, t.webhook.state],
      rows: items.map((webhook) => ({
        href: `${base}/${webhook.id}/edit`,
        cells: [webhook.url, webhook.events.join(', '), stateOf(t, webhook)],
      })),
      total,
      notice: forms.noticeOf(page, request.query),
    });
  };
}

const stateOf = (t: AdminDictionary, webhook: Webhook) =>
  webhook.active ? t.webhook.on : webhook.disabled_reason === null ? t.webhook.off : `${t.webhook.off}: ${webhook.disabled_reason}`;

interface WebhookForm {
  readonly id?: number;
  readonly values: forms.Values;
  readonly errors?: forms.FieldErrors;
  readonly notice?: string;
  /** The signing secret of a subscription just made: shown this once. */
  readonly secret?: string;
}

async function sendWebhookForm(
  context: AdminContext,
  service: WebhooksService,
  request: FastifyRequest,
  reply: FastifyReply,
  form: WebhookForm,
) {
  const { t } = context.page(request);
  const base = `${context.config.basePath}/admin/webhooks`;
  const deliveries = form.id === undefined ? [] : (await service.deliveries(form.id, { page: 1, per_page: DELIVERIES_SHOWN })).items;
  return forms.sendForm(context, request, reply, {
    heading: form.id === undefined ? t.webhook.add : t.webhook.edit,
    action: form.id === undefined ? `${base}/new` : `${base}/${form.id}/edit`,
    fields: fieldsOf(t),
    values: form.values,
    errors: form.errors,
    notice: form.notice,
    submit: t.form.save,
    buttons: form.id === undefined ? [] : [{ action: `${base}/${form.id}/delete`, label: t.form.delete }],
    after: form.id === undefined ? undefined : { template: 'deliveries', model: { deliveries, secret: form.secret } },
    back: { href: `${base}/`, label: t.form.back },
  });
}

function newWebhook(context: AdminContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const { t } = context.page(request);
    return forms.sendForm(context, request, reply, {
      heading: t.webhook.add,
      action: `${context.config.basePath}/admin/webhooks/new`,
      fields: fieldsOf(t),
      values: { events: '*', active: '1' },
      submit: t.form.save,
      back: { href: `${context.config.basePath}/admin/webhooks/`, label: t.form.back },
    });
  };
}

function createWebhook(context: AdminContext, service: WebhooksService) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const page = context.page(request);
    const user = request.user;
    if (user === null) throw PlatformErrors.forbidden(false);
    let created: (Webhook & { secret: string }) | undefined;
    const errors =
      forms.validationErrorsOf(request, page) ??
      (await forms.attempt(page, async () => {
        created = await service.create(forms.inputOf(request.body) as Static<typeof CreateWebhookSchema>, user);
      }));
    if (errors !== undefined || created === undefined)
      return sendWebhookForm(context, service, request, reply, { values: forms.typedValues(request), errors });
    // The secret is shown once, on the new subscription's page, rather than after a redirect that would lose it.
    return sendWebhookForm(context, service, request, reply, {
      id: created.id,
      values: valuesOf(created),
      notice: page.t.form.saved,
      secret: created.secret,
    });
  };
}

function editWebhook(context: AdminContext, service: WebhooksService) {
  return async (request: forms.ItemPageRequest, reply: FastifyReply) => {
    const webhook = await service.get(request.params.id);
    return sendWebhookForm(context, service, request, reply, {
      id: webhook.id,
      values: valuesOf(webhook),
      notice: forms.noticeOf(context.page(request), request.query),
    });
  };
}

function updateWebhook(context: AdminContext, service: WebhooksService) {
  return async (request: IdRequest, reply: FastifyReply) => {
    const { id } = request.params;
    const page = context.page(request);
    await service.get(id);
    const errors =
      forms.validationErrorsOf(request, page) ??
      (await forms.attempt(page, () => service.update(id, forms.inputOf(request.body) as Static<typeof UpdateWebhookSchema>)));
    if (errors !== undefined) return sendWebhookForm(context, service, request, reply, { id, values: forms.typedValues(request), errors });
    return reply.redirect(`${context.config.basePath}/admin/webhooks/${id}/edit?saved=1`, 303);
  };
}

function deleteWebhook(context: AdminContext, service: WebhooksService) {
  return async (request: IdRequest, reply: FastifyReply) => {
    await service.remove(request.params.id);
    return reply.redirect(`${context.config.basePath}/admin/webhooks/?deleted=1`, 303);
  };
}
