import Type, { type Static, type TSchema } from 'typebox';
import { CHANGE_TYPES } from '../changes/changes.tokens.ts';
import { StringOrListSchema, TextSchema, WpBooleanSchema } from '../common/wire.ts';

/** What a subscription may ask for: a change of one item type, or everything. */
export const WEBHOOK_ACTIONS = ['created', 'updated', 'deleted'] as const;
export type WebhookAction = (typeof WEBHOOK_ACTIONS)[number];
export const WEBHOOK_EVENTS = [...CHANGE_TYPES.flatMap((type) => WEBHOOK_ACTIONS.map((action) => `${type}.${action}`)), '*'];
/** The event of a test ping, which every subscription takes. */
export const PING_EVENT = 'webhook.ping';

export const DEFAULT_PER_PAGE = 10;
export const MAX_PER_PAGE = 100;
/** Pages past it would need offsets storage cannot take (a 500); no log is that long. */
export const MAX_PAGE = 1_000_000;

const EventNameSchema = Type.Enum(WEBHOOK_EVENTS);
const EventsSchema = StringOrListSchema(
  EventNameSchema,
  'The changes it receives: event.created, event.updated, event.deleted, the same for venue, organizer, category and tag, or * for all',
);
const UrlSchema = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'Where deliveries are POSTed: https, or http for hosts WEBHOOK_ALLOW_HOSTS allows',
});
const DescriptionSchema = TextSchema('What the subscription is for, for administrators', { maxLength: 500 });
const ActiveSchema = WpBooleanSchema('Whether deliveries are made (true by default); setting it clears why it was disabled');

export const CreateWebhookSchema = Type.Object({
  url: UrlSchema,
  events: Type.Optional({ ...EventsSchema, default: '*' }),
  description: Type.Optional(DescriptionSchema),
  active: Type.Optional(ActiveSchema),
});
export type CreateWebhook = Static<typeof CreateWebhookSchema>;

export const UpdateWebhookSchema = Type.Object({
  url: Type.Optional(UrlSchema),
  events: Type.Optional(EventsSchema),
  description: Type.Optional(DescriptionSchema),
  active: Type.Optional(ActiveSchema),
});
export type UpdateWebhook = Static<typeof UpdateWebhookSchema>;

export const RotateSecretSchema = Type.Object({
  overlap: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 7 * 86_400,
      default: 86_400,
      description: 'Seconds during which deliveries are also signed with the old secret (default a day; 0 ends it now)',
    }),
  ),
});
export type RotateSecret = Static<typeof RotateSecretSchema>;

const Id = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
export const WebhookParamsSchema = Type.Object({ id: Id });
export const DeliveryParamsSchema = Type.Object({ id: Id, delivery_id: Id });

const PageArgs = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, description: 'Page (1-based)' })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PER_PAGE, default: DEFAULT_PER_PAGE, description: 'Per page' })),
};
export const ListWebhooksQuerySchema = Type.Object(PageArgs);
export type ListWebhooksQuery = Static<typeof ListWebhooksQuerySchema>;

const DeliveryStatusSchema = Type.Union(
  [Type.Literal('pending'), Type.Literal('sending'), Type.Literal('succeeded'), Type.Literal('failed')],
  {
    description: 'pending (waiting for its first or next attempt), sending, succeeded, or failed (given up)',
  },
);
export const ListDeliveriesQuerySchema = Type.Object({ ...PageArgs, status: Type.Optional(DeliveryStatusSchema) });
export type ListDeliveriesQuery = Static<typeof ListDeliveriesQuerySchema>;

const Stamp = (description: string) => Type.String({ format: 'date-time', description });
const OrNull = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const WebhookSchema = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  description: Type.String(),
  events: Type.Array(Type.String()),
  active: Type.Boolean(),
  disabled_reason: OrNull(Type.String({ description: 'Why deliveries stopped: the receiver answered 410, or too many failures in a row' })),
  failure_count: Type.Integer({ description: 'Failed attempts since the last success' }),
  previous_secret_expires: OrNull(Stamp('Until then deliveries are signed with the old secret too')),
  created: Stamp('When it was made (UTC)'),
  modified: Stamp('When it was last changed (UTC)'),
});
export type Webhook = Static<typeof WebhookSchema>;

export const WebhookWithSecretSchema = Type.Object({
  ...WebhookSchema.properties,
  secret: Type.String({ description: 'whsec_…: verifies the webhook-signature header; shown only now' }),
});
export type WebhookWithSecret = Static<typeof WebhookWithSecretSchema>;

export const DeletedWebhookSchema = Type.Object({ deleted: Type.Literal(true), previous: WebhookSchema });

export const DeliverySchema = Type.Object({
  id: Type.Integer(),
  webhook_id: Type.Integer(),
  message_id: Type.String({ description: 'The webhook-id header: the same on every attempt and replay' }),
  event: Type.String(),
  item: OrNull(Type.Object({ type: Type.String(), id: Type.Integer() })),
  payload: Type.Object({}, { additionalProperties: true, description: 'The body sent' }),
  status: DeliveryStatusSchema,
  attempts: Type.Integer(),
  next_attempt: OrNull(Stamp('When it is tried next, while pending')),
  last_attempt: OrNull(Stamp('When it was last tried')),
  response_status: OrNull(Type.Integer({ description: "The receiver's HTTP status at the last attempt" })),
  response_time_ms: OrNull(Type.Integer({ description: 'How long the last attempt took' })),
  error: OrNull(Type.String({ description: 'Why the last attempt failed' })),
  created: Stamp('When the change was dispatched'),
});
export type Delivery = Static<typeof DeliverySchema>;
