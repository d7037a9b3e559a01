import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.ts';
import type { CalendarVersion } from '../shared/calendar-version.ts';
import { changedEventsSince } from './events.changed.ts';
import { carriedKey, isCarriable } from './events.filters.ts';
import { countEvents, listEventIds, type EventListFilter } from './events.repository.ts';

type Db = Kysely<Database>;

const MAX_ENTRIES = 500;
/** Event ids the totals keep in all, by default (~10 MB). */
const MAX_MEMBERS = 400_000;
/** A carried total not brought up to date for this long is counted again (the change log forgets removals, in days). */
const MAX_CARRIED_AGE_MS = 3_600_000;

/** A public list's total with the events it counts, and the version it is exact at. */
interface Carried {
  readonly members: Set<number>;
  revision: number;
  until: string | null;
  at: number;
  /** The update under way: updates of one total run one after the other. */
  busy: Promise<unknown>;
}

/**
 * The totals of event lists (X-WP-Total), remembered in the calendar version
 * they are read at (calendar-version.ts): within a version neither a write
 * nor the clock can change a total, so one counted at any instant of it
 * holds for the whole version, whatever the filter (its `nowUtc` is left
 * out of the key). Requests of a version that ask for a total being
 * counted wait for that count.
 *
 * Counting a window costs time linear in the events it matches (~45 ms for
 * the default list over 100k events), and every write starts a new version.
 * So the totals of public lists are also carried from version to version
 * (issue 26): a total keeps the ids it counts, and a later version asks the
 * database only which of the events the change log names since then the
 * filter matches now (one statement over at most 2,000 ids), removes the
 * others and adds those. A scheduled publication passing (the version's
 * `until`) changes what is public without a write: the total is counted
 * again, as it is after an hour without use. The ids kept are bounded
 * (`maxMembers`); a total over half of that is counted from then on, its ids
 * not read again (at 1M events the default list's 680k would be, each version).
 */
export class EventTotals {
  private readonly carried = new Map<string, Carried>();
  private members = 0;
  /** Filters whose total was over half the bound: counted each version, their ids never read again. */
  private readonly tooLarge = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly maxMembers: number = MAX_MEMBERS,
  ) {}

  total(version: CalendarVersion, filter: EventListFilter): Promise<number> {
    const entries = version.memo('event-totals', () => new Map<string, Promise<number>>());
    const key = carriedKey(filter);
    let total = entries.get(key);
    if (total === undefined) {
      if (entries.size >= MAX_ENTRIES) entries.clear();
      total = this.counted(version, filter, key);
      entries.set(key, total);
      // A failed count is not remembered for the version.
      total.catch(() => entries.delete(key));
    }
    return total;
  }

  private async counted(version: CalendarVersion, filter: EventListFilter, key: string): Promise<number> {
    if (!isCarriable(filter) || this.maxMembers === 0 || this.tooLarge.has(key)) return countEvents(this.db, filter);
    const entry = this.carried.get(key);
    if (entry === undefined || !this.carries(entry, version)) return this.countAfresh(key, filter, version);
    const advanced = entry.busy.then(() => this.advance(key, entry, filter, version));
    entry.busy = advanced.catch(() => undefined);
    return advanced;
  }

  /** Brings `entry` up to `version` by the events changed since its own; counts afresh when too many changed. */
  private async advance(key: string, entry: Carried, filter: EventListFilter, version: CalendarVersion): Promise<number> {
    if (entry.revision >= version.revision) return entry.members.size;
    const { ids, incomplete } = await changedEventsSince(this.db, version, entry.revision);
    if (incomplete) return this.countAfresh(key, filter, version);
    const matching = ids.length === 0 ? [] : await listEventIds(this.db, { ...filter, includeIds: ids });
    const before = entry.members.size;
    for (const id of ids) entry.members.delete(id);
    for (const id of matching) entry.members.add(id);
    Object.assign(entry, { revision: version.revision, until: version.until, at: Date.now() });
    if (this.carried.get(key) === entry) {
      this.members += entry.members.size - before;
      this.evictOldest();
    }
    return entry.members.size;
  }

  private async countAfresh(key: string, filter: EventListFilter, version: CalendarVersion): Promise<number> {
    const ids = await listEventIds(this.db, filter);
    const entry: Carried = {
      members: new Set(ids),
      revision: version.revision,
      until: version.until,
      at: Date.now(),
      busy: Promise.resolve(),
    };
    this.forget(key);
    if (entry.members.size <= this.maxMembers / 2) {
      this.carried.set(key, entry);
      this.members += entry.members.size;
      this.evictOldest();
    } else {
      if (this.tooLarge.size >= MAX_ENTRIES) this.tooLarge.clear();
      this.tooLarge.add(key);
    }
    return ids.length;
  }

  private carries(entry: Carried, version: CalendarVersion): boolean {
    return (
      entry.revision <= version.revision &&
      (entry.until === null || version.from < entry.until) &&
      Date.now() - entry.at < MAX_CARRIED_AGE_MS
    );
  }

  /** The oldest totals go first while the ids kept exceed the bound, or the totals kept their number (a search of new words each time). */
  private evictOldest(): void {
    for (const oldest of this.carried.keys()) {
      if (this.members <= this.maxMembers && this.carried.size <= MAX_ENTRIES) break;
      this.forget(oldest);
    }
  }

  private forget(key: string): void {
    const entry = this.carried.get(key);
    if (entry === undefined) return;
    this.carried.delete(key);
    this.members -= entry.members.size;
  }
}
