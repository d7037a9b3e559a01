import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.ts';
import { listChanges } from '../changes/changes.repository.ts';
import type { CalendarVersion } from '../shared/calendar-version.ts';
import { countEvents, listEventIds, type EventListFilter } from './events.repository.ts';

type Db = Kysely<Database>;

const MAX_ENTRIES = 500;
/** More events changed than this since a carried total: it is counted again rather than brought up to date. */
const MAX_CHANGES_APPLIED = 2_000;
/** A carried total not brought up to date for this long is counted again (the change log forgets removals, in days). */
const MAX_CARRIED_AGE_MS = 3_600_000;

/** A public list's total with the events it counts, and the version it is exact at. */
interface Carried {
  readonly members: Set<number>;
  revision: number;
  until: string | null;
  at: number;
}

/**
 * The totals of event lists (X-WP-Total), remembered in the calendar version
 * they are read at (calendar-version.ts): within a version neither a write
 * nor the clock can change a total, so one counted at any instant of it
 * holds for the whole version, whatever the filter (its `nowUtc` is left
 * out of the key).
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
 * (`maxMembers`); a total over half of that is only counted.
 */
export class EventTotals {
  private readonly carried = new Map<string, Carried>();
  private members = 0;

  constructor(
    private readonly db: Db,
    private readonly maxMembers: number,
  ) {}

  async total(version: CalendarVersion, filter: EventListFilter): Promise<number> {
    const entries = version.memo('event-totals', () => new Map<string, number>());
    const key = keyOf(filter);
    const known = entries.get(key);
    if (known !== undefined) return known;
    const total = await this.counted(version, filter, key);
    if (entries.size >= MAX_ENTRIES) entries.clear();
    entries.set(key, total);
    return total;
  }

  private async counted(version: CalendarVersion, filter: EventListFilter, key: string): Promise<number> {
    if (filter.visibility.kind !== 'published' || filter.includeIds !== undefined || this.maxMembers === 0)
      return countEvents(this.db, filter);
    const entry = this.carried.get(key);
    if (entry !== undefined && this.carries(entry, version)) {
      const from = entry.revision;
      const changed = await listChanges(this.db, { seq: from }, version.revision, ['event'], MAX_CHANGES_APPLIED + 1);
      if (changed.length <= MAX_CHANGES_APPLIED) {
        const ids = [...new Set(changed.map((change) => change.id))];
        const matching = ids.length === 0 ? [] : await listEventIds(this.db, { ...filter, includeIds: ids });
        // Another read may have brought it further meanwhile: what it found is as new as this, or newer.
        if (this.carried.get(key) === entry && entry.revision === from) {
          const before = entry.members.size;
          for (const id of ids) entry.members.delete(id);
          for (const id of matching) entry.members.add(id);
          this.members += entry.members.size - before;
          Object.assign(entry, { revision: version.revision, until: version.until, at: Date.now() });
          this.recount();
          return entry.members.size;
        }
      }
    }
    const ids = await listEventIds(this.db, filter);
    this.keep(key, { members: new Set(ids), revision: version.revision, until: version.until, at: Date.now() });
    return ids.length;
  }

  private carries(entry: Carried, version: CalendarVersion): boolean {
    return (
      entry.revision <= version.revision &&
      (entry.until === null || version.from < entry.until) &&
      Date.now() - entry.at < MAX_CARRIED_AGE_MS
    );
  }

  private keep(key: string, entry: Carried): void {
    this.forget(key);
    if (entry.members.size > this.maxMembers / 2) return;
    this.carried.set(key, entry);
    this.members += entry.members.size;
    this.recount();
  }

  /** The oldest totals go first while the ids kept exceed the bound. */
  private recount(): void {
    for (const oldest of this.carried.keys()) {
      if (this.members <= this.maxMembers) break;
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

function keyOf(filter: EventListFilter): string {
  const { nowUtc: _now, ...rest } = filter;
  return JSON.stringify(rest);
}
