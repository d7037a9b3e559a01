import { randomBytes, randomUUID } from 'node:crypto';
import type { Db } from '../../platform/db/schema.ts';
import { checkTargetUrl } from '../../platform/http/outbound.ts';
import { AppError } from '../../platform/errors.ts';
import type { AuthUser } from '../../platform/auth/authenticate.ts';
import { invalidParam, parseList, parseWpBoolean } from '../common/wire.ts';
import { utcStamp } from '../posts/posts.access.ts';
import { totalPages } from '../common/pagination.ts';
import { deliver, leaseMs, type DeliverySettings } from './webhooks.delivery.ts';
import {
  deleteWebhook,
  dispatchFromNow,
  findDelivery,
  findWebhook,
  insertDeliveries,
  insertWebhook,
  listDeliveries,
  listWebhooks,
  othersActive,
  updateWebhook,
  type DeliveryRow,
  type WebhookRow,
} from './webhooks.repository.ts';
import {
  DEFAULT_PER_PAGE,
  PING_EVENT,
  type CreateWebhook,
  type Delivery,
  type ListDeliveriesQuery,
  type ListWebhooksQuery,
  type RotateSecret,
  type UpdateWebhook,
  type Webhook,
  type WebhookWithSecret,
} from './webhooks.schemas.ts';

export interface Page<T> {
  readonly items: T[];
  readonly total: number;
  readonly totalPages: number;
}

const notFound = () => new AppError(404, 'rest_webhook_invalid_id', 'Invalid webhook ID.', { status: 404 });
const deliveryNotFound = () => new AppError(404, 'rest_webhook_delivery_invalid_id', 'Invalid delivery ID.', { status: 404 });

/** A new signing secret: Standard Webhooks' `whsec_` and 32 random bytes in base64. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * Webhook subscriptions as administrators manage them (issue 24,
 * docs/calendar-webhooks.md): what they receive and where, their secrets,
 * their delivery log, replays and test pings.
 */
export class WebhooksService {
  constructor(
    private readonly db: Db,
    private readonly settings: DeliverySettings,
  ) {}

  async list(query: ListWebhooksQuery): Promise<Page<Webhook>> {
    const perPage = query.per_page ?? DEFAULT_PER_PAGE;
    const { rows, total } = await listWebhooks(this.db, ((query.page ?? 1) - 1) * perPage, perPage);
    return { items: rows.map((row) => presentWebhook(row)), total, totalPages: totalPages(total, perPage) };
  }

  async get(id: number): Promise<Webhook> {
    return presentWebhook(await this.find(id));
  }

  async create(body: CreateWebhook, user: AuthUser): Promise<WebhookWithSecret> {
    const url = this.checkUrl(body.url);
    const events = eventsOf(body.events ?? '*');
    const active = parseWpBoolean(body.active) ?? true;
    const now = new Date().toISOString();
    const secret = newSecret();
    const row = await this.db.transaction().execute(async (trx) => {
      const created = await insertWebhook(trx, {
        url,
        description: body.description ?? '',
        events: JSON.stringify(events),
        active: active ? 1 : 0,
        secret,
        failure_count: 0,
        author_id: user.id,
        created_at: now,
        updated_at: now,
      });
      if (active && !(await othersActive(trx, created.id))) await dispatchFromNow(trx, utcStamp(new Date()));
      return created;
    });
    return { ...presentWebhook(row), secret };
  }

  async update(id: number, body: UpdateWebhook): Promise<Webhook> {
    const url = body.url === undefined ? undefined : this.checkUrl(body.url);
    const events = body.events === undefined ? undefined : JSON.stringify(eventsOf(body.events));
    const active = parseWpBoolean(body.active);
    const row = await this.db.transaction().execute(async (trx) => {
      const before = await findWebhook(trx, id);
      if (before === undefined) throw notFound();
      // Enabled again by an administrator: the failure streak and its reason are over.
      const enabling = active === true && before.active !== 1;
      if (enabling && !(await othersActive(trx, id))) await dispatchFromNow(trx, utcStamp(new Date()));
      return updateWebhook(trx, id, {
        url,
        events,
        description: body.description,
        updated_at: new Date().toISOString(),
        ...(active === undefined ? {} : { active: active ? 1 : 0, disabled_reason: null }),
        ...(enabling ? { failure_count: 0, retry_after: null } : {}),
      });
    });
    if (row === undefined) throw notFound();
    return presentWebhook(row);
  }

  async remove(id: number): Promise<{ deleted: true; previous: Webhook }> {
    const previous = await this.db.transaction().execute(async (trx) => {
      const row = await findWebhook(trx, id);
      if (row === undefined) throw notFound();
      await deleteWebhook(trx, id);
      return row;
    });
    return { deleted: true, previous: presentWebhook(previous) };
  }

  /** A new secret; the old one also signs for `overlap` seconds, so receivers can switch without losing a delivery. */
  async rotateSecret(id: number, body: RotateSecret): Promise<WebhookWithSecret> {
    const secret = newSecret();
    const now = new Date();
    const until = new Date(now.getTime() + (body.overlap ?? 86_400) * 1000).toISOString();
    const row = await this.db.transaction().execute(async (trx) => {
      const before = await findWebhook(trx, id);
      if (before === undefined) throw notFound();
      return updateWebhook(trx, id, {
        secret,
        previous_secret: before.secret,
        previous_secret_until: until,
        updated_at: now.toISOString(),
      });
    });
    if (row === undefined) throw notFound();
    return { ...presentWebhook(row, now), secret };
  }

  async deliveries(id: number, query: ListDeliveriesQuery): Promise<Page<Delivery>> {
    await this.find(id);
    const perPage = query.per_page ?? DEFAULT_PER_PAGE;
    const { rows, total } = await listDeliveries(this.db, id, query.status, ((query.page ?? 1) - 1) * perPage, perPage);
    return { items: rows.map(presentDelivery), total, totalPages: totalPages(total, perPage) };
  }

  /** The same message (same `webhook-id`, same body) delivered again, as a new delivery the workers make. */
  async replay(id: number, deliveryId: number): Promise<Delivery> {
    await this.find(id);
    const original = await findDelivery(this.db, id, deliveryId);
    if (original === undefined) throw deliveryNotFound();
    const now = new Date().toISOString();
    const [copy] = await this.db.transaction().execute((trx) =>
      insertDeliveries(trx, [
        {
          webhook_id: id,
          message_id: original.message_id,
          event: original.event,
          item_type: original.item_type,
          item_id: original.item_id,
          payload: original.payload,
          status: 'pending',
          attempts: 0,
          next_attempt_at: now,
          created_at: now,
        },
      ]),
    );
    return presentDelivery(copy!);
  }

  /**
   * Sends a `webhook.ping` now, whether the subscription is active or not,
   * and answers how it went; it is in the delivery log, and is not retried.
   */
  async ping(id: number): Promise<Delivery> {
    const webhook = await this.find(id);
    const now = new Date();
    const payload = JSON.stringify({ type: PING_EVENT, timestamp: now.toISOString(), data: { webhook_id: id } });
    const [row] = await this.db.transaction().execute((trx) =>
      insertDeliveries(trx, [
        {
          webhook_id: id,
          message_id: `msg_${randomUUID().replaceAll('-', '')}`,
          event: PING_EVENT,
          payload,
          status: 'sending',
          attempts: 1,
          next_attempt_at: now.toISOString(),
          lease_until: new Date(now.getTime() + leaseMs(this.settings)).toISOString(),
          last_attempt_at: now.toISOString(),
          created_at: now.toISOString(),
        },
      ]),
    );
    const claimed = {
      ...row!,
      url: webhook.url,
      secret: webhook.secret,
      previous_secret: webhook.previous_secret,
      previous_secret_until: webhook.previous_secret_until,
    };
    // A ping is a question asked now: not retried (retryForMs 0), and its failure does not count against the subscription.
    await deliver(this.db, { ...this.settings, retryForMs: 0 }, claimed, { countsFailures: false });
    return presentDelivery((await findDelivery(this.db, id, row!.id))!);
  }

  private async find(id: number): Promise<WebhookRow> {
    const row = await findWebhook(this.db, id);
    if (row === undefined) throw notFound();
    return row;
  }

  private checkUrl(url: string): string {
    const problem = checkTargetUrl(url, this.settings.allow);
    if (problem !== undefined) throw invalidParam('url', problem);
    return url;
  }
}

/** The event names asked, each once; `*` alone when asked with others. */
function eventsOf(raw: string | readonly string[]): string[] {
  const names = [...new Set(parseList(raw))];
  if (names.length === 0) throw invalidParam('events', 'Name at least one event, or *.');
  return names.includes('*') ? ['*'] : names;
}

function presentWebhook(row: WebhookRow, now = new Date()): Webhook {
  const overlapping = row.previous_secret !== null && row.previous_secret_until !== null && row.previous_secret_until > now.toISOString();
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as string[],
    active: row.active === 1,
    disabled_reason: row.disabled_reason,
    failure_count: row.failure_count,
    previous_secret_expires: overlapping ? row.previous_secret_until : null,
    created: row.created_at,
    modified: row.updated_at,
  };
}

function presentDelivery(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    message_id: row.message_id,
    event: row.event,
    item: row.item_type === null || row.item_id === null ? null : { type: row.item_type, id: row.item_id },
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    status: row.status,
    attempts: row.attempts,
    next_attempt: row.status === 'pending' ? row.next_attempt_at : null,
    last_attempt: row.last_attempt_at,
    response_status: row.response_status,
    response_time_ms: row.response_ms,
    error: row.last_error,
    created: row.created_at,
  };
}
