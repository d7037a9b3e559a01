import type { Kysely } from 'kysely';
import { ForeignKeyViolationError } from '../../platform/db/dialect/errors.ts';
import { AppError } from '../../platform/errors.ts';
import type { Database } from '../../platform/db/schema.ts';
import type { Taxonomy } from '../calendar.tables.ts';
import type { RequestContext } from '../shared/context.ts';
import { sanitizeContent, sanitizeText } from '../shared/html.ts';
import { pageWindow, totalPages, type ArchiveLinks } from '../shared/pagination.ts';
import { canEdit, canRead, utcStamp } from '../shared/permissions.ts';
import { claimSlug, releaseSlugs, sanitizeSlug } from '../shared/slugs.ts';
import {
  deleteTranslations,
  loadFieldInAllLanguages,
  loadTextsOfTypes,
  writeTranslations,
  type TextsByType,
  type Translated,
} from '../shared/translations.ts';
import { invalidParam, parseList, parsePositiveInt, parseWpBoolean } from '../shared/wire.ts';
import { publishedEventCounts } from './terms.counts.ts';
import { termItemUrl, toTermList, toTermResponse, type TermUrlBase, type TermView } from './terms.mapper.ts';
import * as repository from './terms.repository.ts';
import type { TermRow } from './terms.repository.ts';
import { DEFAULT_PER_PAGE, MAX_NAME_LENGTH, MAX_PER_PAGE, type ListTermsQuery, type Term, type TermList, type TermWriteBody } from './terms.schemas.ts';
import { taxonomyInfo, type TaxonomyInfo } from './terms.taxonomy.ts';

type Db = Kysely<Database>;

/** What the term services need besides the request context. */
export interface TermServiceDeps extends TermUrlBase {
  readonly db: Db;
  /** The store's driver-error translation (`UniqueViolationError`, `ForeignKeyViolationError`). */
  readonly translateError: (error: unknown) => unknown;
}

/**
 * A term write in one transaction. The parent is checked inside it, but a
 * concurrent delete of that parent can still win the race: the foreign key
 * then refuses the row, which is the same 400 as an unknown parent.
 */
async function writeTransaction<T>(deps: TermServiceDeps, work: (trx: Db) => Promise<T>): Promise<T> {
  try {
    return await deps.db.transaction().execute(work);
  } catch (error) {
    if (deps.translateError(error) instanceof ForeignKeyViolationError) throw invalidParam('parent', 'parent must be the id of an existing category.');
    throw error;
  }
}

/** The key a name is unique and looked up by: sanitized like stored names, lower-cased. */
export function nameKey(name: string): string {
  return sanitizeText(name).toLowerCase();
}

/**
 * Reserves a term's name under a parent in one language. Returns the other
 * term already named so, if any. Names written outside this module (the demo
 * loader) are seen in `translations`; the `term_names` key settles races.
 */
async function reserveName(trx: Db, key: repository.NameKey, termId: number): Promise<number | undefined> {
  const existing = await repository.findNameOwner(trx, key, termId);
  if (existing !== undefined) return existing;
  const owner = await repository.claimName(trx, key, termId);
  return owner === termId ? undefined : owner;
}

function now(): string {
  return utcStamp(new Date());
}

// ---------------------------------------------------------------- views

/**
 * Term rows → views in the requested language: one query for the ancestors
 * (categories' public URLs, when asked) and one translation query, whatever
 * the number of terms.
 */
export async function loadTermViews(
  db: Db,
  rows: readonly TermRow[],
  counts: ReadonlyMap<number, number>,
  ctx: RequestContext,
  options: { readonly withAncestors: boolean },
): Promise<Map<number, TermView>> {
  const ancestors = options.withAncestors ? await repository.withAncestors(db, rows.filter((row) => row.parent_id !== null).map((row) => row.id)) : [];
  const idsByTaxonomy = new Map<Taxonomy, number[]>();
  for (const row of [...rows, ...ancestors]) idsByTaxonomy.set(row.taxonomy, [...(idsByTaxonomy.get(row.taxonomy) ?? []), row.id]);
  const texts = await loadTextsOfTypes(db, idsByTaxonomy, ctx.language, ctx.defaultLanguage);
  return termViewsOf(rows, counts, texts, options.withAncestors ? ancestors : undefined);
}

/**
 * Term views from loaded texts; with `ancestors` (each term's parent chain,
 * texts loaded too) they carry their ancestors' slugs.
 */
export function termViewsOf(
  rows: readonly TermRow[],
  counts: ReadonlyMap<number, number>,
  texts: TextsByType,
  ancestors?: readonly TermRow[],
): Map<number, TermView> {
  const all = new Map<number, TermRow>([...rows, ...(ancestors ?? [])].map((row) => [row.id, row]));
  const textOf = (id: number): Translated => {
    const row = all.get(id);
    return (row === undefined ? undefined : texts.get(row.taxonomy)?.get(id)) ?? {};
  };

  const ancestorSlugs = (row: TermRow): string[] => {
    const slugs: string[] = [];
    const seen = new Set<number>([row.id]);
    for (let parent = all.get(row.id)?.parent_id ?? null; parent !== null && !seen.has(parent); parent = all.get(parent)?.parent_id ?? null) {
      seen.add(parent);
      slugs.unshift(textOf(parent).slug ?? String(parent));
    }
    return slugs;
  };

  const views = new Map<number, TermView>();
  for (const row of rows) {
    const fields = textOf(row.id);
    views.set(row.id, {
      id: row.id,
      info: taxonomyInfo(row.taxonomy),
      parentId: row.parent_id,
      count: counts.get(row.id) ?? 0,
      name: fields.name ?? '',
      description: fields.description ?? '',
      slug: fields.slug ?? String(row.id),
      ancestorSlugs: ancestors === undefined ? [] : ancestorSlugs(row),
    });
  }
  return views;
}

async function termResponse(deps: TermServiceDeps, row: TermRow, ctx: RequestContext): Promise<Term> {
  const counts = await publishedEventCounts(deps.db, [row.id]);
  const views = await loadTermViews(deps.db, [row], counts, ctx, { withAncestors: true });
  return toTermResponse(views.get(row.id)!, deps);
}

// ---------------------------------------------------------------- references

export type ReferenceMode =
  /** List filters (deviation 13): id, then slug, then name. */
  | 'id-slug-name'
  /** Event writes (reference §4.2.5): numbers by id only, other strings by slug or name. */
  | 'write';

/**
 * Resolves items naming terms of one taxonomy, in three queries at most.
 * Slugs and names match in any language. Returns each item's term id, or
 * `undefined` when nothing matches.
 */
/** An item that names a term by id in event writes (`0`, `12`, `12.0`): never a slug or a name there. */
export function isNumericItem(item: string): boolean {
  return /^\+?\d+(?:\.0*)?$/.test(item);
}

export async function resolveTermReferences(
  db: Db,
  taxonomy: Taxonomy,
  items: readonly string[],
  mode: ReferenceMode,
): Promise<Map<string, number | undefined>> {
  const numeric = new Map(items.map((item) => [item, parsePositiveInt(item)]));
  const byText = mode === 'write' ? items.filter((item) => !isNumericItem(item)) : items;
  const found = await repository.findTermIdsByReference(db, taxonomy, {
    ids: [...numeric.values()].filter((id): id is number => id !== undefined),
    slugs: [...new Set(byText.flatMap((item) => [item, sanitizeSlug(item)]).filter((slug) => slug !== ''))],
    nameKeys: [...new Set(byText.map(nameKey).filter((key) => key !== ''))],
  });
  const resolved = new Map<string, number | undefined>();
  for (const item of items) {
    const id = numeric.get(item);
    const byId = id === undefined ? undefined : found.ids.get(id);
    if (byId !== undefined || (mode === 'write' && isNumericItem(item))) {
      resolved.set(item, byId);
      continue;
    }
    resolved.set(item, found.slugs.get(item) ?? found.slugs.get(sanitizeSlug(item)) ?? found.names.get(nameKey(item)));
  }
  return resolved;
}

/** More items than any real client sends; beyond it a list is refused rather than sent to SQL. */
const MAX_TERM_ITEMS = 500;

/** The items of a term list argument (CSV or array), at most `MAX_TERM_ITEMS`. */
export function termItems(value: unknown, param: string): string[] {
  const items = parseList(value);
  if (items.length > MAX_TERM_ITEMS) throw invalidParam(param, `${param} may name at most ${MAX_TERM_ITEMS} terms.`);
  if (items.some((item) => item.includes('\u0000'))) throw invalidParam(param, `${param} must not contain NUL characters.`);
  return items;
}

/** Every item must name a term of the taxonomy; otherwise 400 naming `param`. */
export async function resolveExistingTerms(db: Db, info: TaxonomyInfo, value: unknown, param: string): Promise<number[]> {
  const items = termItems(value, param);
  if (items.length === 0) throw invalidParam(param, `${param} must name at least one ${info.singular}.`);
  const resolved = await resolveTermReferences(db, info.taxonomy, items, 'id-slug-name');
  const unknown = items.filter((item) => resolved.get(item) === undefined);
  if (unknown.length > 0) throw invalidParam(param, `Unknown ${info.singular}: ${unknown.join(', ')}.`);
  return [...new Set(items.map((item) => resolved.get(item)!))];
}

// ---------------------------------------------------------------- list

/** The event whose terms a list asks for; `undefined` when they are stripped (a protected event the caller may not edit). */
async function eventFilter(db: Db, id: number, param: string, ctx: RequestContext): Promise<number | undefined> {
  const event = await repository.findEventAccessFacts(db, id);
  // An event the caller may not read answers like a missing one (deviation 19).
  if (event === undefined || !canRead(ctx.user, event)) throw invalidParam(param, `${param} must be the id of an existing event.`);
  return event.password_hash === null || canEdit(ctx.user, event) ? id : undefined;
}

export async function listTerms(
  deps: TermServiceDeps,
  info: TaxonomyInfo,
  query: ListTermsQuery,
  ctx: RequestContext,
): Promise<{ list: TermList; links: ArchiveLinks; total: number; totalPages: number }> {
  const { db } = deps;
  const page = query.page ?? 1;
  const perPage = Math.min(query.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
  const include = query.include === undefined ? undefined : await resolveExistingTerms(db, info, query.include, 'include');
  const exclude = query.exclude === undefined ? undefined : await resolveExistingTerms(db, info, query.exclude, 'exclude');
  // Unknown arguments are ignored, and `parent` is no argument of the tag archive.
  const parentId = info.hierarchical ? query.parent : undefined;
  if (parentId !== undefined) await assertTermOf(db, info, parentId, 'parent');
  const post = query.post === undefined ? undefined : await eventFilter(db, query.post, 'post', ctx);
  const event = query.event === undefined ? undefined : await eventFilter(db, query.event, 'event', ctx);
  const eventId = query.event !== undefined ? event : post;
  // Invisible means absent (issue 19): a protected event's terms are stripped, so it has none.
  const eventTermsHidden = (query.event ?? query.post) !== undefined && eventId === undefined;
  const filter: repository.TermListFilter = {
    taxonomy: info.taxonomy,
    now: now(),
    hideEmpty: parseWpBoolean(query.hide_empty) ?? true,
    ...(query.search === undefined ? {} : { search: { text: query.search, languages: [...new Set([ctx.language, ctx.defaultLanguage])] } }),
    ...(eventTermsHidden ? { include: [] } : include === undefined ? {} : { include }),
    ...(exclude === undefined ? {} : { exclude }),
    ...(parentId === undefined ? {} : { parentId }),
    ...(eventId === undefined ? {} : { eventId }),
    // WordPress sanitizes the slug it looks for (`Foo Bar` finds `foo-bar`).
    ...(query.slug === undefined ? {} : { slug: sanitizeSlug(query.slug) || query.slug }),
  };
  const order: repository.TermListOrder = {
    by: query.orderby ?? 'name',
    direction: query.order?.toLowerCase() === 'desc' ? 'desc' : 'asc',
    language: ctx.language,
    defaultLanguage: ctx.defaultLanguage,
  };
  const total = await repository.countTerms(db, filter);
  const pages = totalPages(total, perPage);
  // WordPress honours `offset` on term archives instead of the page's offset.
  const window = query.offset === undefined ? pageWindow(page, perPage) : { limit: perPage, offset: query.offset };
  // Past the last page WordPress answers 200 with an empty list (reference §6.1).
  const rows = window.offset >= total ? [] : await repository.listTerms(db, filter, order, window);
  const counts = await publishedEventCounts(db, rows.map((row) => row.id));
  const views = await loadTermViews(db, rows, counts, ctx, { withAncestors: true });
  const terms = rows.map((row) => toTermResponse(views.get(row.id)!, deps));
  return { ...toTermList(info, deps.namespaceUrl, terms, { page, total, totalPages: pages }), total, totalPages: pages };
}

// ---------------------------------------------------------------- single

/** The term `id` of the taxonomy, or 400 `rest_invalid_param` naming `param` (reference §6.2). */
export async function assertTermOf(db: Db, info: TaxonomyInfo, id: number, param: string, forWrite = false): Promise<TermRow> {
  const term = await repository.findTerm(db, id, forWrite);
  if (term === undefined || term.taxonomy !== info.taxonomy) {
    throw invalidParam(param, `${param} must be the id of an existing ${info.singular}.`);
  }
  return term;
}

export async function getTerm(deps: TermServiceDeps, info: TaxonomyInfo, id: number, ctx: RequestContext): Promise<Term> {
  return termResponse(deps, await assertTermOf(deps.db, info, id, 'id'), ctx);
}

// ---------------------------------------------------------------- writes

function termExists(info: TaxonomyInfo, termId: number): AppError {
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
async function claimExactSlug(trx: Db, info: TaxonomyInfo, id: number, wish: string): Promise<string> {
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
  fields: { name: string; description?: string; slug?: string; parentId: number | null },
  language: string,
): Promise<{ id: number } | { existing: number }> {
  const id = await repository.insertTerm(trx, info.taxonomy, fields.parentId);
  const owner = await reserveName(trx, { taxonomy: info.taxonomy, parentId: fields.parentId, language, nameKey: nameKey(fields.name) }, id);
  if (owner !== undefined) {
    await repository.deleteTerm(trx, { id, taxonomy: info.taxonomy, parent_id: fields.parentId });
    return { existing: owner };
  }
  const slug = fields.slug === undefined ? await claimSlug(trx, info.taxonomy, id, fields.name) : await claimExactSlug(trx, info, id, fields.slug);
  await writeTranslations(trx, info.taxonomy, id, language, { name: fields.name, description: fields.description, slug });
  return { id };
}

/** `parent` of a write: an existing category that is not the term itself or one of its descendants. */
async function parentForWrite(trx: Db, info: TaxonomyInfo, body: TermWriteBody, termId?: number): Promise<number | null | undefined> {
  if (body.parent === undefined || body.parent === null) return undefined;
  if (!info.hierarchical) {
    throw new AppError(400, 'rest_taxonomy_not_hierarchical', 'Cannot set parent term, taxonomy is not hierarchical.');
  }
  const parentId = body.parent as number;
  await assertTermOf(trx, info, parentId, 'parent');
  if (termId !== undefined && (await repository.withDescendants(trx, [termId])).includes(parentId)) {
    throw invalidParam('parent', 'A category cannot be its own parent or descendant.');
  }
  return parentId;
}

export async function createTerm(
  deps: TermServiceDeps,
  info: TaxonomyInfo,
  body: TermWriteBody & { name: string },
  ctx: RequestContext,
): Promise<{ term: Term; location: string }> {
  const term = await writeTransaction(deps, async (trx) => {
    const parentId = (await parentForWrite(trx, info, body)) ?? null;
    const inserted = await insertTermRecord(
      trx,
      info,
      {
        name: cleanName(body.name),
        ...(body.description === undefined ? {} : { description: sanitizeContent(body.description) }),
        ...(body.slug === undefined ? {} : { slug: body.slug }),
        parentId,
      },
      ctx.language,
    );
    if ('existing' in inserted) throw termExists(info, inserted.existing);
    return termResponse({ ...deps, db: trx }, { id: inserted.id, taxonomy: info.taxonomy, parent_id: parentId }, ctx);
  });
  return { term, location: termItemUrl(info, term.id, deps.namespaceUrl) };
}

export async function updateTerm(
  deps: TermServiceDeps,
  info: TaxonomyInfo,
  id: number,
  body: TermWriteBody,
  ctx: RequestContext,
): Promise<Term> {
  const language = ctx.language;
  return writeTransaction(deps, async (trx) => {
    const term = await assertTermOf(trx, info, id, 'id', true);
    const newParent = await parentForWrite(trx, info, body, id);
    const parentId = newParent === undefined ? term.parent_id : newParent;
    if (parentId !== term.parent_id) {
      await repository.updateParent(trx, id, parentId);
      // The term's names in every language move under the new parent, where they must be free.
      for (const [lang, name] of await loadFieldInAllLanguages(trx, info.taxonomy, id, 'name')) {
        if (lang === language && body.name !== undefined) continue;
        await repository.releaseNames(trx, id, lang);
        const owner = await reserveName(trx, { taxonomy: info.taxonomy, parentId, language: lang, nameKey: nameKey(name) }, id);
        if (owner !== undefined) throw termExists(info, owner);
      }
    }
    const fields: Record<string, string | undefined> = {};
    if (body.name !== undefined) {
      fields.name = cleanName(body.name);
      await repository.releaseNames(trx, id, language);
      const owner = await reserveName(trx, { taxonomy: info.taxonomy, parentId, language, nameKey: nameKey(fields.name) }, id);
      if (owner !== undefined) throw termExists(info, owner);
    }
    if (body.description !== undefined) fields.description = sanitizeContent(body.description);
    const slugs = await loadFieldInAllLanguages(trx, info.taxonomy, id, 'slug');
    if (body.slug !== undefined) fields.slug = await claimExactSlug(trx, info, id, body.slug);
    else if (fields.name !== undefined && !slugs.has(language)) fields.slug = await claimSlug(trx, info.taxonomy, id, fields.name);
    if (fields.slug !== undefined) {
      slugs.set(language, fields.slug);
      await releaseSlugs(trx, info.taxonomy, id, [...slugs.values()]);
    }
    await writeTranslations(trx, info.taxonomy, id, language, fields);
    return termResponse({ ...deps, db: trx }, { ...term, parent_id: parentId }, ctx);
  });
}

/** Deletes permanently; answers with the term as it was (reference §6.5). */
export async function deleteTerm(deps: TermServiceDeps, info: TaxonomyInfo, id: number, ctx: RequestContext): Promise<Term> {
  return deps.db.transaction().execute(async (trx) => {
    const term = await assertTermOf(trx, info, id, 'id', true);
    const before = await termResponse({ ...deps, db: trx }, term, ctx);
    const children = await repository.findChildIds(trx, id);
    await repository.deleteTerm(trx, term);
    await repository.moveNames(trx, children, term.parent_id);
    await releaseSlugs(trx, info.taxonomy, id);
    await deleteTranslations(trx, info.taxonomy, [id]);
    return before;
  });
}
