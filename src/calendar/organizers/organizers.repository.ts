import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../platform/db/schema.ts';
import '../calendar.tables.ts';
import type { LinkedPostRow } from '../linked-posts/linked-posts.kind.ts';

/** Ids of the organizers of the events (alias `e`) that satisfy `eventCondition`. */
export function organizerIdsLinkedTo(eventCondition: RawBuilder<SqlBool>): RawBuilder<number> {
  return sql<number>`(select eo.organizer_id from event_organizers eo join events e on e.id = eo.event_id where ${eventCondition})`;
}

export async function unlinkOrganizerFromEvents(db: Db, organizerId: number): Promise<void> {
  await db.deleteFrom('event_organizers').where('organizer_id', '=', organizerId).execute();
}

/** The organizers of many events, each event's in link order: one query. */
export async function findOrganizersOfEvents(db: Db, eventIds: readonly number[]): Promise<{ eventId: number; row: LinkedPostRow }[]> {
  if (eventIds.length === 0) return [];
  const rows = await db
    .selectFrom('event_organizers as eo')
    .innerJoin('organizers as o', 'o.id', 'eo.organizer_id')
    .selectAll('o')
    .select('eo.event_id as linked_event_id')
    .where('eo.event_id', 'in', [...new Set(eventIds)])
    .orderBy('eo.event_id')
    .orderBy('eo.position')
    .execute();
  return rows.map(({ linked_event_id, ...row }) => ({ eventId: linked_event_id, row: row as unknown as LinkedPostRow }));
}

async function linkedOrganizerIds(db: Db, eventId: number): Promise<number[]> {
  const rows = await db.selectFrom('event_organizers').select('organizer_id').where('event_id', '=', eventId).orderBy('position').execute();
  return rows.map((row) => row.organizer_id);
}

/**
 * Replaces an event's organizers with these, in this order; an unchanged list writes nothing, and a new event deletes
 * nothing. `linked`: the organizers linked now, in order, when the caller knows them (a new event's: none), else read first.
 */
export async function replaceEventOrganizers(
  db: Db,
  eventId: number,
  organizerIds: readonly number[],
  linked?: readonly number[],
): Promise<void> {
  const unique = [...new Set(organizerIds)];
  const current = linked ?? (await linkedOrganizerIds(db, eventId));
  if (current.length === unique.length && current.every((id, index) => id === unique[index])) return;
  if (current.length > 0) await db.deleteFrom('event_organizers').where('event_id', '=', eventId).execute();
  if (unique.length === 0) return;
  await db
    .insertInto('event_organizers')
    .values(unique.map((organizerId, position) => ({ event_id: eventId, organizer_id: organizerId, position })))
    .execute();
}
