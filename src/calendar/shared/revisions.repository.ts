import { sql, type Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.ts';
import '../calendar.tables.ts';

type Db = Kysely<Database>;

// Read on every public calendar request: a constant statement, not rebuilt each time.
const READ_CALENDAR_REVISION = sql<{ value: number | string }>`select value from revisions where name = 'calendar'`;

/**
 * The calendar revision (migration 2026-11-24T0100-calendar-revision): a
 * number that the database itself bumps, in the writing transaction, on
 * every write to a calendar table. What a process remembers of the calendar
 * is keyed by it, so a write by any process sharing the database makes it
 * stale at once.
 */
export async function readCalendarRevision(db: Db): Promise<number> {
  const { rows } = await READ_CALENDAR_REVISION.execute(db);
  return Number(rows[0]?.value);
}

/**
 * The earliest publication date after `after` of a scheduled (`future`)
 * event, venue or organizer — the next moment the calendar changes without
 * a write — or null when none is scheduled.
 */
export async function findNextPublication(db: Db, after: string): Promise<string | null> {
  const next = (table: 'events' | 'venues' | 'organizers') =>
    db
      .selectFrom(table)
      .select((eb) => eb.fn.min<string | null>('date_utc').as('next'))
      .where('status', '=', 'future')
      .where('date_utc', '>', after);
  const rows = await next('events').unionAll(next('venues')).unionAll(next('organizers')).execute();
  const dates = rows.map((row) => row.next).filter((date): date is string => date !== null);
  return dates.length === 0 ? null : dates.reduce((earliest, date) => (date < earliest ? date : earliest));
}
