import type { Db } from '../../platform/db/schema.ts';
import type { TranslatableType } from '../calendar.tables.ts';
import { findTexts } from './posts.repository.ts';

/** Field → value in one language, after fallback. */
export type Translated = Readonly<Record<string, string>>;

/** Texts of resources of several types, after fallback: type → id → fields. */
export type TextsByType = ReadonlyMap<TranslatableType, ReadonlyMap<number, Translated>>;

/**
 * Loads the translatable fields of resources of several types in one query
 * (an event page and everything it embeds) and resolves each field
 * separately: the requested language, else the default language, else any
 * other stored language (so an item written only in Italian reads in
 * Italian everywhere until English is written). With `fields`, only those
 * fields are read (a calendar grid's titles and slugs, not every description).
 */
export async function loadTextsOfTypes(
  db: Db,
  wanted: ReadonlyMap<TranslatableType, readonly number[]>,
  language: string,
  defaultLanguage: string,
  fields?: readonly string[],
): Promise<TextsByType> {
  const groups = [...wanted].filter(([, ids]) => ids.length > 0);
  const result = new Map<TranslatableType, Map<number, Record<string, string>>>(groups.map(([type]) => [type, new Map()]));
  if (groups.length === 0 || fields?.length === 0) return result;
  const rows = await findTexts(db, groups, fields);
  const rank = (lang: string) => (lang === language ? 0 : lang === defaultLanguage ? 1 : 2);
  const ranks = new Map<string, number>();
  for (const row of rows) {
    const key = `${row.resource_type}\u0000${row.resource_id}\u0000${row.field}`;
    const current = ranks.get(key);
    const candidate = rank(row.language);
    if (current !== undefined && current <= candidate) continue;
    ranks.set(key, candidate);
    const ofType = result.get(row.resource_type);
    let fields = ofType?.get(row.resource_id);
    if (fields === undefined) ofType?.set(row.resource_id, (fields = {}));
    if (fields !== undefined) fields[row.field] = row.value;
  }
  return result;
}

/** The texts (or only `fields`) of many resources of one type (see loadTextsOfTypes). */
export async function loadTranslations(
  db: Db,
  type: TranslatableType,
  ids: readonly number[],
  language: string,
  defaultLanguage: string,
  fields?: readonly string[],
): Promise<ReadonlyMap<number, Translated>> {
  const texts = await loadTextsOfTypes(db, new Map([[type, ids]]), language, defaultLanguage, fields);
  return texts.get(type) ?? new Map();
}
