import { AppError } from '../../platform/errors.ts';
import type { Db } from '../../platform/db/schema.ts';
import { upsertTexts } from '../posts/posts.repository.ts';
import { claimSlug, sanitizeSlug } from '../posts/posts.slugs.ts';
import { sanitizeText } from '../common/html.ts';
import { invalidParam } from '../common/wire.ts';
import { assertTermOf, nameKey } from './terms.references.ts';
import * as repository from './terms.repository.ts';
import { MAX_NAME_LENGTH, type TermWriteBody } from './terms.schemas.ts';
import type { TaxonomyInfo } from './terms.taxonomy.ts';

/** The write rules of terms: unique names per parent and language, exact slugs, valid parents. */

/**
 * Reserves a term's name under a parent in one language. Returns the other
 * term already named so, if any. Names written outside this module (the demo
 * loader) are seen in `translations`; the `term_names` key settles races.
 */
export async function reserveName(trx: Db, key: repository.NameKey, termId: number): Promise<number | undefined> {
  const existing = await repository.findNameOwner(trx, key, termId);
  if (existing !== undefined) return existing;
  const owner = await repository.claimName(trx, key, termId);
  return owner === termId ? undefined : owner;
}

export function termExists(info: TaxonomyInfo, termId: number): AppError {
  return new AppError(400, 'term_exists', info.termExistsMessage, { term_id: termId });
}

function duplicateSlug(slug: string): AppError {
  return new AppError(400, 'duplicate_term_slug', `The slug “${slug}” is already in use by another term.`);
}

/** A stored name: text without markup, 1 to `MAX_NAME_LENGTH` characters. */
export function cleanName(name: string, param = 'name'): string {
  const clean = sanitizeText(name);
  if (clean === '') throw invalidParam(param, `${param} must contain text.`);
  if ([...clean].length > MAX_NAME_LENGTH) throw invalidParam(param, `A name may have at most ${MAX_NAME_LENGTH} characters.`);
  return clean;
}

/** A slug the client chose: exactly that one, or `duplicate_term_slug` (deviation 18). */
export async function claimExactSlug(trx: Db, info: TaxonomyInfo, id: number, wish: string): Promise<string> {
  const wanted = sanitizeSlug(wish);
  if (wanted === '') throw invalidParam('slug', 'slug must contain letters or digits.');
  const claimed = await claimSlug(trx, info.taxonomy, id, wanted);
  if (claimed !== wanted) throw duplicateSlug(wanted);
  return claimed;
}

/**
 * Inserts a term with its name (and slug, description) in one language.
 * Returns the new id, or `{ existing }` when a term of the same name already
 * exists under that parent in that language (the insert is then undone).
 */
export async function insertTermRecord(
  trx: Db,
  info: TaxonomyInfo,
  fields: { name: string; description?: string; slug?: string; parentId: number | null; color?: string | null },
  language: string,
): Promise<{ id: number } | { existing: number }> {
  const id = await repository.insertTerm(trx, info.taxonomy, fields.parentId, fields.color);
  const owner = await reserveName(trx, { taxonomy: info.taxonomy, parentId: fields.parentId, language, nameKey: nameKey(fields.name) }, id);
  if (owner !== undefined) {
    await repository.deleteTerm(trx, { id, taxonomy: info.taxonomy, parent_id: fields.parentId });
    return { existing: owner };
  }
  const slug =
    fields.slug === undefined ? await claimSlug(trx, info.taxonomy, id, fields.name) : await claimExactSlug(trx, info, id, fields.slug);
  await upsertTexts(trx, info.taxonomy, id, language, { name: fields.name, description: fields.description, slug });
  return { id };
}

/** A category's colour as stored (lower case; `''` → null: none); undefined when the write leaves it, or for a tag. */
export function colorOf(info: TaxonomyInfo, body: TermWriteBody): string | null | undefined {
  const color = (body as { color?: string }).color;
  if (!info.hierarchical || color === undefined) return undefined;
  return color === '' ? null : color.toLowerCase();
}

/**
 * `parent` of a write: an existing category that is not the term itself or one of its descendants, or `null` for 0: the
 * top level, as WordPress's own category API takes it (only an update's schema lets 0 through: a create refuses it, as
 * the reference does).
 */
export async function parentForWrite(
  trx: Db,
  info: TaxonomyInfo,
  body: TermWriteBody,
  termId?: number,
): Promise<number | null | undefined> {
  if (body.parent === undefined || body.parent === null) return undefined;
  if (!info.hierarchical) {
    throw new AppError(400, 'rest_taxonomy_not_hierarchical', 'Cannot set parent term, taxonomy is not hierarchical.');
  }
  const parentId = body.parent as number;
  if (parentId === 0) return null;
  await assertTermOf(trx, info, parentId, 'parent');
  if (termId !== undefined && (await repository.withDescendants(trx, [termId])).includes(parentId)) {
    throw invalidParam('parent', 'A category cannot be its own parent or descendant.');
  }
  return parentId;
}
