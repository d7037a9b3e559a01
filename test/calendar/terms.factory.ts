import type { Kysely } from 'kysely';
import type { Database } from '../../src/platform/db/schema.ts';
import '../../src/calendar/calendar.tables.ts';

/**
 * A minimal stored event linked to terms, written straight to the tables the
 * term counts read: the term tests do not depend on the events routes, nor
 * on any code bumping the calendar revision (the database's triggers do).
 */
export async function makeEvent(
  db: Kysely<Database>,
  options: { status?: string; dateUtc?: string; terms?: readonly number[] } = {},
): Promise<number> {
  const { id } = await db.insertInto('post_ids').values({ type: 'event' }).returning('id').executeTakeFirstOrThrow();
  const date = options.dateUtc ?? '2026-01-01 10:00:00';
  await db
    .insertInto('events')
    .values({
      id,
      author_id: null,
      status: options.status ?? 'publish',
      date,
      date_utc: date,
      modified: date,
      modified_utc: date,
      password_hash: null,
      image_id: null,
      parent_id: null,
      timezone: 'UTC',
      all_day: 0,
      start_local: '2027-01-01 10:00:00',
      end_local: '2027-01-01 12:00:00',
      start_utc: '2027-01-01 10:00:00',
      end_utc: '2027-01-01 12:00:00',
      cost: null,
      currency_symbol: '',
      currency_position: '',
      currency_code: '',
      website: null,
      show_map: 0,
      show_map_link: 0,
      hide_from_listings: 0,
      sticky: 0,
      featured: 0,
      venue_id: null,
    })
    .execute();
  if (options.terms !== undefined && options.terms.length > 0) {
    await db
      .insertInto('event_terms')
      .values(options.terms.map((term_id) => ({ event_id: id, term_id })))
      .execute();
  }
  return id;
}

export async function setEventStatus(db: Kysely<Database>, id: number, status: string, dateUtc?: string): Promise<void> {
  await db
    .updateTable('events')
    .set(dateUtc === undefined ? { status } : { status, date_utc: dateUtc })
    .where('id', '=', id)
    .execute();
}
