import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.ts';
import { listChanges } from '../changes/changes.repository.ts';
import type { CalendarVersion } from '../shared/calendar-version.ts';

type Db = Kysely<Database>;

/** More events changed than this since a revision: what was carried from it is made afresh rather than brought up to date. */
const MAX_CHANGED = 2_000;

/** The events changed after a revision up to a version; `tooMany` when more than MAX_CHANGED did (`ids` is then partial). */
export interface ChangedEvents {
  readonly ids: readonly number[];
  readonly tooMany: boolean;
}

/**
 * The events the change log names after revision `from` up to `version`:
 * what the remembered events, the carried totals and the carried pages each
 * ask after a write (events.remembered.ts, events.totals.ts,
 * events.pages.ts). Most of them were brought up to the version before, so
 * they ask from the same revision; the version reads each starting
 * revision once for all its requests. A failed read is not remembered.
 */
export function changedEventsSince(db: Db, version: CalendarVersion, from: number): Promise<ChangedEvents> {
  const reads = version.memo('changed-events', () => new Map<number, Promise<ChangedEvents>>());
  let read = reads.get(from);
  if (read === undefined) {
    read = listChanges(db, { seq: from }, version.revision, ['event'], MAX_CHANGED + 1).then((changes) => ({
      ids: [...new Set(changes.map((change) => change.id))],
      tooMany: changes.length > MAX_CHANGED,
    }));
    reads.set(from, read);
    read.catch(() => reads.delete(from));
  }
  return read;
}
