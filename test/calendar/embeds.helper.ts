import type { Kysely } from 'kysely';
import { loadEventEmbeds } from '../../src/calendar/events/events.embeds.ts';
import type { EventEmbeds } from '../../src/calendar/events/events.mapper.ts';
import type { RequestContext } from '../../src/calendar/common/context.ts';
import type { Database } from '../../src/platform/db/schema.ts';

/** What an event representation embeds, for events by id (ids of no event are left out). */
export async function embedsOf(db: Kysely<Database>, eventIds: readonly number[], ctx: RequestContext): Promise<Map<number, EventEmbeds>> {
  if (eventIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('events')
    .selectAll()
    .where('id', 'in', [...eventIds])
    .execute();
  // Inside a transaction, as the events module answers writes: counted afresh, without the request's version.
  return loadEventEmbeds(db, rows, ctx, db.isTransaction ? undefined : await ctx.version());
}
