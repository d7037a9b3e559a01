import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Database } from '../../platform/db/schema.ts';
import '../calendar.tables.ts';

type Db = Kysely<Database>;

/** Ids of the organizers of the events (alias `e`) that satisfy `eventCondition`. */
export function organizerIdsLinkedTo(eventCondition: RawBuilder<SqlBool>): RawBuilder<number> {
  return sql<number>`(select eo.organizer_id from event_organizers eo join events e on e.id = eo.event_id where ${eventCondition})`;
}

export async function unlinkOrganizerFromEvents(db: Db, organizerId: number): Promise<void> {
  await db.deleteFrom('event_organizers').where('organizer_id', '=', organizerId).execute();
}

/** The organizer links of many events, each event's in link order. */
export async function findEventOrganizerLinks(
  db: Db,
  eventIds: readonly number[],
): Promise<{ event_id: number; organizer_id: number }[]> {
  if (eventIds.length === 0) return [];
  return db
    .selectFrom('event_organizers')
    .select(['event_id', 'organizer_id'])
    .where('event_id', 'in', [...new Set(eventIds)])
    .orderBy('event_id')
    .orderBy('position')
    .execute();
}

/** Replaces an event's organizers with these, in this order. */
export async function replaceEventOrganizers(db: Db, eventId: number, organizerIds: readonly number[]): Promise<void> {
  await db.deleteFrom('event_organizers').where('event_id', '=', eventId).execute();
  const unique = [...new Set(organizerIds)];
  if (unique.length === 0) return;
  await db
    .insertInto('event_organizers')
    .values(unique.map((organizerId, position) => ({ event_id: eventId, organizer_id: organizerId, position })))
    .execute();
}
