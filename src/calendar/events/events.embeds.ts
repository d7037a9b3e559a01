import type { Db } from '../../platform/db/schema.ts';
import type { TranslatableType } from '../calendar.tables.ts';
import { findEmbeddableOrganizers, presentEventOrganizers } from '../organizers/organizers.links.ts';
import type { RequestContext } from '../common/context.ts';
import { loadImages } from '../common/images.ts';
import { findSeriesRecurrences } from '../recurrence/recurrence.repository.ts';
import { loadTextsOfTypes } from '../posts/posts.texts.ts';
import type { CalendarVersion } from '../common/calendar-version.ts';
import { publishedEventCounts } from '../terms/terms.counts.ts';
import { findEventTermLinks, presentEventTerms } from '../terms/terms.links.ts';
import { findEmbeddableVenues, presentEmbeddedVenues } from '../venues/venues.links.ts';
import { seriesIdsOf, textIdsOf, textsOfEvent } from './events.inherited.ts';
import type { EventEmbeds } from './events.mapper.ts';
import type { EventRow } from './events.repository.ts';

const unique = (ids: readonly (number | null)[]): number[] => [...new Set(ids.filter((id): id is number => id !== null))];

/**
 * What a page of events embeds — texts, image, venue, organizers,
 * categories and tags — in three rounds whatever the page size: the linked
 * rows (venues, organizers, terms), then every text of every kind in one
 * query and every image in one query (term counts are cached in the
 * version a read answers at, terms.counts.ts), then the representations. On a single event that is
 * 5 statements instead of one per kind and step. `ownTextsFirst`: the events' own texts are read apart, in the
 * first round (a write's answer, on PostgreSQL: an event that links nothing is then read in one round trip).
 */
export async function loadEventEmbeds(
  db: Db,
  rows: readonly EventRow[],
  ctx: RequestContext,
  version: CalendarVersion | undefined,
  ownTextsFirst = false,
): Promise<Map<number, EventEmbeds>> {
  const ids = rows.map((row) => row.id);
  const own = new Map<TranslatableType, number[]>([['event', textIdsOf(rows)]]);
  const [venues, organizers, terms, rules, ownTexts] = await Promise.all([
    findEmbeddableVenues(db, unique(rows.map((row) => row.venue_id)), ctx),
    findEmbeddableOrganizers(db, ids, ctx),
    findEventTermLinks(db, ids),
    findSeriesRecurrences(db, seriesIdsOf(rows)),
    ownTextsFirst ? loadTextsOfTypes(db, own, ctx.language, ctx.defaultLanguage) : undefined,
  ]);
  const organizerRows = organizers.map(({ row }) => row);
  const wanted = new Map<TranslatableType, number[]>([
    ...(ownTextsFirst ? [] : own),
    ['venue', venues.map((row) => row.id)],
    ['organizer', unique(organizerRows.map((row) => row.id))],
    ['category', unique(terms.filter((term) => term.taxonomy === 'category').map((term) => term.id))],
    ['tag', unique(terms.filter((term) => term.taxonomy === 'tag').map((term) => term.id))],
  ]);
  const [texts, images, counts] = await Promise.all([
    loadTextsOfTypes(db, wanted, ctx.language, ctx.defaultLanguage),
    loadImages(db, unique([...rows, ...venues, ...organizerRows].map((row) => row.image_id)), ctx.site.baseUrl),
    publishedEventCounts(db, unique(terms.map((term) => term.id)), version),
  ]);
  const assets = (type: TranslatableType) => ({ texts: texts.get(type) ?? new Map(), images });
  const [venueViews, organizerViews] = await Promise.all([
    presentEmbeddedVenues(venues, ctx, assets('venue')),
    presentEventOrganizers(ids, organizers, ctx, assets('organizer')),
  ]);
  const termViews = presentEventTerms(ids, terms, ctx, texts, counts);
  const eventTexts = (ownTexts ?? texts).get('event');
  return new Map(
    rows.map((row) => [
      row.id,
      {
        texts: textsOfEvent(row, eventTexts),
        seriesRecurrence: row.parent_id === null ? undefined : rules.get(row.parent_id),
        image: row.image_id === null ? undefined : images.get(row.image_id),
        venue: row.venue_id === null ? undefined : venueViews.get(row.venue_id),
        organizers: organizerViews.get(row.id) ?? [],
        categories: termViews.get(row.id)?.categories ?? [],
        tags: termViews.get(row.id)?.tags ?? [],
      },
    ]),
  );
}
