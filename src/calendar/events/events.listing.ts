import type { Kysely } from 'kysely';
import { cacheKey } from '../../platform/cache/read-cache.ts';
import type { Database } from '../../platform/db/schema.ts';
import type { CalendarVersion } from '../shared/calendar-version.ts';
import { filterKey } from './events.filters.ts';
import { countEvents, listEventPageIds, type EventListFilter, type EventOrder } from './events.repository.ts';

type Db = Kysely<Database>;

/**
 * A list of events within a calendar version: neither a write nor the clock can change its total or its pages
 * there, so each is read once in it (whatever instant of the version a request reads at), from the listing
 * index alone (migration 2026-11-30T0100).
 */
export class EventListing {
  private readonly key: string;

  constructor(
    private readonly db: Db,
    private readonly version: CalendarVersion,
    private readonly filter: EventListFilter,
  ) {
    this.key = filterKey(filter);
  }

  total(): Promise<number> {
    return this.version.once(
      cacheKey('events-total', this.key),
      () => countEvents(this.db, this.filter),
      () => 8,
    );
  }

  pageIds(limit: number, offset: number, order: EventOrder): Promise<number[]> {
    return this.version.once(
      cacheKey('events-page', this.key, order, offset, limit),
      () => listEventPageIds(this.db, this.filter, limit, offset, order),
      (ids) => 8 * ids.length,
    );
  }
}
