import type { Config } from '../../config/config.ts';
import type { Db } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import type { ChangeType } from '../calendar.tables.ts';
import type { EventsService } from '../events/events.service.ts';
import type { LinkedPostsService } from '../linked-posts/linked-posts.service.ts';
import { listVisibility, utcStamp } from '../posts/posts.access.ts';
import type { RequestContext } from '../common/context.ts';
import { invalidParam, parseList } from '../common/wire.ts';
import type { TermsService } from '../terms/terms.service.ts';
import {
  listHeardChanges,
  readLogState,
  recordDuePublications,
  type ChangeCursor,
  type HeardChange,
  type LogState,
} from './changes.repository.ts';
import { DEFAULT_PER_PAGE, type ChangeEntry, type ChangesPage, type ChangesQuery } from './changes.schemas.ts';
import { retentionSeconds } from './changes.retention.ts';
import { CHANGE_TYPES, decodeToken, encodeToken, type SyncPosition, type SyncScope } from './changes.tokens.ts';

export interface ChangesServiceDeps {
  readonly db: Db;
  readonly config: Config;
  readonly events: EventsService;
  readonly venues: LinkedPostsService;
  readonly organizers: LinkedPostsService;
  readonly categories: TermsService;
  readonly tags: TermsService;
}

const expired = () =>
  new AppError(
    410,
    'rest_sync_token_expired',
    'The sync token has expired or is not one this calendar issued: start a new sync without one.',
  );

/**
 * Incremental sync (issue 23): what changed since a client last synced,
 * oldest first, each item as its list shows it to the caller or, gone from
 * the caller's view, as a tombstone. The change log is numbered by the
 * calendar revision (changes.repository.ts), in commit order, so a sync up
 * to the revision it read misses nothing committed before, in any process.
 */
export class ChangesService {
  constructor(private readonly deps: ChangesServiceDeps) {}

  async read(query: ChangesQuery, ctx: RequestContext): Promise<ChangesPage> {
    const { db, config } = this.deps;
    if (query.sync_token !== undefined && query.page_token !== undefined) {
      throw invalidParam('page_token', 'Send sync_token to start reading a sync, then page_token for its next pages; not both.');
    }
    const now = new Date();
    const issued = Math.floor(now.getTime() / 1000);
    const token = query.page_token ?? query.sync_token;
    const name = query.page_token === undefined ? 'sync_token' : 'page_token';
    let state = await readLogState(db, utcStamp(now));
    const position = token === undefined ? undefined : decodeToken(state.key, token);
    if (token !== undefined && position === undefined) throw expired();
    // Everything is checked before scheduled publications are recorded: a refused request writes nothing.
    if (position === undefined) {
      const scope = scopeOf(query, ctx);
      state = await withDuePublications(db, state, now);
      return { changes: [], next_sync_token: encodeToken(state.key, { ...scope, from: state.revision, issued }) };
    }
    if ((position.page === undefined) !== (name === 'sync_token')) {
      throw invalidParam(
        name,
        name === 'sync_token' ? 'This is a page token: send it as page_token.' : 'This is a sync token: send it as sync_token.',
      );
    }
    checkScope(position, query, ctx, name);
    const tooOld = position.issued < issued - retentionSeconds(config);
    if (tooOld || position.from < state.floor || position.from > state.revision) throw expired();
    if (position.page === undefined) state = await withDuePublications(db, state, now);

    const upTo = position.page?.upTo ?? state.revision;
    const perPage = query.per_page ?? DEFAULT_PER_PAGE;
    const { changes, resumeAfter } = await this.page(position, upTo, perPage, { ...ctx, language: position.language }, now);
    if (resumeAfter !== undefined) {
      return { changes, next_page_token: encodeToken(state.key, { ...position, page: { upTo, after: resumeAfter } }) };
    }
    return { changes, next_sync_token: encodeToken(state.key, { ...position, page: undefined, from: upTo, issued }) };
  }

  /**
   * Up to `perPage` entries of the sync at `position`, read until the page is full of entries the caller sees or
   * the log ends at `upTo` (then `resumeAfter` is undefined): a page is never short, or empty, because of changes
   * hidden from the caller while more of its own follow. Only the changes the caller hears of are read
   * (listHeardChanges); one presented as nothing (its item left the caller's lists after `upTo`: the next sync
   * tells) is read past. A page resumes after the last entry it sent.
   */
  private async page(
    position: SyncPosition,
    upTo: number,
    perPage: number,
    ctx: RequestContext,
    now: Date,
  ): Promise<{ changes: ChangeEntry[]; resumeAfter?: Required<ChangeCursor> }> {
    const visibility = listVisibility(ctx.user);
    const changes: ChangeEntry[] = [];
    let cursor: ChangeCursor = position.page?.after ?? { seq: position.from };
    for (;;) {
      const wanted = perPage - changes.length;
      const rows = await listHeardChanges(this.deps.db, visibility, cursor, upTo, position.types, wanted + 1);
      const read = rows.slice(0, wanted);
      changes.push(...(await this.present(read, ctx, now)));
      const last = read.at(-1);
      if (rows.length <= wanted || last === undefined) return { changes };
      const next: Required<ChangeCursor> = { seq: last.place, type: last.type, id: last.id };
      // Full only if every row read gave an entry: the last is the caller's.
      if (changes.length === perPage) return { changes, resumeAfter: next };
      cursor = next;
    }
  }

  /**
   * The changes of a page as entries: the items the caller's lists show, as they show them, and tombstones for the
   * items they showed and no longer do. An item that left the lists since the change was read (a change after the
   * sync's end, which the next sync sends) gives no entry.
   */
  private async present(rows: readonly HeardChange[], ctx: RequestContext, now: Date): Promise<ChangeEntry[]> {
    const shown = new Map<string, Record<string, unknown>>();
    for (const type of CHANGE_TYPES) {
      const ids = rows.filter((row) => row.type === type && row.shown).map((row) => row.id);
      if (ids.length === 0) continue;
      for (const item of await this.listed(type, ids, ctx, now)) shown.set(`${type}:${String(item.id)}`, item);
    }
    return rows.flatMap((row): ChangeEntry[] => {
      const item = shown.get(`${row.type}:${row.id}`);
      if (item !== undefined) return [{ id: row.id, type: row.type, deleted: false, item }];
      return row.shown ? [] : [{ id: row.id, type: row.type, deleted: true }];
    });
  }

  /** The items among `ids` that the list of their type shows the caller, as it shows them (webhooks ask it for anonymous callers). */
  async listed(type: ChangeType, ids: readonly number[], ctx: RequestContext, now: Date): Promise<Record<string, unknown>[]> {
    const { events, venues, organizers, categories, tags } = this.deps;
    switch (type) {
      case 'event':
        return (await events.listByIds(ids, ctx, now)).map((shown) => ({ ...shown.event }));
      case 'venue':
        return (await venues.listByIds(ids, ctx)).map((item) => ({ ...item }));
      case 'organizer':
        return (await organizers.listByIds(ids, ctx)).map((item) => ({ ...item }));
      case 'category':
        return (await categories.listByIds(ids, ctx)).map((item) => ({ ...item }));
      case 'tag':
        return (await tags.listByIds(ids, ctx)).map((item) => ({ ...item }));
    }
  }
}

/** A sync (not its next pages) reads up to now: scheduled items whose time has come are changes of now. */
async function withDuePublications(db: Db, state: LogState, now: Date): Promise<LogState> {
  if (!state.due) return state;
  await db.transaction().execute((trx) => recordDuePublications(trx, utcStamp(now)));
  return readLogState(db, utcStamp(now));
}

/** What a new sync is of: the types and language asked, for this caller. */
function scopeOf(query: ChangesQuery, ctx: RequestContext): SyncScope {
  return { types: typesOf(query.type) ?? CHANGE_TYPES, language: ctx.language, user: ctx.user?.id ?? 0 };
}

function typesOf(raw: unknown): ChangeType[] | undefined {
  if (raw === undefined) return undefined;
  const asked = parseList(raw).map((type) => type.toLowerCase());
  if (asked.length === 0 || asked.some((type) => !(CHANGE_TYPES as readonly string[]).includes(type))) {
    throw invalidParam('type', `type takes ${CHANGE_TYPES.join(', ')}.`);
  }
  return CHANGE_TYPES.filter((type) => asked.includes(type));
}

/** A token goes on with what it started with: another caller or other filters are a new sync. */
function checkScope(position: SyncPosition, query: ChangesQuery, ctx: RequestContext, name: string): void {
  if (position.user !== (ctx.user?.id ?? 0))
    throw invalidParam(name, `The ${name} was issued to another caller: start a sync of your own.`);
  const types = typesOf(query.type);
  if (types !== undefined && types.join() !== position.types.join()) {
    throw invalidParam('type', `The ${name} syncs ${position.types.join(', ')}: start a new sync for other types.`);
  }
  if (query.translation_language !== undefined && query.translation_language !== position.language) {
    throw invalidParam('translation_language', `The ${name} syncs in ${position.language}: start a new sync for another language.`);
  }
}
