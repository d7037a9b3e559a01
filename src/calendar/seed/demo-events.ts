import { DateTime } from 'luxon';
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.ts';
import { settleAfterBulkLoad, type Store } from '../../platform/db/database.ts';
import type { Taxonomy, TranslatableType } from '../calendar.tables.ts';
import { claimSlug, sanitizeSlug } from '../posts/posts.slugs.ts';
import { upsertTexts } from '../posts/posts.repository.ts';
import {
  CATEGORIES,
  CITIES,
  DESCRIPTIONS,
  EVENT_KINDS,
  NAMESAKES,
  ORGANIZER_KINDS,
  STREETS,
  TAGS,
  THEMES,
  VENUE_KINDS,
  type Bilingual,
  type City,
} from './demo-data.ts';
import {
  BulkInsert,
  countEvents,
  findFirstAdministratorId,
  findSlugOwners,
  insertTerm,
  reservePostIds,
  type BulkRow,
} from './demo-events.repository.ts';

type Db = Kysely<Database>;

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

  let written = 0;
  while (written < options.events) {
    const size = Math.min(EVENTS_PER_CHUNK, options.events - written);
    await db.transaction().execute((trx) => insertEventChunk({ ...context, db: trx }, size, { terms, venues, organizers }));
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

interface SeedContext {
  readonly db: Db;
  readonly random: () => number;
  readonly now: DateTime;
  readonly authorId: number | null;
  readonly siteTimezone: string;
}

interface DemoTerms {
  /** English subcategory name → [subcategory id, parent id]. */
  readonly categories: Map<string, readonly number[]>;
  readonly tags: readonly number[];
}

interface DemoVenue {
  readonly id: number;
  readonly city: City;
}

interface Links {
  readonly terms: DemoTerms;
  readonly venues: readonly DemoVenue[];
  readonly organizers: readonly number[];
}

// ---------------------------------------------------------------- terms

async function ensureTerms(context: SeedContext): Promise<DemoTerms> {
  const categories = new Map<string, readonly number[]>();
  for (const category of CATEGORIES) {
    const parentId = await ensureTerm(context, 'category', category.name, null);
    categories.set(category.name.en, [parentId]);
    for (const child of category.children) {
      categories.set(child.en, [await ensureTerm(context, 'category', child, parentId), parentId]);
    }
  }
  const tags: number[] = [];
  for (const tag of TAGS) tags.push(await ensureTerm(context, 'tag', tag, null));
  return { categories, tags };
}

/** The term named `name`, created with both translations unless a previous run made it. */
async function ensureTerm(context: SeedContext, taxonomy: Taxonomy, name: Bilingual, parentId: number | null): Promise<number> {
  const { db } = context;
  const owner = (await findSlugOwners(db, taxonomy, [sanitizeSlug(name.en)])).get(sanitizeSlug(name.en));
  if (owner !== undefined) return owner;
  const id = await insertTerm(db, { taxonomy, parent_id: parentId });
  const description: Bilingual = {
    en: `Events filed under ${name.en.toLowerCase()}.`,
    it: `Eventi della categoria ${name.it.toLowerCase()}.`,
  };
  await writeBilingual(db, taxonomy, id, { name, description }, 'name');
  return id;
}

/** Writes fields in both languages, claiming one slug per language from the `slugSource` field. */
async function writeBilingual(
  db: Db,
  type: TranslatableType,
  id: number,
  fields: Readonly<Record<string, Bilingual>>,
  slugSource: string,
): Promise<void> {
  const source = fields[slugSource];
  if (source === undefined) throw new Error(`no ${slugSource} to derive a slug from`);
  for (const language of ['en', 'it'] as const) {
    const slug = await claimSlug(db, type, id, source[language]);
    const values: Record<string, string> = { slug };
    for (const [field, value] of Object.entries(fields)) values[field] = value[language];
    await upsertTexts(db, type, id, language, values);
  }
}

// ---------------------------------------------------------------- venues and organizers

const venueName = (index: number): Bilingual => {
  const kind = VENUE_KINDS[index % VENUE_KINDS.length]!;
  const namesake = NAMESAKES[Math.floor(index / VENUE_KINDS.length) % NAMESAKES.length]!;
  return { en: kind.en.replace('{n}', namesake), it: kind.it.replace('{n}', namesake) };
};

/** Names repeat after every kind × namesake pair; later venues carry a generation number in their slug. */
const generationSuffix = (index: number, distinct: number) => (index < distinct ? '' : ` ${Math.floor(index / distinct) + 1}`);

/** The city of the n-th venue: deterministic, weighted towards Italy. */
function cityOf(index: number): City {
  const totalWeight = CITIES.reduce((sum, city) => sum + city.weight, 0);
  let ticket = mulberry32(index + 7)() * totalWeight;
  for (const city of CITIES) {
    ticket -= city.weight;
    if (ticket < 0) return city;
  }
  return CITIES[0]!;
}

const localName = (city: City) => (city.country.en === 'Italy' ? city.name.it : city.name.en);

async function ensureVenues(context: SeedContext, count: number): Promise<DemoVenue[]> {
  const { db, random } = context;
  const distinct = VENUE_KINDS.length * NAMESAKES.length;
  const wanted = Array.from({ length: count }, (_, index) => {
    const city = cityOf(index);
    const name = venueName(index);
    const suffix = generationSuffix(index, distinct);
    const slugs = { en: sanitizeSlug(`${name.en} ${city.name.en}${suffix}`), it: sanitizeSlug(`${name.it} ${city.name.it}${suffix}`) };
    return { index, city, name, slugs };
  });
  const owners = await findSlugOwners(db, 'venue', wanted.map((venue) => venue.slugs.en));
  const missing = wanted.filter((venue) => !owners.has(venue.slugs.en));
  const ids = await reservePostIds(db, 'venue', missing.length);

  const rows = new BulkInsert('venues', VENUE_COLUMNS);
  const texts = new TextRows();
  for (const [position, venue] of missing.entries()) {
    const id = ids[position]!;
    owners.set(venue.slugs.en, id);
    const published = publicationDate(context, -random() * 900 - 400);
    const { city } = venue;
    const american = city.country.en === 'United States' || city.country.en === 'Australia';
    rows.add({
      id,
      author_id: context.authorId,
      status: 'publish',
      ...published,
      password_hash: null,
      image_id: null,
      address: `${pick(random, STREETS)} ${1 + Math.floor(random() * 120)}`,
      city: localName(city),
      country: city.country.en,
      province: american ? '' : city.province,
      state: american ? city.province : '',
      stateprovince: city.province,
      zip: city.zip,
      phone: phoneNumber(random),
      website: `https://${venue.slugs.en}.example.org`,
      show_map: 1,
      show_map_link: 1,
      geo_lat: round6(city.lat + (random() - 0.5) * 0.04),
      geo_lng: round6(city.lng + (random() - 0.5) * 0.04),
    });
    const description: Bilingual = {
      en: `<p>${venue.name.en} hosts concerts, talks and exhibitions in the heart of ${city.name.en}.</p>`,
      it: `<p>${venue.name.it} ospita concerti, incontri e mostre nel cuore di ${city.name.it}.</p>`,
    };
    texts.add('venue', id, { venue: venue.name, description }, venue.slugs);
  }
  await rows.flush(db);
  await texts.flush(db);
  return wanted.map((venue) => ({ id: owners.get(venue.slugs.en)!, city: venue.city }));
}

async function ensureOrganizers(context: SeedContext, count: number): Promise<number[]> {
  const { db, random } = context;
  const distinct = ORGANIZER_KINDS.length * NAMESAKES.length;
  const wanted = Array.from({ length: count }, (_, index) => {
    const kind = ORGANIZER_KINDS[Math.floor(index / NAMESAKES.length) % ORGANIZER_KINDS.length]!;
    const namesake = `${NAMESAKES[index % NAMESAKES.length]!}${generationSuffix(index, distinct)}`;
    const name = { en: kind.en.replace('{n}', namesake), it: kind.it.replace('{n}', namesake) };
    return { name, slugs: { en: sanitizeSlug(name.en), it: sanitizeSlug(name.it) } };
  });
  const owners = await findSlugOwners(db, 'organizer', wanted.map((organizer) => organizer.slugs.en));
  const missing = wanted.filter((organizer) => !owners.has(organizer.slugs.en));
  const ids = await reservePostIds(db, 'organizer', missing.length);

  const rows = new BulkInsert('organizers', ORGANIZER_COLUMNS);
  const texts = new TextRows();
  for (const [position, organizer] of missing.entries()) {
    const id = ids[position]!;
    owners.set(organizer.slugs.en, id);
    rows.add({
      id,
      author_id: context.authorId,
      status: 'publish',
      ...publicationDate(context, -random() * 900 - 400),
      password_hash: null,
      image_id: null,
      phone: phoneNumber(random),
      website: `https://${organizer.slugs.en}.example.org`,
      email: `info@${organizer.slugs.en}.example.org`,
    });
    const description: Bilingual = {
      en: `<p>${organizer.name.en} has organised cultural events since ${1950 + Math.floor(random() * 70)}.</p>`,
      it: `<p>${organizer.name.it} organizza eventi culturali dal ${1950 + Math.floor(random() * 70)}.</p>`,
    };
    texts.add('organizer', id, { organizer: organizer.name, description }, organizer.slugs);
  }
  await rows.flush(db);
  await texts.flush(db);
  return wanted.map((organizer) => owners.get(organizer.slugs.en)!);
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
      image_id: null,
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

/** Post date `daysFromNow` away, local to the site and in UTC; modified at the same time. */
function publicationDate(context: SeedContext, daysFromNow: number) {
  const utc = context.now.plus({ minutes: Math.round(daysFromNow * 1440) }).startOf('minute');
  const local = stamp(utc.setZone(context.siteTimezone));
  const instant = stamp(utc);
  return { date: local, date_utc: instant, modified: local, modified_utc: instant };
}

// ---------------------------------------------------------------- translations and slugs

/** Buffers the translation and slug rows of many resources for bulk insertion. */
class TextRows {
  private readonly translations = new BulkInsert('translations', ['resource_type', 'resource_id', 'language', 'field', 'value']);
  private readonly slugs = new BulkInsert('slugs', ['resource_type', 'slug', 'resource_id'], true);

  add(
    type: TranslatableType,
    id: number,
    fields: Readonly<Record<string, Bilingual>>,
    slugs: Bilingual,
    languages: readonly ('en' | 'it')[] = ['en', 'it'],
  ): void {
    for (const language of languages) {
      for (const [field, value] of Object.entries(fields)) {
        this.translations.add({ resource_type: type, resource_id: id, language, field, value: value[language] });
      }
      this.translations.add({ resource_type: type, resource_id: id, language, field: 'slug', value: slugs[language] });
    }
    const distinct = new Set(languages.map((language) => slugs[language]));
    for (const slug of distinct) this.slugs.add({ resource_type: type, slug, resource_id: id });
  }

  async flush(db: Db): Promise<void> {
    await this.translations.flush(db);
    await this.slugs.flush(db);
  }
}

// ---------------------------------------------------------------- small helpers

const VENUE_COLUMNS = [
  'id', 'author_id', 'status', 'date', 'date_utc', 'modified', 'modified_utc', 'password_hash', 'image_id', 'address', 'city',
  'country', 'province', 'state', 'stateprovince', 'zip', 'phone', 'website', 'show_map', 'show_map_link', 'geo_lat', 'geo_lng',
] as const satisfies readonly (keyof BulkRow<'venues'>)[];

const ORGANIZER_COLUMNS = [
  'id', 'author_id', 'status', 'date', 'date_utc', 'modified', 'modified_utc', 'password_hash', 'image_id', 'phone', 'website', 'email',
] as const satisfies readonly (keyof BulkRow<'organizers'>)[];

/** The columns of an event row, in the order bulk statements write them. */
export const EVENT_COLUMNS = [
  'id', 'author_id', 'status', 'date', 'date_utc', 'modified', 'modified_utc', 'password_hash', 'image_id', 'parent_id', 'timezone',
  'all_day', 'start_local', 'end_local', 'start_utc', 'end_utc', 'cost', 'currency_symbol', 'currency_position', 'currency_code',
  'website', 'show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured', 'venue_id',
] as const satisfies readonly (keyof BulkRow<'events'>)[];

const pad = (value: number) => (value < 10 ? `0${value}` : String(value));

/** `YYYY-MM-DD HH:MM:SS` of a luxon time in its own zone (toFormat is slow at a million rows). */
function stamp(time: DateTime): string {
  return `${time.year}-${pad(time.month)}-${pad(time.day)} ${pad(time.hour)}:${pad(time.minute)}:${pad(time.second)}`;
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function distinctPicks<T>(random: () => number, items: readonly T[], count: number): T[] {
  const picked = new Set<T>();
  while (picked.size < Math.min(count, items.length)) picked.add(pick(random, items));
  return [...picked];
}

const phoneNumber = (random: () => number) => `+39 0${1 + Math.floor(random() * 9)} ${String(Math.floor(random() * 1e7)).padStart(7, '0')}`;

const round6 = (value: number) => Math.round(value * 1e6) / 1e6;

/** A small, fast, seedable PRNG: the same seed gives the same calendar. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
