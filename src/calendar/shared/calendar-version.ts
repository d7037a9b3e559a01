import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.ts';
import { oncePerTurn, revisionOfTurn } from '../../platform/db/revisions.ts';
import { utcStamp } from '../posts/posts.access.ts';
import { findNextPublication } from './publications.repository.ts';

type Db = Kysely<Database>;

/**
 * A span of time in which nothing the calendar shows can change: from
 * `from` (a UTC stamp) until `until`, at one revision. The calendar changes
 * by a write, which bumps the revision, or by the clock, when a scheduled
 * post reaches its date (`until`). Whatever is computed from the database
 * in a version holds for the whole version — a term count, a list total, a
 * public response — so processes may remember it for as long as the version
 * is current (`memo`), and stay exact across processes and over time.
 */
export class CalendarVersion {
  private readonly memos = new Map<string, unknown>();

  constructor(
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
   * at the earlier instant would be remembered for a version in which that post is public.
   */
  instantFrom(now: Date): Date {
    const from = Date.parse(`${this.from.replace(' ', 'T')}Z`);
    return now.getTime() < from ? new Date(from) : now;
  }

  /**
   * What this version remembers under `name`, made by `create` on first use
   * and gone with the version. A value computed racing with a write lands in
   * the version read before it, which that write has ended.
   */
  memo<T>(name: string, create: () => T): T {
    if (!this.memos.has(name)) this.memos.set(name, create());
    return this.memos.get(name) as T;
  }
}

/**
 * What keeps a request's version: a slot on every request (the calendar
 * plugin decorates them), which costs less per request than a side table.
 */
export interface CalendarVersionHolder {
  calendarVersion: Promise<CalendarVersion> | null;
}

/**
 * The calendar's versions as requests that only read see them: the
 * revision comes from the event-loop turn's read of every revision (one
 * statement for all requests of the turn, shared with the other surfaces,
 * see `oncePerTurn`), and a request keeps the version it first got, so its
 * remembered answer, list total and term counts agree. The same object for
 * as long as it holds, so memos can be keyed by identity. Writes never use
 * it: they count what they wrote, inside their transaction.
 */
export class CalendarVersions {
  private known: CalendarVersion | undefined;
  private readonly ofTurn: () => Promise<CalendarVersion>;

  constructor(
    private readonly db: Db,
    now: () => Date = () => new Date(),
  ) {
    this.ofTurn = oncePerTurn(async () => this.at(await revisionOfTurn(db, 'calendar'), now()));
  }

  /** The version `request` reads at: read once for it, when first asked, and kept in its slot. */
  of(request: CalendarVersionHolder): Promise<CalendarVersion> {
    return (request.calendarVersion ??= this.ofTurn());
  }

  private async at(revision: number, now: Date): Promise<CalendarVersion> {
    const stamp = utcStamp(now);
    if (this.known?.holdsAt(revision, stamp) === true) return this.known;
    const version = new CalendarVersion(revision, stamp, await findNextPublication(this.db, stamp));
    this.known = version;
    return version;
  }
}
