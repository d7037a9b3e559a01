import type { Db } from '../../platform/db/schema.ts';
import '../calendar.tables.ts';

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
