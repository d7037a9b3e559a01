import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.ts';
import type { TranslatableType } from '../calendar.tables.ts';
import { loadFieldInAllLanguages } from './translations.ts';

type Db = Kysely<Database>;

const MAX_SLUG_LENGTH = 190;

/**
 * WordPress's sanitize_title as clients see it: accents removed, lower case,
 * anything but letters, digits, `_` and `-` becomes `-`, dashes collapsed.
 */
export function sanitizeSlug(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&[a-z0-9#]+;/g, '')
    .replace(/[^a-z0-9_\s.-]/g, '')
    .replace(/[\s.]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/-$/, '');
}

/**
 * Reserves a slug for a resource, WordPress-style: the sanitized wish, or
 * `wish-2`, `wish-3`… when taken by another resource of the same type. The
 * primary key on (type, slug) makes two concurrent claims safe.
 */
export async function claimSlug(db: Db, type: TranslatableType, id: number, wish: string): Promise<string> {
  const base = sanitizeSlug(wish) || String(id);
  for (let suffix = 1; ; suffix += 1) {
    const slug = suffix === 1 ? base : `${base}-${suffix}`;
    const inserted = await db
      .insertInto('slugs')
      .values({ resource_type: type, slug, resource_id: id })
      .onConflict((oc) => oc.columns(['resource_type', 'slug']).doNothing())
      .returning('resource_id')
      .executeTakeFirst();
    if (inserted !== undefined) return slug;
    const owner = await db
      .selectFrom('slugs')
      .select('resource_id')
      .where('resource_type', '=', type)
      .where('slug', '=', slug)
      .executeTakeFirst();
    if (owner?.resource_id === id) return slug;
  }
}

/** Frees the slugs of a resource except those still in use (`keep`). */
export async function releaseSlugs(db: Db, type: TranslatableType, id: number, keep: readonly string[] = []): Promise<void> {
  let query = db.deleteFrom('slugs').where('resource_type', '=', type).where('resource_id', '=', id);
  if (keep.length > 0) query = query.where('slug', 'not in', [...keep]);
  await query.execute();
}

/** The resource owning a slug in any language. */
export async function findIdBySlug(db: Db, type: TranslatableType, slug: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('slugs')
    .select('resource_id')
    .where('resource_type', '=', type)
    .where('slug', '=', slug)
    .executeTakeFirst();
  return row?.resource_id;
}

/**
 * The slug a write stores in `language` (slugs are per language): the
 * explicit one, or — when this language has none yet — one made from the
 * title written in it. Slugs no language uses any more are released.
 * Returns `undefined` when the language's slug stays as it is.
 */
export async function claimLanguageSlug(
  db: Db,
  type: TranslatableType,
  id: number,
  language: string,
  wish: { readonly explicit?: string; readonly title?: string },
): Promise<string | undefined> {
  const slugs = await loadFieldInAllLanguages(db, type, id, 'slug');
  const current = slugs.get(language);
  const explicit = wish.explicit !== undefined && sanitizeSlug(wish.explicit) !== '' ? wish.explicit : undefined;
  const source = explicit ?? (current === undefined ? wish.title : undefined);
  if (source === undefined || sanitizeSlug(source) === current) return undefined;
  const slug = await claimSlug(db, type, id, source);
  slugs.set(language, slug);
  await releaseSlugs(db, type, id, [...slugs.values()]);
  return slug;
}
