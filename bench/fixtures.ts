import type { Store } from '../src/platform/db/database.ts';
import '../src/calendar/calendar.tables.ts';
import { CHANGE_TYPES, encodeToken } from '../src/calendar/changes/changes.tokens.ts';

/** Ids and filter values the scenarios request, taken from the seeded data so that every request finds something. */
export interface Fixtures {
  /** A published, listed event from the middle of the table. */
  readonly eventId: number;
  /** Filters that match at least `eventId`'s neighbour: its category, venue, a title word and a window around its start. */
  readonly filter: {
    readonly category: string;
    readonly venue: number;
    readonly search: string;
    readonly startDate: string;
    readonly endDate: string;
  };
  /** An anonymous sync token from before the last `SYNC_BEHIND` changes of the log: a poller a few edits behind. */
  readonly syncToken: string;
  /** A stored thumbnail's key (its path under `/media/`), or undefined when the media library has none. */
  readonly mediaFile: string | undefined;
  /** What the mixed workload draws its requests from: published events across the whole table, and filter values. */
  readonly mix: {
    readonly eventIds: readonly number[];
    readonly categories: readonly string[];
    readonly venues: readonly number[];
  };
}

export const SYNC_BEHIND = 10;

export async function loadFixtures(store: Store): Promise<Fixtures> {
  const { db } = store;
  const today = new Date().toISOString().slice(0, 10);
  const candidates = await db
    .selectFrom('events')
    .select(['id', 'venue_id', 'start_local'])
    .where('status', '=', 'publish')
    .where('hide_from_listings', '=', 0)
    .where('venue_id', 'is not', null)
    .where('start_local', '>', `${today} 23:59:59`)
    .orderBy('id')
    .limit(1000)
    .execute();
  const event = candidates[Math.floor(candidates.length / 2)];
  if (event === undefined || event.venue_id === null) throw new Error('no published future event with a venue: seed first');
  const category = await db
    .selectFrom('event_terms as et')
    .innerJoin('terms as t', 't.id', 'et.term_id')
    .innerJoin('translations as tr', (join) =>
      join
        .onRef('tr.resource_id', '=', 't.id')
        .on('tr.resource_type', '=', 'category')
        .on('tr.language', '=', 'en')
        .on('tr.field', '=', 'slug'),
    )
    .select('tr.value as slug')
    .where('et.event_id', '=', event.id)
    .where('t.taxonomy', '=', 'category')
    .executeTakeFirstOrThrow();
  const title = await db
    .selectFrom('translations')
    .select('value')
    .where('resource_type', '=', 'event')
    .where('resource_id', '=', event.id)
    .where('language', '=', 'en')
    .where('field', '=', 'title')
    .executeTakeFirstOrThrow();
  // The longest word of the title: selective enough to make search do real work.
  const search = title.value.split(/[^\p{L}]+/u).reduce((longest, word) => (word.length > longest.length ? word : longest), '');
  const start = new Date(`${event.start_local.slice(0, 10)}T00:00:00Z`);
  const day = (offset: number) => new Date(start.getTime() + offset * 86_400_000).toISOString().slice(0, 10);
  return {
    eventId: event.id,
    filter: { category: category.slug, venue: event.venue_id, search, startDate: day(-30), endDate: day(30) },
    syncToken: await syncTokenBehind(store, SYNC_BEHIND),
    mediaFile: await thumbnailFile(store),
    mix: await mixFixtures(store),
  };
}

/** The thumbnail of the first stored image (what list cards load most), by its key under `/media/`. */
async function thumbnailFile(store: Store): Promise<string | undefined> {
  const image = await store.db
    .selectFrom('images')
    .select(['file', 'sizes'])
    .where('file', 'is not', null)
    .orderBy('id')
    .executeTakeFirst();
  if (image?.file == null) return undefined;
  const thumbnail = (JSON.parse(image.sizes) as Record<string, { file: string }>).thumbnail;
  return thumbnail === undefined ? undefined : `${image.file.slice(0, image.file.lastIndexOf('/'))}/${thumbnail.file}`;
}

/** Every n-th published event (about 500 of them, from first to last), and the categories and venues they use. */
async function mixFixtures(store: Store): Promise<Fixtures['mix']> {
  const { db } = store;
  const published = db.selectFrom('events').where('status', '=', 'publish').where('hide_from_listings', '=', 0);
  const { count } = await published.select((eb) => eb.fn.countAll<number | string>().as('count')).executeTakeFirstOrThrow();
  const step = Math.max(1, Math.floor(Number(count) / 500));
  const ids = await published.select('id').orderBy('id').execute();
  const eventIds = ids.filter((_, index) => index % step === 0).map((row) => row.id);
  const categories = await db
    .selectFrom('translations')
    .select('value')
    .where('resource_type', '=', 'category')
    .where('language', '=', 'en')
    .where('field', '=', 'slug')
    .limit(20)
    .execute();
  const venues = await db.selectFrom('venues').select('id').where('status', '=', 'publish').orderBy('id').limit(20).execute();
  return { eventIds, categories: categories.map((row) => row.value), venues: venues.map((row) => row.id) };
}

/** A token as `/changes` issues it, from before the last `behind` changes (the key is the database's). */
async function syncTokenBehind(store: Store, behind: number): Promise<string> {
  const { db } = store;
  const { token_key: key } = await db.selectFrom('calendar_change_log').select('token_key').executeTakeFirstOrThrow();
  const row = await db.selectFrom('calendar_changes').select('seq').orderBy('seq', 'desc').offset(behind).limit(1).executeTakeFirst();
  const from = row === undefined ? 0 : Number(row.seq);
  return encodeToken(key, { from, issued: Math.floor(Date.now() / 1000), types: CHANGE_TYPES, language: 'en', user: 0 });
}
