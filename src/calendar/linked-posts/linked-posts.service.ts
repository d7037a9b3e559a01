import { can } from '../calendar.capabilities.ts';
import type { Db } from '../../platform/db/schema.ts';
import { AppError, PlatformErrors } from '../../platform/errors.ts';
import {
  canDelete,
  canEdit,
  canRead,
  datedStatus,
  exposureOf,
  listVisibility,
  mayListUnpublished,
  requestedStatuses,
  scaleStatus,
  utcStamp,
  type StatusScope,
} from '../posts/posts.access.ts';
import type { PostPasswords } from '../posts/posts.passwords.ts';
import { findIdBySlug } from '../posts/posts.repository.ts';
import { sanitizeSlug } from '../posts/posts.slugs.ts';
import { checkAuthor, publicationDates, stampsAt } from '../posts/posts.writes.ts';
import type { RequestContext } from '../common/context.ts';
import { checkPrecondition, missingItem } from '../changes/changes.preconditions.ts';
import type { Versioned } from '../common/versioned.ts';
import { findVersion } from '../changes/changes.repository.ts';
import { archiveLinks, echoPairs, isBeyondLastPage, linkPairs, pageWindow, totalPages, type ArchiveLinks } from '../common/pagination.ts';
import { boundedSearchWords, invalidParam, MAX_ID, parseWpBoolean } from '../common/wire.ts';
import type { LinkedPostKind, LinkedPostRow } from './linked-posts.kind.ts';
import { modifiedBounds } from '../posts/posts.modified.ts';
import { alwaysUnlocked, presentPosts, type Representation, type Unlock } from './linked-posts.present.ts';
import { deletePost, findEventAccessFacts, findPost, findPosts, listPosts, updatePost } from './linked-posts.repository.ts';
import { MAX_PER_PAGE } from './linked-posts.schemas.ts';
import type { ImageSideLoader } from '../media/media.sideload.ts';
import { attachWrittenImage } from '../common/images.ts';
import { imageFor, insertLinkedPost, optionalContent, requiredName, writeTexts, type PostWriteInput } from './linked-posts.writes.ts';

/**
 * Echo order of list arguments in archive links: the reference's (per_page, status), then what it drops but a
 * followed link needs to list the same items (deviation 9).
 */
const ECHO_ORDER = [
  'per_page',
  'event',
  'has_events',
  'status',
  'search',
  'only_with_upcoming',
  'modified_after',
  'modified_before',
  'translation_language',
] as const;

/** An item addressed by a route: its path id or its slug. */
export type Target = { readonly id: number } | { readonly slug: string };

/** What a read asks with: `password` and `context` arguments. */
export interface UnlockRequest {
  readonly password?: string;
  readonly context?: string;
}

export interface ListQuery {
  readonly translation_language?: string;
  readonly page: number;
  readonly per_page: number;
  readonly search?: string;
  readonly event?: number;
  readonly has_events?: unknown;
  readonly only_with_upcoming?: unknown;
  readonly status?: unknown;
  readonly password?: string;
  readonly context?: string;
  readonly modified_after?: string;
  readonly modified_before?: string;
}

export interface ListResult extends ArchiveLinks {
  readonly items: Representation[];
  readonly total: number;
  readonly totalPages: number;
}

/** Search words: runs of letters, digits and dashes (the reference's, extended to every alphabet). */
function searchFragments(search: string | undefined): string[] {
  const text = (search ?? '').toLowerCase();
  return boundedSearchWords(
    text.split(/[^\p{L}\p{N}-]+/u).filter((fragment) => fragment !== ''),
    text.trim(),
  );
}

/** The errors of a kind, in the reference's words. */
function errorsOf(kind: LinkedPostKind) {
  return {
    notAccessible: () => new AppError(403, `${kind.type}-not-accessible`, `The requested ${kind.type} is not accessible`),
    inTrash: () => new AppError(410, `${kind.type}-is-in-trash`, `The ${kind.type} is already trashed`),
    pageNotFound: () => new AppError(404, `${kind.type}-archive-page-not-found`, `The requested ${kind.type} archive page does not exist`),
    passwordProtected: () =>
      new AppError(403, `${kind.type}-password-protected`, `The requested ${kind.type} is not accessible without a password`),
  };
}

/**
 * The venues or the organizers: one service per kind, built
 * once when the calendar registers.
 */
export class LinkedPostsService {
  private readonly errors: ReturnType<typeof errorsOf>;

  constructor(
    readonly kind: LinkedPostKind,
    private readonly db: Db,
    private readonly passwords: PostPasswords,
    /** Fetches the image URLs of other sites a write names (none fetched, only recorded, when absent). */
    private readonly images?: ImageSideLoader,
  ) {
    this.errors = errorsOf(kind);
  }

  /** Which of `rows` the read shows unstripped (`PostPasswords`: one attempt per request). */
  private async unlock(
    ctx: RequestContext,
    request: UnlockRequest,
    rows: readonly LinkedPostRow[],
    mode: 'single' | 'list',
  ): Promise<Unlock> {
    const attempt = { ...request, address: ctx.address, editable: (row: LinkedPostRow) => canEdit(ctx.user, row) };
    const unlocked = await this.passwords.unlocked(rows, attempt, mode);
    return (row) => unlocked.has(row.id);
  }

  /** A page of the archive at `archiveUrl`; `sent` names the arguments the request sent, which its links repeat. */
  async list(query: ListQuery, ctx: RequestContext, archiveUrl: string, sent: readonly string[] = []): Promise<ListResult> {
    const { db, kind } = this;
    const now = utcStamp(new Date());
    const visibility = listVisibility(ctx.user);
    const statuses = requestedStatuses(ctx.user, query.status);
    let eventLinksShown = true;
    if (query.event !== undefined) {
      // An event the caller may not read answers like a missing one (deviation 19).
      const event = query.event <= MAX_ID ? await findEventAccessFacts(db, query.event) : undefined;
      if (event === undefined || !canRead(ctx.user, event)) throw invalidParam('event');
      eventLinksShown = event.password_hash === null || canEdit(ctx.user, event);
    }
    // A page beyond the id range is past the end of any list, without asking the database.
    if (query.page > MAX_ID) throw this.errors.pageNotFound();
    const perPage = Math.min(MAX_PER_PAGE, query.per_page);
    const scope: StatusScope = { visibility, statuses, now };
    const { limit, offset } = pageWindow(query.page, perPage);
    const { rows, total } = await listPosts(
      db,
      kind,
      {
        ...scope,
        exposure: exposureOf(ctx.user, query.context),
        fragments: searchFragments(query.search),
        languages: [...new Set([ctx.language, ctx.defaultLanguage])],
        eventId: query.event,
        eventLinksShown,
        hasEvents: parseWpBoolean(query.has_events),
        upcomingEvents: parseWpBoolean(query.only_with_upcoming) === true ? { visibility, statuses: undefined, now } : undefined,
        ...modifiedBounds(query),
      },
      limit,
      offset,
    );
    if (isBeyondLastPage(query.page, total, perPage)) throw this.errors.pageNotFound();
    const pages = totalPages(total, perPage);
    // As the reference, the status actually listed is echoed; `any` is followable here (deviation 9).
    const status = query.status ?? (mayListUnpublished(ctx.user) ? 'any' : 'publish');
    const echoed = echoPairs({ ...query, status }, ECHO_ORDER);
    const items = await presentPosts(db, kind, rows, ctx, { single: false, unlock: await this.unlock(ctx, query, rows, 'list') });
    return { items, total, totalPages: pages, ...archiveLinks(archiveUrl, linkPairs(echoed, { ...query }, sent), query.page, pages) };
  }

  /** The posts among `ids` that the list would show the caller, as it shows them: what a sync sends. */
  async listByIds(ids: readonly number[], ctx: RequestContext): Promise<Representation[]> {
    if (ids.length === 0) return [];
    const visibility = listVisibility(ctx.user);
    const filter = {
      visibility,
      statuses: undefined,
      now: utcStamp(new Date()),
      exposure: exposureOf(ctx.user, undefined),
      fragments: [],
      languages: [...new Set([ctx.language, ctx.defaultLanguage])],
      eventId: undefined,
      eventLinksShown: true,
      hasEvents: undefined,
      upcomingEvents: undefined,
      ids,
    };
    const { rows } = await listPosts(this.db, this.kind, filter, ids.length, 0);
    return presentPosts(this.db, this.kind, rows, ctx, { single: false, unlock: await this.unlock(ctx, {}, rows, 'list') });
  }

  /**
   * The post a route addresses; an unknown id or slug is a 400 naming it, as the reference validates them
   * (a 412 to a write that sent If-Match: `writer`). `forWrite`: read inside the write's transaction and held
   * until it ends (see lockingRows).
   */
  async resolve(target: Target, db: Db = this.db, forWrite = false, writer?: RequestContext): Promise<LinkedPostRow> {
    return this.rowOf(target, await this.idOf(target, db), db, forWrite, writer);
  }

  private async idOf(target: Target, db: Db): Promise<number | undefined> {
    const id = 'id' in target ? target.id : await findIdBySlug(db, this.kind.type, sanitizeSlug(target.slug));
    return id !== undefined && id <= MAX_ID ? id : undefined;
  }

  private async rowOf(target: Target, id: number | undefined, db: Db, forWrite: boolean, writer?: RequestContext): Promise<LinkedPostRow> {
    const row = id === undefined ? undefined : await findPost(db, this.kind, id, forWrite);
    if (row === undefined) throw missingItem(writer, invalidParam('id' in target ? 'id' : 'slug'));
    return row;
  }

  /**
   * One post, with its version (its ETag names it). A protected post the read does not unlock is stripped (the API's
   * reads, as the reference), or with `locked: 'refuse'` refused as an event is (a 403 `{type}-password-protected`: the pages).
   */
  async get(
    target: Target,
    query: UnlockRequest,
    ctx: RequestContext,
    locked: 'strip' | 'refuse' = 'strip',
  ): Promise<Versioned<Representation>> {
    const id = await this.idOf(target, this.db);
    // Read before the post: a tag may name an older version than its body (a write would then be refused), never a newer one.
    const version = id === undefined ? undefined : await findVersion(this.db, this.kind.type, id);
    const row = await this.rowOf(target, id, this.db, false);
    if (!canRead(ctx.user, row)) throw this.errors.notAccessible();
    const unlock = await this.unlock(ctx, query, [row], 'single');
    if (locked === 'refuse' && !unlock(row)) throw this.errors.passwordProtected();
    const [item] = await presentPosts(this.db, this.kind, [row], ctx, { single: true, unlock });
    return { item: item as Representation, version };
  }

  async create(sent: PostWriteInput, ctx: RequestContext): Promise<Versioned<Representation>> {
    const input = (await this.images?.prepareAll(sent, ctx.user)) ?? sent;
    return this.db
      .transaction()
      .execute(async (trx) => this.written(trx, ctx, await insertLinkedPost(trx, this.kind, ctx, input, this.passwords)));
  }

  /** Partial update (deviation 1): only the fields sent change. */
  async update(target: Target, sent: PostWriteInput, ctx: RequestContext): Promise<Versioned<Representation>> {
    const { kind } = this;
    // Nothing is fetched for a write that is refused: checked again on the row the write holds.
    if (sent.image !== undefined && !canEdit(ctx.user, await this.resolve(target, this.db, false, ctx))) {
      throw PlatformErrors.forbidden(ctx.user !== null);
    }
    const input = (await this.images?.prepareAll(sent, ctx.user)) ?? sent;
    const siteZone = ctx.site.timezone;
    // The slow hash before the write lock.
    const passwordHash = await this.passwords.hashOf(input.password);
    return this.db.transaction().execute(async (trx) => {
      const row = await this.resolve(target, trx, true, ctx);
      const now = new Date();
      const name = input[kind.nameField] === undefined ? undefined : requiredName(kind, input[kind.nameField]);
      const author = await checkAuthor(trx, input.author, ctx.user);
      const meta = kind.writeMeta(input, row);
      const dates = publicationDates(input, siteZone, now);
      if (!canEdit(ctx.user, row)) throw PlatformErrors.forbidden(ctx.user !== null);
      await checkPrecondition(trx, ctx, kind.type, row.id);
      const requested = input.status === undefined ? row.status : scaleStatus(ctx.user, input.status);
      const imageId = input.image === undefined ? row.image_id : await imageFor(trx, input.image, ctx.user, ctx.site.baseUrl);
      const modified = stampsAt(siteZone, now);
      await updatePost(trx, kind, row.id, {
        ...(author === undefined ? {} : { author_id: author }),
        status: datedStatus(requested, dates?.date_utc ?? row.date_utc, now),
        ...(dates ?? {}),
        modified: modified.local,
        modified_utc: modified.utc,
        ...(passwordHash === undefined ? {} : { password_hash: passwordHash }),
        image_id: imageId,
        ...meta,
      });
      if (input.image !== undefined) await attachWrittenImage(trx, imageId, row.id);
      await writeTexts(trx, kind, row.id, ctx.language, {
        name,
        description: optionalContent(input.description),
        excerpt: optionalContent(input.excerpt),
        slug: input.slug,
      });
      return this.written(trx, ctx, row.id);
    });
  }

  /**
   * Trashes the post (removing it from every event), or with `force` deletes
   * it for good (editors and above); 200 with the last representation (a deleted post has no version left).
   */
  async delete(target: Target, force: boolean, ctx: RequestContext): Promise<Versioned<Representation>> {
    const { kind } = this;
    return this.db.transaction().execute(async (trx) => {
      const row = await this.resolve(target, trx, true, ctx);
      if (!canDelete(ctx.user, row)) throw PlatformErrors.forbidden(ctx.user !== null);
      if (force && !can(ctx.user?.role ?? null, 'delete_others')) throw PlatformErrors.forbidden(ctx.user !== null);
      await checkPrecondition(trx, ctx, kind.type, row.id);
      if (!force && row.status === 'trash') throw this.errors.inTrash();
      await kind.unlinkFromEvents(trx, row.id);
      if (force) {
        const [item] = await presentPosts(trx, kind, [row], ctx, { single: false, unlock: alwaysUnlocked });
        await deletePost(trx, kind, row.id);
        return { item: item as Representation, version: undefined };
      }
      const modified = stampsAt(ctx.site.timezone, new Date());
      await updatePost(trx, kind, row.id, { status: 'trash', modified: modified.local, modified_utc: modified.utc });
      return this.written(trx, ctx, row.id);
    });
  }

  /** The post as the write left it, with its version then: the last thing a write does. */
  private async written(trx: Db, ctx: RequestContext, id: number): Promise<Versioned<Representation>> {
    const rows = await findPosts(trx, this.kind, [id]);
    const [item] = await presentPosts(trx, this.kind, rows, ctx, { single: false, unlock: alwaysUnlocked });
    return { item: item as Representation, version: await findVersion(trx, this.kind.type, id) };
  }
}
