import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { isPostgres } from '../../platform/db/dialect-of.ts';
import type { Db } from '../../platform/db/schema.ts';
import type { ChangeType, DeliveryStatus, WebhookDeliveryTable, WebhookTable } from '../calendar.tables.ts';

/**
 * Webhook subscriptions, their deliveries, and where dispatching stands in
 * the change log (migration 2026-11-29T0100-webhooks). Times are ISO 8601
 * UTC strings with milliseconds, which compare as text.
 */

export type WebhookRow = Selectable<WebhookTable>;
export type DeliveryRow = Selectable<WebhookDeliveryTable>;

export async function insertWebhook(trx: Db, values: Insertable<WebhookTable>): Promise<WebhookRow> {
  return trx.insertInto('calendar_webhooks').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findWebhook(db: Db, id: number): Promise<WebhookRow | undefined> {
  return db.selectFrom('calendar_webhooks').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listWebhooks(db: Db, offset: number, limit: number): Promise<{ rows: WebhookRow[]; total: number }> {
  const rows = await db.selectFrom('calendar_webhooks').selectAll().orderBy('id').offset(offset).limit(limit).execute();
  const count = await db
    .selectFrom('calendar_webhooks')
    .select((eb) => eb.fn.countAll<number | string>().as('total'))
    .executeTakeFirstOrThrow();
  return { rows, total: Number(count.total) };
}

export async function updateWebhook(trx: Db, id: number, values: Updateable<WebhookTable>): Promise<WebhookRow | undefined> {
  return trx.updateTable('calendar_webhooks').set(values).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function deleteWebhook(trx: Db, id: number): Promise<void> {
  await trx.deleteFrom('calendar_webhook_deliveries').where('webhook_id', '=', id).execute();
  await trx.deleteFrom('calendar_webhooks').where('id', '=', id).execute();
}

/** The subscriptions deliveries are made for now: their ids and the event names they take. */
export async function activeWebhooks(db: Db): Promise<{ id: number; events: string }[]> {
  return db.selectFrom('calendar_webhooks').select(['id', 'events']).where('active', '=', 1).execute();
}

/** Whether any subscription other than `except` receives deliveries. */
export async function othersActive(trx: Db, except: number): Promise<boolean> {
  const row = await trx.selectFrom('calendar_webhooks').select('id').where('active', '=', 1).where('id', '<>', except).executeTakeFirst();
  return row !== undefined;
}

/** Where dispatching stands: changes placed after (seq, type, item_id) in the log anonymous readers hear of (listHeardChanges) are not yet deliveries. */
export interface DispatchCursor {
  readonly seq: number;
  readonly type: string;
  readonly id: number;
}

export async function readDispatchCursor(db: Db): Promise<DispatchCursor> {
  const row = await db
    .selectFrom('calendar_webhook_dispatch')
    .select(['seq', 'type', 'item_id'])
    .where('id', '=', 1)
    .executeTakeFirstOrThrow();
  return { seq: Number(row.seq), type: row.type, id: row.item_id };
}

/**
 * The cursor, held by this transaction until it commits; `undefined` when
 * another process is dispatching (PostgreSQL: SKIP LOCKED; SQLite's one
 * writer needs no lock).
 */
export async function lockDispatchCursor(trx: Db): Promise<DispatchCursor | undefined> {
  const query = trx.selectFrom('calendar_webhook_dispatch').select(['seq', 'type', 'item_id']).where('id', '=', 1);
  const row = await (isPostgres(trx) ? query.forUpdate().skipLocked() : query).executeTakeFirst();
  return row === undefined ? undefined : { seq: Number(row.seq), type: row.type, id: row.item_id };
}

export async function moveDispatchCursor(trx: Db, cursor: DispatchCursor): Promise<void> {
  await trx
    .updateTable('calendar_webhook_dispatch')
    .set({ seq: cursor.seq, type: cursor.type, item_id: cursor.id })
    .where('id', '=', 1)
    .execute();
}

/**
 * Starts dispatching from now (`now`: a UTC stamp): changes made while no
 * subscription was active are nobody's deliveries. What subscribers are told
 * anonymous readers see starts as what they list now — published and due
 * items, events as lists show them (occurrences, not their series), terms —
 * or an item published meanwhile would never be announced as removed. The
 * cursor moves first: a change committed between the statements is
 * dispatched again rather than missed.
 */
export async function dispatchFromNow(trx: Db, now: string): Promise<void> {
  await sql`update calendar_webhook_dispatch set seq = (select value from revisions where name = 'calendar'), type = '', item_id = 0
    where id = 1`.execute(trx);
  await trx.deleteFrom('calendar_webhook_announced').execute();
  const published = sql`(status = 'publish' or (status = 'future' and date_utc <= ${now}))`;
  await sql`insert into calendar_webhook_announced (type, item_id)
    select 'event', id from events where ${published} and hide_from_listings = 0 and (recurrence is null or parent_id is not null)
    union all select 'venue', id from venues where ${published}
    union all select 'organizer', id from organizers where ${published}
    union all select taxonomy, id from terms`.execute(trx);
}

export interface ItemKey {
  readonly type: ChangeType;
  readonly id: number;
}

/** Which of `items` subscribers were last told anonymous readers see, as `type:id` keys. */
export async function findAnnounced(db: Db, items: readonly ItemKey[]): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  const rows = await db
    .selectFrom('calendar_webhook_announced')
    .select(['type', 'item_id'])
    .where((eb) => eb.or(items.map((item) => eb.and([eb('type', '=', item.type), eb('item_id', '=', item.id)]))))
    .execute();
  return new Set(rows.map((row) => `${row.type}:${row.item_id}`));
}

export async function setAnnounced(trx: Db, shown: readonly ItemKey[], gone: readonly ItemKey[]): Promise<void> {
  if (shown.length > 0) {
    await trx
      .insertInto('calendar_webhook_announced')
      .values(shown.map((item) => ({ type: item.type, item_id: item.id })))
      .onConflict((oc) => oc.columns(['type', 'item_id']).doNothing())
      .execute();
  }
  if (gone.length > 0) {
    await trx
      .deleteFrom('calendar_webhook_announced')
      .where((eb) => eb.or(gone.map((item) => eb.and([eb('type', '=', item.type), eb('item_id', '=', item.id)]))))
      .execute();
  }
}

export async function insertDeliveries(trx: Db, rows: readonly Insertable<WebhookDeliveryTable>[]): Promise<DeliveryRow[]> {
  const inserted: DeliveryRow[] = [];
  // A few hundred rows per statement keeps PostgreSQL's and SQLite's parameter limits far away.
  for (let start = 0; start < rows.length; start += 200) {
    inserted.push(
      ...(await trx
        .insertInto('calendar_webhook_deliveries')
        .values(rows.slice(start, start + 200))
        .returningAll()
        .execute()),
    );
  }
  return inserted;
}

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery extends DeliveryRow {
  readonly url: string;
  readonly secret: string;
  readonly previous_secret: string | null;
  readonly previous_secret_until: string | null;
}

/** Deliveries whose attempt is due at `now` (or whose sending process died: its lease ran out), to active subscribers not waiting after a failure. */
function dueDeliveries(db: Db, now: string) {
  return db
    .selectFrom('calendar_webhook_deliveries as d')
    .innerJoin('calendar_webhooks as w', 'w.id', 'd.webhook_id')
    .where('w.active', '=', 1)
    .where((eb) => eb.or([eb('w.retry_after', 'is', null), eb('w.retry_after', '<=', now)]))
    .where((eb) =>
      eb.or([
        eb.and([eb('d.status', '=', 'pending'), eb('d.next_attempt_at', '<=', now)]),
        eb.and([eb('d.status', '=', 'sending'), eb('d.lease_until', '<=', now)]),
      ]),
    );
}

/** Whether any attempt is due: a worker with nothing to do does not open a write transaction. */
export async function hasDueDeliveries(db: Db, now: string): Promise<boolean> {
  return (await dueDeliveries(db, now).select('d.id').limit(1).executeTakeFirst()) !== undefined;
}

/**
 * Claims up to `limit` due deliveries, one attempt each: they become
 * `sending` until `leaseUntil`, in this transaction, so no other worker
 * takes them. An item's delivery waits for that item's earlier ones (in
 * order per item). PostgreSQL skips rows another worker is claiming;
 * SQLite's one writer claims alone.
 */
export async function claimDue(trx: Db, now: string, leaseUntil: string, limit: number): Promise<ClaimedDelivery[]> {
  let due = dueDeliveries(trx, now)
    .select('d.id')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('calendar_webhook_deliveries as e')
            .select('e.id')
            .whereRef('e.webhook_id', '=', 'd.webhook_id')
            .whereRef('e.item_type', '=', 'd.item_type')
            .whereRef('e.item_id', '=', 'd.item_id')
            .whereRef('e.id', '<', 'd.id')
            .where('e.status', 'in', ['pending', 'sending']),
        ),
      ),
    )
    .orderBy('d.id')
    .limit(limit);
  if (isPostgres(trx)) due = due.forUpdate('d').skipLocked();
  const ids = (await due.execute()).map((row) => row.id);
  if (ids.length === 0) return [];
  await trx
    .updateTable('calendar_webhook_deliveries')
    .set({ status: 'sending', attempts: sql`attempts + 1`, lease_until: leaseUntil, last_attempt_at: now })
    .where('id', 'in', ids)
    .execute();
  return trx
    .selectFrom('calendar_webhook_deliveries as d')
    .innerJoin('calendar_webhooks as w', 'w.id', 'd.webhook_id')
    .selectAll('d')
    .select(['w.url', 'w.secret', 'w.previous_secret', 'w.previous_secret_until'])
    .where('d.id', 'in', ids)
    .orderBy('d.id')
    .execute();
}

/** What an attempt ended with. */
export interface AttemptOutcome {
  readonly status: DeliveryStatus;
  readonly nextAttemptAt: string;
  readonly responseStatus: number | null;
  readonly responseMs: number;
  readonly error: string | null;
}

/**
 * Records attempt `attempt` of a delivery, unless it is no longer this
 * worker's (its lease ran out and another worker claimed it again): then
 * `false`, and the newer attempt's result is the one recorded.
 */
export async function recordAttempt(trx: Db, id: number, attempt: number, outcome: AttemptOutcome): Promise<boolean> {
  const result = await trx
    .updateTable('calendar_webhook_deliveries')
    .set({
      status: outcome.status,
      next_attempt_at: outcome.nextAttemptAt,
      lease_until: null,
      response_status: outcome.responseStatus,
      response_ms: outcome.responseMs,
      last_error: outcome.error,
    })
    .where('id', '=', id)
    .where('status', '=', 'sending')
    .where('attempts', '=', attempt)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A success: the subscriber's failure streak ends. */
export async function clearFailures(trx: Db, webhookId: number): Promise<void> {
  await trx.updateTable('calendar_webhooks').set({ failure_count: 0, retry_after: null }).where('id', '=', webhookId).execute();
}

/**
 * A failed attempt: nothing more goes to the subscriber before `retryAfter`.
 * Attempts made together (claimed before the first of them failed) are one
 * failure. It is disabled, with `reason`, when asked (a 410) or at
 * `disableAfter` failures in a row. Returns whether it was disabled now.
 */
export async function countFailure(
  trx: Db,
  webhookId: number,
  change: { now: string; retryAfter: string; disableAfter: number; disableNow: boolean; reason: (failures: number) => string },
): Promise<boolean> {
  const waiting = sql<boolean>`retry_after is not null and retry_after > ${change.now}`;
  const row = await trx
    .updateTable('calendar_webhooks')
    .set({
      failure_count: sql`case when ${waiting} then failure_count else failure_count + 1 end`,
      retry_after: sql`case when retry_after is not null and retry_after > ${change.retryAfter} then retry_after else ${change.retryAfter} end`,
    })
    .where('id', '=', webhookId)
    .returning(['failure_count', 'active'])
    .executeTakeFirst();
  if (row === undefined || row.active !== 1) return false;
  if (!change.disableNow && row.failure_count < change.disableAfter) return false;
  await trx
    .updateTable('calendar_webhooks')
    .set({ active: 0, disabled_reason: change.reason(row.failure_count) })
    .where('id', '=', webhookId)
    .execute();
  return true;
}

/** Deliveries still pending that were made before `before`: they stop being retried (`failed`). */
export async function giveUpBefore(db: Db, before: string, error: string): Promise<number> {
  const stale = db.selectFrom('calendar_webhook_deliveries').where('status', '=', 'pending').where('created_at', '<', before);
  // Looked for first: an update that finds nothing still takes SQLite's write lock.
  if ((await stale.select('id').limit(1).executeTakeFirst()) === undefined) return 0;
  const result = await db
    .updateTable('calendar_webhook_deliveries')
    .set({ status: 'failed', last_error: error })
    .where('id', 'in', stale.select('id'))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function listDeliveries(
  db: Db,
  webhookId: number,
  status: DeliveryStatus | undefined,
  offset: number,
  limit: number,
): Promise<{ rows: DeliveryRow[]; total: number }> {
  let query = db.selectFrom('calendar_webhook_deliveries').where('webhook_id', '=', webhookId);
  if (status !== undefined) query = query.where('status', '=', status);
  const rows = await query.selectAll().orderBy('id', 'desc').offset(offset).limit(limit).execute();
  const count = await query.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow();
  return { rows, total: Number(count.total) };
}

export async function findDelivery(db: Db, webhookId: number, id: number): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('calendar_webhook_deliveries')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Forgets finished deliveries made before `before`. */
export async function pruneDeliveries(db: Db, before: string): Promise<number> {
  const old = db.selectFrom('calendar_webhook_deliveries').where('status', 'in', ['succeeded', 'failed']).where('created_at', '<', before);
  if ((await old.select('id').limit(1).executeTakeFirst()) === undefined) return 0;
  const result = await db.deleteFrom('calendar_webhook_deliveries').where('id', 'in', old.select('id')).executeTakeFirst();
  return Number(result.numDeletedRows);
}
