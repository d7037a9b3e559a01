import { isOlder, type ReadCache } from '../../platform/cache/read-cache.ts';
import type { Db } from '../../platform/db/schema.ts';
import { oncePerTick, revisionOfTick } from '../../platform/db/revisions.ts';
import { listEventChangesAbove } from '../changes/changes.repository.ts';
import { utcStamp } from '../posts/posts.access.ts';
import { findNextPublication } from './publications.repository.ts';

/** More events changed than this since the last invalidation: every representation is invalidated rather than picked out. */
const MAX_CHANGED = 2_000;

/**
 * A span of time in which nothing the calendar shows can change: from `from` (a UTC stamp) until `until`, at one
 * revision. The calendar changes by a write, which bumps the revision, or by the clock, when a scheduled post
 * reaches its date (`until`). Whatever is computed from the database in a version holds for the whole version — a
 * term count, a list total, a public answer — so it is computed once in it (`once`), and stays exact across
 * processes and over time.
 */
export class CalendarVersion {
  constructor(
    /** The read cache this version's values are computed once in. */
    readonly cache: ReadCache,
    readonly revision: number,
    readonly from: string,
    /** The next publication of a scheduled post; null when none is scheduled. */
    readonly until: string | null,
  ) {}

  holdsAt(revision: number, now: string): boolean {
    return this.revision === revision && this.from <= now && (this.until === null || now < this.until);
  }

  /**
   * The instant to compute at in this version: `now`, or the version's start when `now` comes before it. A request
   * reads the clock before its version, and a scheduled publication may fall between the two: what it computes
   * at the earlier instant would be cached for a version in which that post is public.
   */
  instantFrom(now: Date): Date {
    const from = Date.parse(`${this.from.replace(' ', 'T')}Z`);
    return now.getTime() < from ? new Date(from) : now;
  }

  /** The value `key` (`cacheKey`) names in this version, computed once in it by `produce`; `bytes` says what it weighs. */
  once<T>(key: string, produce: () => Promise<T>, bytes: (value: T) => number): Promise<T> {
    return this.cache.once(this, key, produce, bytes);
  }
}

/** A request's slot for its version: the calendar plugin decorates every request, which costs less than a side table. */
export interface CalendarVersionHolder {
  calendarVersion: Promise<CalendarVersion> | null;
}

/**
 * The calendar's versions as requests that only read see them, and the one invalidation routine of the cache's item
 * representations.
 *
 * The revision comes from the event-loop tick's read of every revision (one statement for all requests of the tick,
 * shared with the other surfaces, see `oncePerTick`), and a request keeps the version it first got, so its answer,
 * list total and term counts agree. The same object for as long as it holds. Before a new version is handed out, the
 * representations of the events changed since the last one are invalidated (`invalidate`), whatever process wrote.
 * Writes never use a version: they count what they wrote, inside their transaction.
 */
export class CalendarVersions {
  private known: CalendarVersion | undefined;
  private readonly ofTick: () => Promise<CalendarVersion>;
  /** The last invalidation started: each runs after the one before. */
  private invalidation: Promise<unknown> = Promise.resolve();
  /**
   * The latest version invalidated up to, which the next is compared with. Not `known` as a tick found it: two
   * ticks may make versions at once, and a version made alongside another must see whether that one's scheduled
   * publication has passed since.
   */
  private invalidated: CalendarVersion | undefined;
  /** The `settings` revision of `invalidated`. */
  private invalidatedSettings: number | undefined;
  /** The version being made for a new revision (its invalidation under way). */
  private pending: { readonly revision: number; readonly version: Promise<CalendarVersion> } | undefined;

  constructor(
    private readonly db: Db,
    private readonly cache: ReadCache,
    now: () => Date = () => new Date(),
  ) {
    this.ofTick = oncePerTick(async () => {
      // Both asked at once, so both come from the tick's one read of the revisions.
      const [calendar, settings] = await Promise.all([revisionOfTick(db, 'calendar'), revisionOfTick(db, 'settings')]);
      return this.at(calendar, settings, now());
    });
  }

  /** The version `request` reads at: read once for it, when first asked, and held in its slot. */
  of(request: CalendarVersionHolder): Promise<CalendarVersion> {
    return (request.calendarVersion ??= this.ofTick());
  }

  private async at(revision: number, settingsRevision: number, now: Date): Promise<CalendarVersion> {
    const stamp = utcStamp(now);
    const known = this.known;
    if (known?.holdsAt(revision, stamp) === true) return known;
    // Ticks that see a new revision while its version is being made share that version: two objects for one
    // revision would take turns emptying the cache's per-version values.
    const pending = this.pending;
    if (pending?.revision === revision) {
      const version = await pending.version;
      if (version.holdsAt(revision, stamp)) return version;
    }
    const made = this.make(revision, settingsRevision, stamp);
    this.pending = { revision, version: made };
    // A failed one is not shared: the next tick makes it again.
    made.catch(() => {
      if (this.pending?.version === made) this.pending = undefined;
    });
    return made;
  }

  private async make(revision: number, settingsRevision: number, stamp: string): Promise<CalendarVersion> {
    const version = new CalendarVersion(this.cache, revision, stamp, await findNextPublication(this.db, stamp));
    // Invalidations run one after another; a failed one fails its requests, and the next starts again from where it began.
    const invalidation = this.invalidation.catch(() => undefined).then(() => this.invalidateUpTo(version, settingsRevision));
    this.invalidation = invalidation;
    await invalidation;
    if (this.known === undefined || this.known.revision <= version.revision) this.known = version;
    return version;
  }

  private async invalidateUpTo(version: CalendarVersion, settingsRevision: number): Promise<void> {
    const previous = this.invalidated;
    // The site's settings shape representations (the default language, the currency of costs): a change invalidates them all.
    if (previous !== undefined && settingsRevision !== this.invalidatedSettings) this.cache.invalidateItems(undefined, version);
    else await this.invalidate(previous, version);
    if (previous === undefined || isOlder(previous, version)) {
      this.invalidated = version;
      this.invalidatedSettings = settingsRevision;
    }
  }

  /**
   * Invalidates the representations of the events changed after `previous` up to `version`. The change log keeps
   * one entry per event, at its last change, and an event's entry moves there when what it embeds changes (a
   * venue, an organizer, a term: ADR 13); it is read past `version`, since an event written by then may have
   * been written again. A scheduled publication passing, a pruned log or too many changes invalidate everything.
   */
  private async invalidate(previous: CalendarVersion | undefined, version: CalendarVersion): Promise<void> {
    if (previous === undefined) return this.cache.invalidateItems([], version);
    if (previous.until !== null && version.from >= previous.until) return this.cache.invalidateItems(undefined, version);
    if (version.revision <= previous.revision) return;
    this.cache.invalidateItems(await changedEventsAbove(this.db, previous.revision), version);
  }
}

/**
 * The events changed after `revision`, read from the change log past any version (an event has one entry, at its
 * last change, so one written by then may have been written again since): undefined when the log cannot name them
 * all (more than MAX_CHANGED, or a prune deleted removals after `revision`).
 */
export async function changedEventsAbove(db: Db, revision: number): Promise<number[] | undefined> {
  const { changes, floor } = await listEventChangesAbove(db, revision, MAX_CHANGED + 1);
  return changes.length <= MAX_CHANGED && floor <= revision ? [...new Set(changes.map((change) => change.id))] : undefined;
}
