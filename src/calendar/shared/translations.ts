import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../../platform/db/schema.ts';
import type { TranslatableType } from '../calendar.tables.ts';
import '../calendar.tables.ts';

type Db = Kysely<Database>;

/** Field → value in one language, after fallback. */
export type Translated = Readonly<Record<string, string>>;

/** Texts of resources of several types, after fallback: type → id → fields. */
export type TextsByType = ReadonlyMap<TranslatableType, ReadonlyMap<number, Translated>>;

/**
 * Loads the translatable fields of resources of several types in one query
 * (an event page and everything it embeds) and resolves each field
 * separately: the requested language, else the default language, else any
 * other stored language (so an item written only in Italian reads in
 * Italian everywhere until English is written).
 */
export async function loadTextsOfTypes(
  db: Db,
  wanted: ReadonlyMap<TranslatableType, readonly number[]>,
  language: string,
  defaultLanguage: string,
): Promise<TextsByType> {
  const groups = [...wanted].filter(([, ids]) => ids.length > 0);
  const result = new Map<TranslatableType, Map<number, Record<string, string>>>(groups.map(([type]) => [type, new Map()]));
  if (groups.length === 0) return result;
  const rows = await db
    .selectFrom('translations')
    .select(['resource_type', 'resource_id', 'language', 'field', 'value'])
    .where((eb) => eb.or(groups.map(([type, ids]) => eb.and([eb('resource_type', '=', type), eb('resource_id', 'in', [...new Set(ids)])]))))
    .execute();
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

/** The texts of many resources of one type (see loadTextsOfTypes). */
export async function loadTranslations(
  db: Db,
  type: TranslatableType,
  ids: readonly number[],
  language: string,
  defaultLanguage: string,
): Promise<ReadonlyMap<number, Translated>> {
  const texts = await loadTextsOfTypes(db, new Map([[type, ids]]), language, defaultLanguage);
  return texts.get(type) ?? new Map();
}

/** The languages in which each resource has a stored value of `field`, e.g. to find every slug. */
export async function loadFieldInAllLanguages(
  db: Db,
  type: TranslatableType,
  id: number,
  field: string,
): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('translations')
    .select(['language', 'value'])
    .where('resource_type', '=', type)
    .where('resource_id', '=', id)
    .where('field', '=', field)
    .execute();
  return new Map(rows.map((row) => [row.language, row.value]));
}

/** Writes the given fields in one language; `undefined` fields are left untouched. */
export async function writeTranslations(
  db: Db,
  type: TranslatableType,
  id: number,
  language: string,
  fields: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  const rows = Object.entries(fields)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([field, value]) => ({ resource_type: type, resource_id: id, language, field, value }));
  if (rows.length === 0) return;
  await db
    .insertInto('translations')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['resource_type', 'resource_id', 'language', 'field']).doUpdateSet((eb) => ({ value: eb.ref('excluded.value') })),
    )
    .execute();
}

export async function deleteTranslations(db: Db, type: TranslatableType, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('translations').where('resource_type', '=', type).where('resource_id', 'in', [...ids]).execute();
}

/** Escapes LIKE wildcards so user text matches literally (with `ESCAPE '\'`). */
export function likePattern(fragment: string): string {
  return `%${fragment.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * A condition "resource `idColumn` has `fragment` in one of `fields`, in the
 * requested or the default language" — case-insensitive for all of Unicode
 * on both dialects (SQLite's lower() is overridden in its dialect file).
 */
export function translationContains(
  type: TranslatableType,
  idColumn: Expression<number>,
  fields: readonly string[],
  languages: readonly string[],
  fragment: string,
): Expression<SqlBool> {
  return sql<SqlBool>`exists (select 1 from translations t where t.resource_type = ${type} and t.resource_id = ${idColumn} and t.field in (${sql.join(
    fields,
  )}) and t.language in (${sql.join(languages)}) and lower(t.value) like ${likePattern(fragment)} escape '\\')`;
}
