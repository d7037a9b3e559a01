import Type, { type Static } from 'typebox';
import { ListEventsQuerySchema } from '../events/events.schemas.ts';
import { invalidParam } from '../common/wire.ts';

/** `/events.ics` takes the filters of `/events`; it has no pages: one feed, up to ICAL_MAX_EVENTS. */
export const FeedQuerySchema = Type.Omit(ListEventsQuerySchema, ['page', 'per_page']);
export type FeedQuery = Static<typeof FeedQuerySchema>;

/** A client paging a feed would get the same feed for every page: asking for one is a 400, not ignored. */
export function refusePages(query: object): void {
  for (const name of ['page', 'per_page']) {
    if (name in query) throw invalidParam(name, `A feed has no pages: it holds up to ICAL_MAX_EVENTS events; narrow it with filters.`);
  }
}
