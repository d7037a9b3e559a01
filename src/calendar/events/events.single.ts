import type { Db } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import { findVersion } from '../changes/changes.repository.ts';
import { canEdit, canRead } from '../posts/posts.access.ts';
import type { RequestContext } from '../common/context.ts';
import type { Versioned } from '../common/versioned.ts';
import { eventIdOf, eventRowOf, type EventRef } from './events.lookup.ts';
import { toEventJsonLd } from './events.mapper.ts';
import type { EventPresenter, EventWithRow } from './events.present.ts';
import type { EventEntry } from './events.representations.ts';
import type { EventRow } from './events.repository.ts';
import type { EventResponse, ReadEventQuery } from './events.schemas.ts';

export const readErrors = {
  noLongerAvailable: () => new AppError(403, 'event-no-longer-available', 'This event is no longer available'),
  notAccessible: () => new AppError(403, 'event-not-accessible', 'The requested event is not accessible'),
  passwordProtected: () => new AppError(403, 'event-password-protected', 'The requested event is not accessible without a password'),
};

/** A single read: the event, the version its ETag names, and its cached entry when there is one. */
export interface SingleRead extends EventWithRow {
  /**
   * Only for a caller who may edit the event, who may send it back in If-Match. The version also moves with
   * what others are not shown (a draft venue's or organizer's edits): a tag naming it would move while their
   * answer stays the same, telling them that hidden content changed, so theirs are tagged by their bytes alone.
   */
  readonly version: number | undefined;
  readonly entry: EventEntry | undefined;
}

/** Reads of one event by id or slug, with the refusals of the reference (trashed, not readable, protected). */
export class SingleEventReads {
  constructor(
    private readonly db: Db,
    private readonly presenter: EventPresenter,
  ) {}

  async read(ref: EventRef, query: ReadEventQuery, caller: RequestContext, now: Date): Promise<SingleRead> {
    const id = await eventIdOf(this.db, ref);
    const at = await caller.version();
    // An anonymous read of a cached event by id reads no row: had the row changed, the change log would have invalidated it.
    const known = 'id' in ref ? await this.presenter.knownRead(this.db, id, caller, at) : undefined;
    if (known !== undefined) {
      const { row } = known.entry;
      await this.mayRead(row, query, caller, now);
      return { row, event: known.event, version: undefined, entry: known.entry };
    }
    // Read before the event: a tag may name an older version than its body (a write would then be refused), never a newer one.
    // Not for an anonymous caller, who edits nothing.
    const version = caller.user === null ? undefined : await findVersion(this.db, 'event', id);
    const row = await eventRowOf(this.db, ref, id);
    await this.mayRead(row, query, caller, now);
    const [event] = await this.presenter.represent(this.db, [row], caller, now, at);
    return {
      row,
      event: event as EventResponse,
      version: canEdit(caller.user, row, now) ? version : undefined,
      entry: this.presenter.entryOf(row, caller),
    };
  }

  /**
   * The events among `ids` that a single read would give the caller, as it gives them, in one batch (one statement
   * for the rows, the representations cache, the embeds in batch queries); those it would refuse left out.
   */
  async readMany(ids: readonly number[], query: ReadEventQuery, caller: RequestContext, now: Date): Promise<EventWithRow[]> {
    const at = await caller.version();
    const rows = (await this.presenter.rowsOf(this.db, ids, caller)).filter(
      (row) => row.status !== 'trash' && canRead(caller.user, row, now),
    );
    const unlocked = await this.presenter.unlocked(rows, query, caller, now);
    const readable = rows.filter((row) => unlocked.has(row.id));
    const events = await this.presenter.represent(this.db, readable, caller, now, at);
    return readable.map((row, index) => ({ row, event: events[index] as EventResponse }));
  }

  /** The read with its JSON-LD (computed once per cached event); never for a password-protected post, as the reference. */
  withJsonLd({ row, event, version, entry }: SingleRead, caller: RequestContext): Versioned<EventResponse> {
    if (row.password_hash !== null) return { item: event, version };
    const jsonLd =
      entry === undefined ? toEventJsonLd(row, event, caller.language) : (entry.jsonLd ??= toEventJsonLd(row, event, caller.language));
    return { item: { ...event, json_ld: jsonLd }, version };
  }

  /** Refuses a single read of `row` the caller may not make: trashed, not readable, or protected and not unlocked. */
  private async mayRead(row: EventRow, query: ReadEventQuery, caller: RequestContext, now: Date): Promise<void> {
    if (row.status === 'trash') throw readErrors.noLongerAvailable();
    if (!canRead(caller.user, row, now)) throw readErrors.notAccessible();
    if (!(await this.presenter.unlocked([row], query, caller, now)).has(row.id)) throw readErrors.passwordProtected();
  }
}
