import { cacheKey } from '../../platform/cache/read-cache.ts';
import { ForeignKeyViolationError } from '../../platform/db/dialect/errors.ts';
import type { Db } from '../../platform/db/schema.ts';
import { canEdit, canRead, utcStamp } from '../posts/posts.access.ts';
import { modifiedBounds } from '../posts/posts.modified.ts';
import { deleteSlugs, deleteTexts, findFieldInAllLanguages, upsertTexts } from '../posts/posts.repository.ts';
import { claimSlug, sanitizeSlug } from '../posts/posts.slugs.ts';
import type { RequestContext } from '../common/context.ts';
import { checkPrecondition } from '../changes/changes.preconditions.ts';
import type { Versioned } from '../common/versioned.ts';
import { findVersion } from '../changes/changes.repository.ts';
import { sanitizeContent } from '../common/html.ts';
import { linkPairs, pageWindow, totalPages, type ArchiveLinks } from '../common/pagination.ts';
import { invalidParam, MAX_ID, parseWpBoolean } from '../common/wire.ts';
import { publishedEventCounts } from './terms.counts.ts';
import { termItemUrl, toTermList, toTermResponse, type TermUrlBase } from './terms.mapper.ts';
import { assertTermOf, nameKey, resolveExistingTerms } from './terms.references.ts';
import { countTerms, listTerms, type TermListFilter, type TermListOrder } from './terms.list.repository.ts';
import * as repository from './terms.repository.ts';
import type { TermRow } from './terms.repository.ts';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE, type ListTermsQuery, type Term, type TermList, type TermWriteBody } from './terms.schemas.ts';
import type { TaxonomyInfo } from './terms.taxonomy.ts';
import { loadTermViews } from './terms.views.ts';
import { claimExactSlug, cleanName, colorOf, insertTermRecord, parentForWrite, reserveName, termExists } from './terms.writes.ts';

/** What a term service is built with. */
export interface TermServiceDeps extends TermUrlBase {
  readonly db: Db;
  /** The store's driver-error translation (`UniqueViolationError`, `ForeignKeyViolationError`). */
  readonly translateError: (error: unknown) => unknown;
}

/** The event whose terms a list asks for; `undefined` when they are stripped (a protected event the caller may not edit). */
async function eventFilter(db: Db, id: number, param: string, ctx: RequestContext): Promise<number | undefined> {
  const event = await repository.findEventAccessFacts(db, id);
  // An event the caller may not read answers like a missing one (deviation 19).
  if (event === undefined || !canRead(ctx.user, event)) throw invalidParam(param, `${param} must be the id of an existing event.`);
  return event.password_hash === null || canEdit(ctx.user, event) ? id : undefined;
}

/** The categories or the tags: one service per taxonomy, built once when the calendar registers. */
export class TermsService {
  constructor(
    readonly info: TaxonomyInfo,
    private readonly deps: TermServiceDeps,
  ) {}

  /**
   * A term write in one transaction. The parent is checked inside it, but a
   * concurrent delete of that parent can still win the race: the foreign key
   * then refuses the row, which is the same 400 as an unknown parent.
   */
  private async writeTransaction<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    try {
      return await this.deps.db.transaction().execute(work);
    } catch (error) {
      if (this.deps.translateError(error) instanceof ForeignKeyViolationError)
        throw invalidParam('parent', 'parent must be the id of an existing category.');
      throw error;
    }
  }

  /** A term as answered: read at the request's version, or — inside a write (`trx`) — as the write left it. */
  private async respond(row: TermRow, ctx: RequestContext, trx?: Db): Promise<Term> {
    const db = trx ?? this.deps.db;
    const counts = await publishedEventCounts(db, [row.id], trx === undefined ? await ctx.version() : undefined);
    const views = await loadTermViews(db, [row], counts, ctx, { withAncestors: true });
    return toTermResponse(views.get(row.id)!, this.deps);
  }

  /** The colour of every term that has one, by id: few, and read once per calendar version. */
  async colors(ctx: RequestContext): Promise<ReadonlyMap<number, string>> {
    const rows = await (
      await ctx.version()
    ).once(
      cacheKey('term-colors', this.info.taxonomy),
      () => repository.findColors(this.deps.db, this.info.taxonomy),
      (read) => 16 * read.length,
    );
    return new Map(rows.map((row) => [row.id, row.color]));
  }

  /** The terms among `ids` as the list shows them (empty ones too), read at the request's version: what a sync sends. */
  async listByIds(ids: readonly number[], ctx: RequestContext): Promise<Term[]> {
    const { db } = this.deps;
    const rows = await repository.findTermsOf(db, this.info.taxonomy, ids);
    const counts = await publishedEventCounts(
      db,
      rows.map((row) => row.id),
      await ctx.version(),
    );
    const views = await loadTermViews(db, rows, counts, ctx, { withAncestors: true });
    return rows.map((row) => toTermResponse(views.get(row.id)!, this.deps));
  }

  /** The terms a list filter names (ids, slugs or names, as `categories` and `tags` take them); an unknown one is the filter's 400. */
  async named(items: unknown, ctx: RequestContext, param: string): Promise<Term[]> {
    return this.listByIds(await resolveExistingTerms(this.deps.db, this.info, items, param), ctx);
  }

  /** Checks the path id and `parent` of a request: unknown ones are argument errors, reported before permission errors. */
  async assertReferences(id: number | undefined, parent: number | undefined): Promise<void> {
    if (id !== undefined) await assertTermOf(this.deps.db, this.info, id, 'id');
    if (parent !== undefined && this.info.hierarchical) await assertTermOf(this.deps.db, this.info, parent, 'parent');
  }

  /** A page of the archive; `sent` names the arguments the request sent, which its links repeat. */
  async list(
    query: ListTermsQuery,
    ctx: RequestContext,
    sent: readonly string[] = [],
  ): Promise<{ list: TermList; links: ArchiveLinks; total: number; totalPages: number }> {
    const { deps, info } = this;
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
    const filter: TermListFilter = {
      taxonomy: info.taxonomy,
      now: utcStamp(new Date()),
      hideEmpty: parseWpBoolean(query.hide_empty) ?? true,
      ...modifiedBounds(query),
      ...(query.search === undefined
        ? {}
        : { search: { text: query.search, languages: [...new Set([ctx.language, ctx.defaultLanguage])] } }),
      ...(eventTermsHidden ? { include: [] } : include === undefined ? {} : { include }),
      ...(exclude === undefined ? {} : { exclude }),
      ...(parentId === undefined ? {} : { parentId }),
      ...(eventId === undefined ? {} : { eventId }),
      // WordPress sanitizes the slug it looks for (`Foo Bar` finds `foo-bar`).
      ...(query.slug === undefined ? {} : { slug: sanitizeSlug(query.slug) || query.slug }),
    };
    const order: TermListOrder = {
      by: query.orderby ?? 'name',
      direction: query.order?.toLowerCase() === 'desc' ? 'desc' : 'asc',
      language: ctx.language,
      defaultLanguage: ctx.defaultLanguage,
    };
    const total = await countTerms(db, filter);
    const pages = totalPages(total, perPage);
    // WordPress honours `offset` on term archives instead of the page's offset.
    const window = query.offset === undefined ? pageWindow(page, perPage) : { limit: perPage, offset: query.offset };
    // Past the last page WordPress answers 200 with an empty list (not the 404 of post archives).
    const rows = window.offset >= total ? [] : await listTerms(db, filter, order, window);
    const counts = await publishedEventCounts(
      db,
      rows.map((row) => row.id),
      await ctx.version(),
    );
    const views = await loadTermViews(db, rows, counts, ctx, { withAncestors: true });
    const terms = rows.map((row) => toTermResponse(views.get(row.id)!, deps));
    const paging = { page, total, totalPages: pages, pairs: linkPairs([], query, sent) };
    return { ...toTermList(info, deps.namespaceUrl, terms, paging), total, totalPages: pages };
  }

  /** One term, with its version (its ETag names it). */
  async get(id: number, ctx: RequestContext): Promise<Versioned<Term>> {
    // Read before the term: a tag may name an older version than its body (a write would then be refused), never a newer one.
    const version = id > MAX_ID ? undefined : await findVersion(this.deps.db, this.info.taxonomy, id);
    return { item: await this.respond(await assertTermOf(this.deps.db, this.info, id, 'id'), ctx), version };
  }

  /** The term as a write left it, with its version then: the last thing a write does. */
  private async written(trx: Db, row: TermRow, ctx: RequestContext): Promise<Versioned<Term>> {
    const item = await this.respond(row, ctx, trx);
    return { item, version: await findVersion(trx, this.info.taxonomy, row.id) };
  }

  async create(body: TermWriteBody & { name: string }, ctx: RequestContext): Promise<Versioned<Term> & { location: string }> {
    const { deps, info } = this;
    const term = await this.writeTransaction(async (trx) => {
      const parentId = (await parentForWrite(trx, info, body)) ?? null;
      const color = colorOf(info, body) ?? null;
      const inserted = await insertTermRecord(
        trx,
        info,
        {
          name: cleanName(body.name),
          ...(body.description === undefined ? {} : { description: sanitizeContent(body.description) }),
          ...(body.slug === undefined ? {} : { slug: body.slug }),
          parentId,
          color,
        },
        ctx.language,
      );
      if ('existing' in inserted) throw termExists(info, inserted.existing);
      return this.written(trx, { id: inserted.id, taxonomy: info.taxonomy, parent_id: parentId, color }, ctx);
    });
    return { ...term, location: termItemUrl(info, term.item.id, deps.namespaceUrl) };
  }

  async update(id: number, body: TermWriteBody, ctx: RequestContext): Promise<Versioned<Term>> {
    const { info } = this;
    const language = ctx.language;
    return this.writeTransaction(async (trx) => {
      const term = await assertTermOf(trx, info, id, 'id', true, ctx);
      await checkPrecondition(trx, ctx, info.taxonomy, id);
      const newParent = await parentForWrite(trx, info, body, id);
      const parentId = newParent === undefined ? term.parent_id : newParent;
      if (parentId !== term.parent_id) {
        await repository.updateParent(trx, id, parentId);
        // The term's names in every language move under the new parent, where they must be free.
        for (const [lang, name] of await findFieldInAllLanguages(trx, info.taxonomy, id, 'name')) {
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
      const slugs = await findFieldInAllLanguages(trx, info.taxonomy, id, 'slug');
      if (body.slug !== undefined) fields.slug = await claimExactSlug(trx, info, id, body.slug);
      else if (fields.name !== undefined && !slugs.has(language)) fields.slug = await claimSlug(trx, info.taxonomy, id, fields.name);
      if (fields.slug !== undefined) {
        slugs.set(language, fields.slug);
        await deleteSlugs(trx, info.taxonomy, id, [...slugs.values()]);
      }
      await upsertTexts(trx, info.taxonomy, id, language, fields);
      const color = colorOf(info, body);
      if (color !== undefined && color !== (term.color ?? null)) await repository.updateColor(trx, id, color);
      // The links of its descendants are made of its slug and its place in the tree.
      if (fields.slug !== undefined || parentId !== term.parent_id) {
        await repository.touchTerms(
          trx,
          (await repository.withDescendants(trx, [id])).filter((descendant) => descendant !== id),
        );
      }
      return this.written(trx, { ...term, parent_id: parentId, color: color === undefined ? term.color : color }, ctx);
    });
  }

  /** Deletes permanently; answers with the term as it was (as WordPress), which has no version left. */
  async delete(id: number, ctx: RequestContext): Promise<Versioned<Term>> {
    const { info } = this;
    return this.deps.db.transaction().execute(async (trx) => {
      const term = await assertTermOf(trx, info, id, 'id', true, ctx);
      await checkPrecondition(trx, ctx, info.taxonomy, id);
      const before = await this.respond(term, ctx, trx);
      const children = await repository.findChildIds(trx, id);
      // Its children move up (a write each); the links of theirs lose its slug.
      const below = (await repository.withDescendants(trx, children)).filter((descendant) => !children.includes(descendant));
      await repository.deleteTerm(trx, term);
      await repository.touchTerms(trx, below);
      await repository.moveNames(trx, children, term.parent_id);
      await deleteSlugs(trx, info.taxonomy, id);
      await deleteTexts(trx, info.taxonomy, [id]);
      return { item: before, version: undefined };
    });
  }
}
