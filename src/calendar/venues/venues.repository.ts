import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../platform/db/schema.ts';
import '../calendar.tables.ts';

/** Ids of the venues of the events (alias `e`) that satisfy `eventCondition`. */
export function venueIdsLinkedTo(eventCondition: RawBuilder<SqlBool>): RawBuilder<number> {
  return sql<number>`(select e.venue_id from events e where e.venue_id is not null and ${eventCondition})`;
}

export async function unlinkVenueFromEvents(db: Db, venueId: number): Promise<void> {
  await db.updateTable('events').set({ venue_id: null }).where('venue_id', '=', venueId).execute();
}
