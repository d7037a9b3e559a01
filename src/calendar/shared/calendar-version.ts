import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.ts';
import { utcStamp } from './permissions.ts';
import { oncePerTurn, readRevision, revisionOfTurn } from '../../platform/db/revisions.ts';
import { findNextPublication } from './publications.repository.ts';

type Db = Kysely<Database>;

/**
 * A span of time in which nothing the calendar shows can change: from
 * `from` (a UTC stamp) until `until`, at one revision. The calendar changes
 * by a write, which bumps the revision, or by the clock, when a scheduled
 * post reaches its date (`until`). Whatever is computed from the database
 * in a version holds for the whole version — a term count, a list total, a
 * public response — so processes may remember it for as long as the version
 * is current, and stay exact across processes and over time.
 */
export interface CalendarVersion {
  readonly revision: number;
  readonly from: string;
  /** The next publication of a scheduled post; null when none is scheduled. */
  readonly until: string | null;
}

function holdsAt(version: CalendarVersion, revision: number, now: string): boolean {
  return version.revision === revision && version.from <= now && (version.until === null || now < version.until);
}

/**
 * The current version, one primary-key read when it has not changed; the
 * same object for as long as it holds, so callers can key memos by identity.
 * One per database handle: a transaction is a handle of its own, so what it
 * sees of its own uncommitted writes never reaches the shared memos.
 */
class Versions {
  private known: CalendarVersion | undefined;
  /** For requests that only read: one read per event-loop turn (oncePerTurn). */
  readonly currentInTurn: () => Promise<CalendarVersion>;

  constructor(db: Db) {
    // The revision comes from the turn's read of every revision, shared with the other surfaces.
    this.currentInTurn = oncePerTurn(async () => this.at(db, await revisionOfTurn(db, 'calendar'), new Date()));
  }

  async current(db: Db, now: Date): Promise<CalendarVersion> {
    return this.at(db, await readRevision(db, 'calendar'), now);
  }

  private async at(db: Db, revision: number, now: Date): Promise<CalendarVersion> {
    const stamp = utcStamp(now);
    if (this.known !== undefined && holdsAt(this.known, revision, stamp)) return this.known;
    const version: CalendarVersion = { revision, from: stamp, until: await findNextPublication(db, stamp) };
    this.known = version;
    return version;
  }
}

const versionsOf = new WeakMap<Db, Versions>();

function versions(db: Db): Versions {
  let found = versionsOf.get(db);
  if (found === undefined) {
    found = new Versions(db);
    versionsOf.set(db, found);
  }
  return found;
}

export async function currentCalendarVersion(db: Db, now: Date = new Date()): Promise<CalendarVersion> {
  return versions(db).current(db, now);
}

/** The current version for answering a request that only reads: one read per event-loop turn (oncePerTurn). */
export function calendarVersionOfTurn(db: Db): Promise<CalendarVersion> {
  return versions(db).currentInTurn();
}
