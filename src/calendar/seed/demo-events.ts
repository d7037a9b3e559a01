import { DateTime } from 'luxon';
import { settleAfterBulkLoad, type Store } from '../../platform/db/database.ts';
import { sanitizeSlug } from '../posts/posts.slugs.ts';
import { CITIES, DESCRIPTIONS, EVENT_KINDS, THEMES } from './demo-data.ts';
import { reservePostIds } from '../posts/posts.repository.ts';
import { BulkInsert, countEvents, findFirstAdministratorId, type BulkRow } from './demo-events.repository.ts';
import { ensureOrganizers, ensureTerms, ensureVenues, type DemoTerms, type DemoVenue } from './demo-links.ts';
import type { MediaService } from '../media/media.service.ts';
import { ensureDemoPosters } from './demo-images.ts';
import { distinctPicks, mulberry32, pick, publicationDate, stamp, TextRows, type SeedContext } from './demo-rows.ts';

export interface SeedDemoEventsOptions {
  /** Events to add (on top of those already stored). */
  readonly events: number;
  /** Publication dates are written in this zone, as the API does (`SITE_TIMEZONE`). */
  readonly siteTimezone: string;
  /** Called after each committed chunk. */
  readonly onProgress?: (written: number, total: number) => void;
  /** Makes the content reproducible; default: derived from the number of events already stored. */
  readonly seed?: number;
  readonly now?: Date;
  /** Where the demo posters are stored (`ensureDemoPosters`); without it the events have no images. */
  readonly media?: MediaService;
}

export interface SeedDemoEventsResult {
  readonly events: number;
  readonly totalEvents: number;
  readonly venues: number;
  readonly organizers: number;
  readonly categories: number;
  readonly tags: number;
}

// One transaction per chunk: commits stay short (a server may be running) and progress is visible.
const EVENTS_PER_CHUNK = 2_000;
const DAYS_BEFORE_TODAY = 182;
const DAYS_AFTER_TODAY = 547;

/**
 * Loads a realistic demo calendar straight into the calendar tables: `events`
 * new events spread over two years (six months back, eighteen ahead) in the
 * venues' time zones, linked to venues with coordinates, organizers,
 * categories (a two-level hierarchy) and tags, written in English and
 * (mostly) Italian with a slug per language. Venues, organizers and terms are
 * reused across runs (found by slug), so running it twice adds events only.
 */
export async function seedDemoEvents(store: Store, options: SeedDemoEventsOptions): Promise<SeedDemoEventsResult> {
  const { db } = store;
  const now = DateTime.fromJSDate(options.now ?? new Date(), { zone: 'utc' });
  const existing = await countEvents(db);
  const total = existing + options.events;
  const random = mulberry32(options.seed ?? existing + 1);
  const authorId = await findFirstAdministratorId(db);
  const context: SeedContext = { db, random, now, authorId, siteTimezone: options.siteTimezone };

  const terms = await db.transaction().execute((trx) => ensureTerms({ ...context, db: trx }));
  const venues = await db.transaction().execute((trx) => ensureVenues({ ...context, db: trx }, venueCount(total)));
  const organizers = await db.transaction().execute((trx) => ensureOrganizers({ ...context, db: trx }, organizerCount(total)));
  const posters = options.media === undefined || authorId === null ? [] : await ensureDemoPosters(options.media, authorId);

  let written = 0;
  while (written < options.events) {
    const size = Math.min(EVENTS_PER_CHUNK, options.events - written);
    await db.transaction().execute((trx) => insertEventChunk({ ...context, db: trx }, size, { terms, venues, organizers, posters }));
    written += size;
    options.onProgress?.(written, options.events);
  }
  if (written > 0) await settleAfterBulkLoad(store);
  return {
    events: written,
    totalEvents: total,
    venues: venues.length,
    organizers: organizers.length,
    categories: terms.categories.size,
    tags: terms.tags.length,
  };
}

/** Venues and organizers grow with the calendar, within bounds that keep lists of them realistic. */
const venueCount = (events: number) => Math.min(1_000, Math.max(20, Math.round(events / 100)));
const organizerCount = (events: number) => Math.min(400, Math.max(10, Math.round(events / 250)));

interface Links {
  readonly terms: DemoTerms;
  readonly venues: readonly DemoVenue[];
  readonly organizers: readonly number[];
  /** The posters of the first kinds of event, in `EVENT_KINDS` order. */
  readonly posters: readonly number[];
}

// ---------------------------------------------------------------- events

async function insertEventChunk(context: SeedContext, size: number, links: Links): Promise<void> {
  const { db, random } = context;
  const ids = await reservePostIds(db, 'event', size);
  const events = new BulkInsert('events', EVENT_COLUMNS);
  const eventOrganizers = new BulkInsert('event_organizers', ['event_id', 'organizer_id', 'position']);
  const eventTerms = new BulkInsert('event_terms', ['event_id', 'term_id']);
  const texts = new TextRows();
  const subcategories = [...links.terms.categories.entries()].filter(([, ids]) => ids.length === 2);

  for (const id of ids) {
    const venue = random() < 0.9 ? pick(random, links.venues) : undefined;
    const city = venue?.city;
    const timezone = city?.timezone ?? context.siteTimezone;
    const kind = pick(random, EVENT_KINDS);
    const theme = pick(random, THEMES);
    const when = eventTimes(context, timezone, kind.hours);
    const price = random();
    const currency = city?.currency ?? { symbol: '€', code: 'EUR' };
    const cost = price < 0.25 ? null : price < 0.45 ? ['0'] : [`${currency.symbol}${5 * (1 + Math.floor(random() * 12))}`];
    const status = pickStatus(random);
    const published = publicationDate(context, status === 'future' ? 1 + random() * 30 : -1 - random() * 400);
    const title = { en: `${kind.title.en}: ${theme.en}`, it: `${kind.title.it}: ${theme.it}` };
    const slugs = { en: `${sanitizeSlug(title.en)}-${id}`, it: `${sanitizeSlug(title.it)}-${id}` };

    events.add({
      id,
      author_id: context.authorId,
      status,
      ...published,
      password_hash: null,
      // Every other event of a kind with a poster shows it; the random sequence, and so the rest of the content, stays as it was.
      image_id: id % 2 === 0 ? (links.posters[EVENT_KINDS.indexOf(kind)] ?? null) : null,
      parent_id: null,
      timezone,
      ...when,
      cost: cost === null ? null : JSON.stringify(cost),
      currency_symbol: cost === null || cost[0] === '0' ? '' : currency.symbol,
      currency_position: cost === null || cost[0] === '0' ? '' : 'prefix',
      currency_code: cost === null ? '' : currency.code,
      website: random() < 0.3 ? `https://www.example.org/events/${slugs.en}` : null,
      show_map: venue === undefined ? 0 : 1,
      show_map_link: venue === undefined ? 0 : 1,
      hide_from_listings: random() < 0.01 ? 1 : 0,
      sticky: random() < 0.01 ? 1 : 0,
      featured: random() < 0.06 ? 1 : 0,
      venue_id: venue?.id ?? null,
      ...SINGLE_EVENT,
    });

    const organizerCount = random() < 0.15 ? 0 : random() < 0.82 ? 1 : 2;
    for (const [position, organizerId] of distinctPicks(random, links.organizers, organizerCount).entries()) {
      eventOrganizers.add({ event_id: id, organizer_id: organizerId, position });
    }

    const termIds = new Set([links.terms.categories.get(kind.category)![0]!]);
    if (random() < 0.1) termIds.add(pick(random, subcategories)[1][0]!);
    for (const tagId of distinctPicks(random, links.terms.tags, Math.floor(random() * 4))) termIds.add(tagId);
    for (const termId of termIds) eventTerms.add({ event_id: id, term_id: termId });

    // An event without a venue (online, or not yet placed) still talks about a city.
    const cityName = (city ?? pick(random, CITIES)).name;
    const paragraphs = distinctPicks(random, DESCRIPTIONS, 2);
    const fill = (template: string, language: 'en' | 'it') =>
      template.replace('{kind}', kind.title[language].toLowerCase()).replace('{city}', cityName[language]);
    const description = {
      en: paragraphs.map((paragraph) => `<p>${fill(paragraph.en, 'en')}</p>`).join('\n'),
      it: paragraphs.map((paragraph) => `<p>${fill(paragraph.it, 'it')}</p>`).join('\n'),
    };
    const excerpt = { en: `${theme.en} in ${cityName.en}.`, it: `${theme.it} a ${cityName.it}.` };
    // Some events have not been translated yet: they read in English everywhere (field fallback).
    const languages = random() < 0.85 ? (['en', 'it'] as const) : (['en'] as const);
    texts.add('event', id, { title, description, excerpt }, slugs, languages);
  }
  await events.flush(db);
  await eventOrganizers.flush(db);
  await eventTerms.flush(db);
  await texts.flush(db);
}

/** Local and UTC start/end, computed together in the event's zone (a wall time in a DST gap moves forward). */
function eventTimes(context: SeedContext, timezone: string, hours: number) {
  const { random, now } = context;
  const dayOffset = Math.floor(-DAYS_BEFORE_TODAY + random() * (DAYS_BEFORE_TODAY + DAYS_AFTER_TODAY));
  const day = now.setZone(timezone).startOf('day').plus({ days: dayOffset });
  const allDay = random() < 0.05;
  const extraDays = random() < 0.06 ? 1 + Math.floor(random() * 3) : 0;
  let start: DateTime;
  let end: DateTime;
  if (allDay) {
    start = day;
    end = day.plus({ days: extraDays }).set({ hour: 23, minute: 59, second: 59 });
  } else {
    start = day.set({ hour: 9 + Math.floor(random() * 13), minute: random() < 0.5 ? 0 : 30 });
    end = start.plus({ days: extraDays, hours: Math.max(1, hours + Math.floor(random() * 3) - 1) });
  }
  return {
    all_day: allDay ? 1 : 0,
    start_local: stamp(start),
    end_local: stamp(end),
    start_utc: stamp(start.toUTC()),
    end_utc: stamp(end.toUTC()),
  };
}

function pickStatus(random: () => number): string {
  const ticket = random();
  if (ticket < 0.92) return 'publish';
  if (ticket < 0.95) return 'draft';
  if (ticket < 0.97) return 'pending';
  if (ticket < 0.99) return 'private';
  return 'future';
}

/** The recurrence columns of an event that is no series and no occurrence, never edited. */
export const SINGLE_EVENT = {
  recurrence: null,
  original_start_local: null,
  original_start_utc: null,
  is_exception: 0,
  recurrence_horizon: null,
  sequence: 0,
} as const;

/** The columns of an event row, in the order bulk statements write them. */
export const EVENT_COLUMNS = [
  'id',
  'author_id',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'password_hash',
  'image_id',
  'parent_id',
  'timezone',
  'all_day',
  'start_local',
  'end_local',
  'start_utc',
  'end_utc',
  'cost',
  'currency_symbol',
  'currency_position',
  'currency_code',
  'website',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'venue_id',
  'recurrence',
  'original_start_local',
  'original_start_utc',
  'is_exception',
  'recurrence_horizon',
  'sequence',
] as const satisfies readonly (keyof BulkRow<'events'>)[];
