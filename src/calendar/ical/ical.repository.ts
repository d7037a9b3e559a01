import type { Db } from '../../platform/db/schema.ts';
import '../calendar.tables.ts';

/** What iCalendar feeds read beyond the events themselves: imported UIDs, and the exceptions of series. */

/** An occurrence's original start: where its series' rule put it. */
export interface OriginalStart {
  readonly local: string;
  readonly utc: string;
}

/** The UIDs imported events came with, by event id (events born here have none). */
export async function findImportedUids(db: Db, eventIds: readonly number[]): Promise<Map<number, string>> {
  if (eventIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('event_ical_uids')
    .select(['event_id', 'uid'])
    .where('event_id', 'in', [...eventIds])
    .execute();
  return new Map(rows.map((row) => [Number(row.event_id), row.uid]));
}

/** The occurrences changed on their own (exceptions) of each series, by occurrence id. */
export async function findExceptionStarts(db: Db, seriesIds: readonly number[]): Promise<Map<number, Map<number, OriginalStart>>> {
  const found = new Map<number, Map<number, OriginalStart>>();
  if (seriesIds.length === 0) return found;
  const rows = await db
    .selectFrom('events')
    .select(['id', 'parent_id', 'original_start_local', 'original_start_utc'])
    .where('parent_id', 'in', [...seriesIds])
    .where('is_exception', '=', 1)
    .orderBy('id')
    .execute();
  for (const row of rows) {
    if (row.parent_id === null || row.original_start_local === null || row.original_start_utc === null) continue;
    const series = found.get(row.parent_id) ?? new Map<number, OriginalStart>();
    series.set(row.id, { local: row.original_start_local, utc: row.original_start_utc });
    found.set(row.parent_id, series);
  }
  return found;
}
