import { claimSlug, sanitizeSlug } from '../posts/posts.slugs.ts';
import { upsertTexts } from '../posts/posts.repository.ts';
import type { Taxonomy, TranslatableType } from '../calendar.tables.ts';
import { CATEGORIES, CITIES, NAMESAKES, ORGANIZER_KINDS, STREETS, TAGS, VENUE_KINDS, type Bilingual, type City } from './demo-data.ts';
import { reservePostIds } from '../posts/posts.repository.ts';
import { BulkInsert, findSlugOwners, insertTerm, type BulkRow } from './demo-events.repository.ts';
import type { Db } from '../../platform/db/schema.ts';
import { mulberry32, pick, publicationDate, TextRows, type SeedContext } from './demo-rows.ts';

/**
 * What demo events link to: categories (two levels) and tags, venues with
 * coordinates in their cities, organizers. Each is found by its English slug
 * when a previous run made it, so running the loader twice adds events only.
 */

export interface DemoTerms {
  /** English subcategory name → [subcategory id, parent id]. */
  readonly categories: Map<string, readonly number[]>;
  readonly tags: readonly number[];
}

export interface DemoVenue {
  readonly id: number;
  readonly city: City;
}

// ---------------------------------------------------------------- terms

export async function ensureTerms(context: SeedContext): Promise<DemoTerms> {
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

export async function ensureVenues(context: SeedContext, count: number): Promise<DemoVenue[]> {
  const { db, random } = context;
  const distinct = VENUE_KINDS.length * NAMESAKES.length;
  const wanted = Array.from({ length: count }, (_, index) => {
    const city = cityOf(index);
    const name = venueName(index);
    const suffix = generationSuffix(index, distinct);
    const slugs = { en: sanitizeSlug(`${name.en} ${city.name.en}${suffix}`), it: sanitizeSlug(`${name.it} ${city.name.it}${suffix}`) };
    return { index, city, name, slugs };
  });
  const owners = await findSlugOwners(
    db,
    'venue',
    wanted.map((venue) => venue.slugs.en),
  );
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

export async function ensureOrganizers(context: SeedContext, count: number): Promise<number[]> {
  const { db, random } = context;
  const distinct = ORGANIZER_KINDS.length * NAMESAKES.length;
  const wanted = Array.from({ length: count }, (_, index) => {
    const kind = ORGANIZER_KINDS[Math.floor(index / NAMESAKES.length) % ORGANIZER_KINDS.length]!;
    const namesake = `${NAMESAKES[index % NAMESAKES.length]!}${generationSuffix(index, distinct)}`;
    const name = { en: kind.en.replace('{n}', namesake), it: kind.it.replace('{n}', namesake) };
    return { name, slugs: { en: sanitizeSlug(name.en), it: sanitizeSlug(name.it) } };
  });
  const owners = await findSlugOwners(
    db,
    'organizer',
    wanted.map((organizer) => organizer.slugs.en),
  );
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

const VENUE_COLUMNS = [
  'id',
  'author_id',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'password_hash',
  'image_id',
  'address',
  'city',
  'country',
  'province',
  'state',
  'stateprovince',
  'zip',
  'phone',
  'website',
  'show_map',
  'show_map_link',
  'geo_lat',
  'geo_lng',
] as const satisfies readonly (keyof BulkRow<'venues'>)[];

const ORGANIZER_COLUMNS = [
  'id',
  'author_id',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'password_hash',
  'image_id',
  'phone',
  'website',
  'email',
] as const satisfies readonly (keyof BulkRow<'organizers'>)[];

const phoneNumber = (random: () => number) => `+39 0${1 + Math.floor(random() * 9)} ${String(Math.floor(random() * 1e7)).padStart(7, '0')}`;

const round6 = (value: number) => Math.round(value * 1e6) / 1e6;
