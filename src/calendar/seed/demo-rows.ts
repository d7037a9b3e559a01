import type { DateTime } from 'luxon';
import type { Db } from '../../platform/db/schema.ts';
import type { TranslatableType } from '../calendar.tables.ts';
import type { Bilingual } from './demo-data.ts';
import { BulkInsert } from './demo-events.repository.ts';

/**
 * What the demo loaders share: the run's context (its transaction, random
 * numbers and clock), the buffered translation and slug rows, publication
 * dates and seeded random picks.
 */

export interface SeedContext {
  readonly db: Db;
  readonly random: () => number;
  readonly now: DateTime;
  readonly authorId: number | null;
  readonly siteTimezone: string;
}

/** Buffers the translation and slug rows of many resources for bulk insertion. */
export class TextRows {
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

/** Post date `daysFromNow` away, local to the site and in UTC; modified at the same time. */
export function publicationDate(context: SeedContext, daysFromNow: number) {
  const utc = context.now.plus({ minutes: Math.round(daysFromNow * 1440) }).startOf('minute');
  const local = stamp(utc.setZone(context.siteTimezone));
  const instant = stamp(utc);
  return { date: local, date_utc: instant, modified: local, modified_utc: instant };
}

const pad = (value: number) => (value < 10 ? `0${value}` : String(value));

/** `YYYY-MM-DD HH:MM:SS` of a luxon time in its own zone (toFormat is slow at a million rows). */
export function stamp(time: DateTime): string {
  return `${time.year}-${pad(time.month)}-${pad(time.day)} ${pad(time.hour)}:${pad(time.minute)}:${pad(time.second)}`;
}

export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

export function distinctPicks<T>(random: () => number, items: readonly T[], count: number): T[] {
  const picked = new Set<T>();
  while (picked.size < Math.min(count, items.length)) picked.add(pick(random, items));
  return [...picked];
}

/** A small, fast, seedable PRNG: the same seed gives the same calendar. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
