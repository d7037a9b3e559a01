import type { ListEventsQuery } from '../events/events.schemas.ts';
import type { ViewQuery } from './pages.schemas.ts';

/** The filters of a view as the events list takes them: its own query handling (unknown terms and ids are its 400s). */
export function listFilters(query: ViewQuery): ListEventsQuery {
  return {
    ...(query.search === undefined ? {} : { search: query.search }),
    ...(query.category === undefined ? {} : { categories: query.category }),
    ...(query.tag === undefined ? {} : { tags: query.tag }),
    ...(query.venue === undefined ? {} : { venue: String(query.venue) }),
    ...(query.organizer === undefined ? {} : { organizer: String(query.organizer) }),
  };
}

/** The filters a view's links keep. */
export function filterPairs(query: ViewQuery): Array<readonly [string, string]> {
  return (['search', 'category', 'tag', 'venue', 'organizer'] as const)
    .filter((name) => query[name] !== undefined)
    .map((name) => [name, String(query[name])] as const);
}
