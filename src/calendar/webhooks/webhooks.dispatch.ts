import { randomUUID } from 'node:crypto';
import type { Config } from '../../config/config.ts';
import type { Db } from '../../platform/db/schema.ts';
import type { ChangeType } from '../calendar.tables.ts';
import { listHeardChanges, readLogState, recordDuePublications, type HeardChange } from '../changes/changes.repository.ts';
import type { ChangesService } from '../changes/changes.service.ts';
import { CHANGE_TYPES, encodeToken } from '../changes/changes.tokens.ts';
import { utcStamp } from '../posts/posts.access.ts';
import type { CalendarVersions } from '../common/calendar-version.ts';
import type { RequestContext, Site } from '../common/context.ts';
import type { SiteSettingsService } from '../settings/settings.service.ts';
import {
  activeWebhooks,
  findAnnounced,
  insertDeliveries,
  lockDispatchCursor,
  moveDispatchCursor,
  readDispatchCursor,
  setAnnounced,
  type DispatchCursor,
  type ItemKey,
} from './webhooks.repository.ts';
import type { WebhookAction } from './webhooks.schemas.ts';

/** Changes turned into deliveries per transaction. */
const BATCH = 200;

export interface DispatcherDeps {
  readonly db: Db;
  readonly config: Config;
  readonly site: Site;
  readonly versions: CalendarVersions;
  readonly settings: SiteSettingsService;
  readonly changes: ChangesService;
}

interface Notice {
  readonly row: HeardChange;
  readonly action: WebhookAction;
}

/**
 * Turns the change log into deliveries (issue 24). The log is the outbox:
 * written by the database in the transaction of each change, numbered in
 * commit order, so reading it after a cursor misses nothing that committed
 * (changes.repository.ts). What subscribers hear is what anonymous readers
 * see, read as the anonymous sync reads the log (listHeardChanges: each
 * change at its place for them, a removal where the item left the public
 * lists, changes they cannot see not at all): an item that appears in the public
 * lists is `created`, one that changes there `updated`, one that leaves them
 * (deleted, trashed, unpublished, hidden) `deleted`; drafts, private and
 * pending items are never announced. Several changes to an item before it
 * is dispatched are one notice, and the receiver re-reads the item.
 */
export class WebhookDispatcher {
  constructor(private readonly deps: DispatcherDeps) {}

  /** Dispatches what the log holds after the cursor, a batch at a time; returns how many changes it read. */
  async dispatch(now = new Date()): Promise<number> {
    let read = 0;
    for (;;) {
      const batch = await this.dispatchBatch(now);
      read += batch;
      if (batch < BATCH) return read;
    }
  }

  private async dispatchBatch(now: Date): Promise<number> {
    const { db } = this.deps;
    const subscribers = (await activeWebhooks(db)).map((webhook) => ({
      id: webhook.id,
      events: new Set(JSON.parse(webhook.events) as string[]),
    }));
    if (subscribers.length === 0) return 0;
    let state = await readLogState(db, utcStamp(now));
    if (state.due) {
      // A scheduled item whose time has come is a change of now, as a sync records it.
      await db.transaction().execute((trx) => recordDuePublications(trx, utcStamp(now)));
      state = await readLogState(db, utcStamp(now));
    }
    const cursor = await readDispatchCursor(db);
    const rows = await listHeardChanges(db, { kind: 'published' }, cursorOf(cursor), state.revision, CHANGE_TYPES, BATCH);
    if (rows.length === 0) return 0;
    // Read outside the transaction: on SQLite a read through `db` would wait for the transaction's connection.
    const notices = await this.notices(rows, now);
    const last = rows.at(-1)!;
    const deliveries = notices.flatMap(({ row, action }) => {
      const event = `${row.type}.${action}`;
      const payload = JSON.stringify({
        type: event,
        timestamp: `${row.changedAt.replace(' ', 'T')}Z`,
        data: { id: row.id, type: row.type, sync_token: this.syncTokenBefore(state.key, row.place, now) },
      });
      return subscribers
        .filter((subscriber) => subscriber.events.has('*') || subscriber.events.has(event))
        .map((subscriber) => ({
          webhook_id: subscriber.id,
          message_id: `msg_${randomUUID().replaceAll('-', '')}`,
          event,
          item_type: row.type,
          item_id: row.id,
          payload,
          status: 'pending' as const,
          attempts: 0,
          next_attempt_at: now.toISOString(),
          created_at: now.toISOString(),
        }));
    });
    const done = await db.transaction().execute(async (trx) => {
      const held = await lockDispatchCursor(trx);
      // Another process is dispatching, or has dispatched this batch since it was read.
      if (held === undefined || held.seq !== cursor.seq || held.type !== cursor.type || held.id !== cursor.id) return false;
      await insertDeliveries(trx, deliveries);
      const key = (notice: Notice): ItemKey => ({ type: notice.row.type, id: notice.row.id });
      await setAnnounced(
        trx,
        notices.filter((notice) => notice.action !== 'deleted').map(key),
        notices.filter((notice) => notice.action === 'deleted').map(key),
      );
      await moveDispatchCursor(trx, { seq: last.place, type: last.type, id: last.id });
      return true;
    });
    return done ? rows.length : 0;
  }

  /** What each change is to anonymous readers, given what subscribers were told before. */
  private async notices(rows: readonly HeardChange[], now: Date): Promise<Notice[]> {
    const { config, site, versions, changes } = this.deps;
    const anonymous: RequestContext = {
      user: null,
      language: config.defaultLanguage,
      defaultLanguage: config.defaultLanguage,
      site,
      settings: await this.deps.settings.latest(),
      address: '',
      version: () => versions.of({ calendarVersion: null }),
    };
    const listed = new Set<string>();
    for (const type of CHANGE_TYPES) {
      const ids = rows.filter((row) => row.type === type && row.shown).map((row) => row.id);
      if (ids.length === 0) continue;
      for (const item of await changes.listed(type, ids, anonymous, now)) listed.add(`${type}:${String(item.id)}`);
    }
    const announced = await findAnnounced(this.deps.db, rows);
    return rows.flatMap((row): Notice[] => {
      const key = `${row.type}:${row.id}`;
      if (listed.has(key)) return [{ row, action: announced.has(key) ? 'updated' : 'created' }];
      return announced.has(key) ? [{ row, action: 'deleted' }] : [];
    });
  }

  /** A token of the anonymous sync that starts just before the change at `place`: the receiver reads it and what came after. */
  private syncTokenBefore(key: string, place: number, now: Date): string {
    const { config } = this.deps;
    return encodeToken(key, {
      types: CHANGE_TYPES,
      language: config.defaultLanguage,
      user: 0,
      from: place - 1,
      issued: Math.floor(now.getTime() / 1000),
    });
  }
}

function cursorOf(cursor: DispatchCursor): { seq: number; type?: ChangeType; id?: number } {
  return cursor.type === '' ? { seq: cursor.seq } : { seq: cursor.seq, type: cursor.type as ChangeType, id: cursor.id };
}
