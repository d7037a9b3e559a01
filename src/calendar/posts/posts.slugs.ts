import { isPostgres } from '../../platform/db/dialect-of.ts';
import { behind } from '../../platform/db/group-commit.ts';
import type { Db } from '../../platform/db/schema.ts';
import type { TranslatableType } from '../calendar.tables.ts';
import {
  deleteSlugs,
  findFieldInAllLanguages,
  findSlugsOfStem,
  insertFirstFreeSlug,
  insertSlugIfFree,
  NEWEST_POST_ID,
} from './posts.repository.ts';

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
 * Reserves a slug for a resource, WordPress-style: the sanitized wish, or the first of `wish-2`, `wish-3`… that no
 * other resource of the type holds, chosen and inserted in one statement (a round trip on PostgreSQL), not one per
 * suffix tried: the thousandth "Yoga class" is as quick to create as the second. The primary key on (type, slug)
 * makes two concurrent claims safe: the loser, or a resource that holds the slug already, looks again by reading
 * the slugs numbered after the wish.
 */
export async function claimSlug(db: Db, type: TranslatableType, id: number, wish: string): Promise<string> {
  const base = sanitizeSlug(wish) || String(id);
  return (await insertFirstFreeSlug(db, type, id, base)) ?? claimAgain(db, type, id, base);
}

/**
 * `claimSlug` for a post whose row is being inserted (`inserting`): on PostgreSQL the claim goes out right behind
 * the insert, naming the id the insert takes rather than waiting for its answer, so both share a round trip. A wish
 * with nothing left once sanitized falls back on the id, and waits for it.
 */
export async function claimNewPostSlug(
  db: Db,
  type: TranslatableType,
  inserting: Promise<{ readonly id: number }>,
  wish: string,
): Promise<string> {
  const base = sanitizeSlug(wish);
  if (base === '' || !isPostgres(db)) return claimSlug(db, type, (await inserting).id, wish);
  const claimed = await behind(inserting, () => insertFirstFreeSlug(db, type, NEWEST_POST_ID, base));
  return claimed ?? claimAgain(db, type, (await inserting).id, base);
}

/** After a claim lost to a concurrent one (or found the resource holding the slug already): reads the taken slugs and tries again. */
async function claimAgain(db: Db, type: TranslatableType, id: number, base: string): Promise<string> {
  for (;;) {
    const taken = await findSlugsOfStem(db, type, base);
    let slug = base;
    for (let suffix = 2; taken.has(slug) && taken.get(slug) !== id; suffix += 1) slug = `${base}-${suffix}`;
    if (taken.get(slug) === id || (await insertSlugIfFree(db, type, id, slug))) return slug;
  }
}

/**
 * The slug a write stores in `language` (slugs are per language): the
 * explicit one, or — when this language has none yet — one made from the
 * title written in it. Slugs no language uses any more are released.
 * Returns `undefined` when the language's slug stays as it is. `current`:
 * the resource's slugs by language, read by the write that holds it.
 */
export async function claimLanguageSlug(
  db: Db,
  type: TranslatableType,
  id: number,
  language: string,
  wish: { readonly explicit?: string; readonly title?: string },
  current?: ReadonlyMap<string, string>,
): Promise<string | undefined> {
  const slugs = new Map(current ?? (await findFieldInAllLanguages(db, type, id, 'slug')));
  const own = slugs.get(language);
  const explicit = wish.explicit !== undefined && sanitizeSlug(wish.explicit) !== '' ? wish.explicit : undefined;
  const source = explicit ?? (own === undefined ? wish.title : undefined);
  if (source === undefined || sanitizeSlug(source) === own) return undefined;
  const slug = await claimSlug(db, type, id, source);
  slugs.set(language, slug);
  await deleteSlugs(db, type, id, [...slugs.values()]);
  return slug;
}
