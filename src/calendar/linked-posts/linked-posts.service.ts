import type { Kysely } from 'kysely';
import type { AuthUser } from '../../platform/auth/authenticate.ts';
import { can } from '../calendar.capabilities.ts';
import { hashPassword } from '../../platform/auth/passwords.ts';
import type { Database } from '../../platform/db/schema.ts';
import { AppError, PlatformErrors } from '../../platform/errors.ts';
import type { RequestContext } from '../shared/context.ts';
import type { PostPasswords } from '../shared/post-passwords.ts';
import { fromInstant, parseDate } from '../shared/dates.ts';
import { renderParagraphs, sanitizeContent, sanitizeText, textOfSanitized } from '../shared/html.ts';
import { loadImages, resolveImageForWrite, type ImageResponse } from '../shared/images.ts';
import { archiveLinks, echoPairs, echoValue, isBeyondLastPage, pageWindow, totalPages, type ArchiveLinks } from '../shared/pagination.ts';
import {
  canDelete,
  canEdit,
  canRead,
  listVisibility,
  mayListUnpublished,
  POST_STATUSES,
  scaleStatus,
  utcStamp,
} from '../shared/permissions.ts';
import { claimLanguageSlug, findIdBySlug, sanitizeSlug } from '../shared/slugs.ts';
import { loadTranslations, writeTranslations, type Translated } from '../shared/translations.ts';
import { boundedSearchWords, globalId, invalidParam, parseList, parseWpBoolean, permalinks } from '../shared/wire.ts';
import { withoutControls } from './linked-posts.fields.ts';
import type { LinkedPostKind, LinkedPostRow } from './linked-posts.kind.ts';
import { toLinkedPostResponse } from './linked-posts.mapper.ts';
import {
  deletePost,
  findEventAccessFacts,
  findPost,
  findPosts,
  insertPost,
  listPosts,
  reservePostId,
  updatePost,
  userExists,
} from './linked-posts.repository.ts';
import { exposureOf, type StatusScope } from '../shared/visibility.ts';
import { MAX_PER_PAGE } from './linked-posts.schemas.ts';
import type { Site } from '../shared/context.ts';

type Db = Kysely<Database>;
type Input = Readonly<Record<string, unknown>>;
type Representation = Record<string, unknown>;

/** An item addressed by a route: its path id or its slug. */
export type Target = { readonly id: number } | { readonly slug: string };

const MAX_ID = 2_147_483_647;

const messages = (kind: LinkedPostKind) => ({
  notAccessible: () => new AppError(403, `${kind.type}-not-accessible`, `The requested ${kind.type} is not accessible`),
  inTrash: () => new AppError(410, `${kind.type}-is-in-trash`, `The ${kind.type} is already trashed`),
  pageNotFound: () =>
    new AppError(404, `${kind.type}-archive-page-not-found`, `The requested ${kind.type} archive page does not exist`),
});

// ---------------------------------------------------------------------------
// Representations.

/** Decides per row whether a password-protected post is shown unstripped. */
export type Unlock = (row: LinkedPostRow) => boolean;

/** Embedded in events: stripped whenever the post itself has a password (reference §7). */
export const unlockedWithoutPassword: Unlock = (row) => row.password_hash === null;

/** What opens protected posts to a read, and the address it comes from. */
export interface PasswordGuard {
  readonly passwords: PostPasswords;
  readonly address: string;
}

/** What a read asks with: `password` and `context` arguments, and who asks from where. */
export interface UnlockRequest {
  readonly password?: string;
  readonly context?: string;
}

/** Which of `rows` the read shows unstripped (`PostPasswords`: one attempt per request). */
async function requestUnlock(
  user: AuthUser | null,
  request: UnlockRequest,
  guard: PasswordGuard,
  rows: readonly LinkedPostRow[],
  mode: 'single' | 'list',
): Promise<Unlock> {
  const attempt = { ...request, address: guard.address, editable: (row: LinkedPostRow) => canEdit(user, row) };
  const unlocked = await guard.passwords.unlocked(rows, attempt, mode);
  return (row) => unlocked.has(row.id);
}

/** What representations of posts are made from besides their rows: texts and images, loaded in batches. */
export interface PostAssets {
  readonly texts: ReadonlyMap<number, Translated>;
  readonly images: ReadonlyMap<number, ImageResponse>;
}

/** Representations of many posts with a fixed number of queries (translations, images). */
export async function presentPosts(
  db: Db,
  kind: LinkedPostKind,
  rows: readonly LinkedPostRow[],
  ctx: RequestContext,
  site: Site,
  options: { single: boolean; unlock: Unlock },
): Promise<Representation[]> {
  const [texts, images] = await Promise.all([
    loadTranslations(db, kind.type, rows.map((row) => row.id), ctx.language, ctx.defaultLanguage),
    loadImages(db, rows.map((row) => row.image_id)),
  ]);
  return presentPostsWith(kind, rows, site, options, { texts, images });
}

/** Representations of posts whose texts and images are already loaded. */
export async function presentPostsWith(
  kind: LinkedPostKind,
  rows: readonly LinkedPostRow[],
  site: Site,
  options: { single: boolean; unlock: Unlock },
  { texts, images }: PostAssets,
): Promise<Representation[]> {
  return Promise.all(
    rows.map(async (row) => {
      const text = texts.get(row.id) ?? {};
      const slug = text.slug ?? '';
      const description = text.description ?? '';
      const image = row.image_id === null ? undefined : images.get(row.image_id);
      const post = {
        row,
        name: text[kind.nameField] ?? '',
        description: renderParagraphs(description),
        excerpt: renderParagraphs(text.excerpt ?? ''),
        descriptionText: textOfSanitized(description),
        slug,
        url: permalinks[kind.type](site.baseUrl, slug),
        image: image ?? false,
        imageUrl: image?.url,
      };
      const stripped = !options.unlock(row);
      return toLinkedPostResponse(kind, post, { single: options.single, stripped, globalId: globalId(site.baseUrl, row.id) });
    }),
  );
}

// ---------------------------------------------------------------------------
// Reads.

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
}

export interface ListResult extends ArchiveLinks {
  readonly items: Representation[];
  readonly total: number;
  readonly totalPages: number;
}

/** The reference's `status` rule for archives (§3.5, deviation 9); `undefined` = the caller's default set. */
function requestedStatuses(user: AuthUser | null, raw: unknown): string[] | undefined {
  if (raw === undefined) return undefined;
  const statuses = parseList(raw);
  if (!mayListUnpublished(user)) {
    if (statuses.length !== 1 || statuses[0] !== 'publish') throw invalidParam('status');
    return undefined;
  }
  if (statuses.includes('any')) return undefined;
  if (statuses.length === 0 || statuses.some((status) => !(POST_STATUSES as readonly string[]).includes(status))) {
    throw invalidParam('status');
  }
  return statuses;
}

/** Search words: runs of letters, digits and dashes (reference §5.1, extended to every alphabet). */
export function searchFragments(search: string | undefined): string[] {
  const text = (search ?? '').toLowerCase();
  return boundedSearchWords(text.split(/[^\p{L}\p{N}-]+/u).filter((fragment) => fragment !== ''), text.trim());
}

export async function listLinkedPosts(
  db: Db,
  kind: LinkedPostKind,
  ctx: RequestContext,
  site: Site,
  query: ListQuery,
  archiveUrl: string,
  guard: PasswordGuard,
): Promise<ListResult> {
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
  if (query.page > MAX_ID) throw messages(kind).pageNotFound();
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
    },
    limit,
    offset,
  );
  if (isBeyondLastPage(query.page, total, perPage)) throw messages(kind).pageNotFound();
  const pages = totalPages(total, perPage);
  const pairs: [string, string][] = [['per_page', String(query.per_page)]];
  if (query.event !== undefined) pairs.push(['event', String(query.event)]);
  if (query.has_events !== undefined) pairs.push(['has_events', echoValue(query.has_events)]);
  // As the reference, the status actually listed is echoed; `any` is followable here (deviation 9).
  pairs.push(['status', query.status !== undefined ? echoValue(query.status) : mayListUnpublished(ctx.user) ? 'any' : 'publish']);
  // Then what the reference drops but a followed link needs to list the same items (deviation 9).
  pairs.push(...echoPairs({ ...query }, ['search', 'only_with_upcoming', 'translation_language']));
  const items = await presentPosts(db, kind, rows, ctx, site, {
    single: false,
    unlock: await requestUnlock(ctx.user, query, guard, rows, 'list'),
  });
  return { items, total, totalPages: pages, ...archiveLinks(archiveUrl, pairs, query.page, pages) };
}

/**
 * The post a route addresses; an unknown id or slug is a 400 naming it, as the reference validates them.
 * `forWrite`: read inside the write's transaction and held until it ends (see lockingRows).
 */
export async function resolveTarget(db: Db, kind: LinkedPostKind, target: Target, forWrite = false): Promise<LinkedPostRow> {
  const name = 'id' in target ? 'id' : 'slug';
  const id = 'id' in target ? target.id : await findIdBySlug(db, kind.type, sanitizeSlug(target.slug));
  const row = id !== undefined && id <= MAX_ID ? await findPost(db, kind, id, forWrite) : undefined;
  if (row === undefined) throw invalidParam(name);
  return row;
}

export async function getLinkedPost(
  db: Db,
  kind: LinkedPostKind,
  ctx: RequestContext,
  site: Site,
  target: Target,
  query: UnlockRequest,
  guard: PasswordGuard,
): Promise<Representation> {
  const row = await resolveTarget(db, kind, target);
  if (!canRead(ctx.user, row)) throw messages(kind).notAccessible();
  const [item] = await presentPosts(db, kind, [row], ctx, site, {
    single: true,
    unlock: await requestUnlock(ctx.user, query, guard, [row], 'single'),
  });
  return item as Representation;
}

// ---------------------------------------------------------------------------
// Writes.

const alwaysUnlocked: Unlock = () => true;

function stamp(site: Site, instant: Date): { local: string; utc: string } {
  const moment = fromInstant(instant.getTime(), site.timezone);
  return { local: moment?.local ?? utcStamp(instant), utc: utcStamp(instant) };
}

/** `date` is site-local, `date_utc` UTC; each alone sets both (reference §5.3). */
function postDates(input: Input, site: Site, now: Date): { date: string; date_utc: string } | undefined {
  const local = input.date === undefined ? undefined : parseDate(String(input.date), site.timezone, now);
  if (input.date !== undefined && local === undefined) throw invalidParam('date');
  const utc = input.date_utc === undefined ? undefined : parseDate(String(input.date_utc), 'UTC', now);
  if (input.date_utc !== undefined && utc === undefined) throw invalidParam('date_utc');
  if (local === undefined && utc === undefined) return undefined;
  const fromUtc = utc === undefined ? undefined : fromInstant(utc.epochMs, site.timezone);
  return { date: local?.local ?? fromUtc?.local ?? '', date_utc: utc?.utc ?? local?.utc ?? '' };
}

/** A `publish` dated in the future is stored `future` (calendar-api.md §1). */
function datedStatus(status: string, dateUtc: string, now: Date): string {
  return status === 'publish' && dateUtc > utcStamp(now) ? 'future' : status;
}

async function authorFor(db: Db, user: AuthUser | null, raw: unknown): Promise<number | null | undefined> {
  if (raw === undefined) return undefined;
  const id = Number(raw);
  if (!Number.isSafeInteger(id) || id < 1 || id > MAX_ID || !(await userExists(db, id))) throw invalidParam('author');
  // Only editors and above may attribute a post to someone else (deviation 8).
  if (id !== user?.id && !can(user?.role ?? null, 'edit_others')) throw PlatformErrors.forbidden(user !== null);
  return id;
}

function requiredName(kind: LinkedPostKind, raw: unknown): string {
  const name = typeof raw === 'string' ? sanitizeText(withoutControls(raw)) : '';
  if (name === '') throw invalidParam(kind.nameField);
  return name;
}

function optionalContent(raw: unknown): string | undefined {
  return raw === undefined ? undefined : sanitizeContent(withoutControls(String(raw)));
}

/** Writes the translatable fields in one language and keeps one slug per language. */
async function writeTexts(
  db: Db,
  kind: LinkedPostKind,
  id: number,
  language: string,
  fields: { name?: string; description?: string; excerpt?: string; slug?: string },
): Promise<void> {
  const slug = await claimLanguageSlug(db, kind.type, id, language, { explicit: fields.slug, title: fields.name });
  await writeTranslations(db, kind.type, id, language, {
    [kind.nameField]: fields.name,
    description: fields.description,
    excerpt: fields.excerpt,
    slug,
  });
}

/** The image a write names; control characters (which no URL has) are refused before storage sees them. */
async function imageFor(db: Db, raw: unknown, user: AuthUser | null): Promise<number | null> {
  if (typeof raw === 'string' && withoutControls(raw) !== raw) throw invalidParam('image');
  return resolveImageForWrite(db, raw, user);
}

async function passwordHashFor(raw: unknown): Promise<string | null | undefined> {
  if (raw === undefined) return undefined;
  const password = String(raw);
  return password === '' ? null : hashPassword(password);
}

/**
 * Creates a post from write arguments (POST and inline objects of event
 * writes share it): always a new post (deviation 10). Returns its id.
 */
export async function insertLinkedPost(db: Db, kind: LinkedPostKind, ctx: RequestContext, site: Site, input: Input): Promise<number> {
  if (!can(ctx.user?.role ?? null, 'edit')) throw PlatformErrors.forbidden(ctx.user !== null);
  const now = new Date();
  const name = requiredName(kind, input[kind.nameField]);
  const author = (await authorFor(db, ctx.user, input.author)) ?? ctx.user?.id ?? null;
  const meta = kind.writeMeta(input, kind.defaultMeta);
  const dates = postDates(input, site, now);
  const created = stamp(site, now);
  const date = dates?.date ?? created.local;
  const dateUtc = dates?.date_utc ?? created.utc;
  const imageId = input.image === undefined ? null : await imageFor(db, input.image, ctx.user);
  const passwordHash = (await passwordHashFor(input.password)) ?? null;
  const id = await reservePostId(db, kind.type);
  await insertPost(db, kind, {
    id,
    author_id: author,
    status: datedStatus(scaleStatus(ctx.user, input.status as string | undefined), dateUtc, now),
    date,
    date_utc: dateUtc,
    // A new post was last modified when it is dated (WordPress's wp_insert_post); updates take the time of the request.
    modified: date,
    modified_utc: dateUtc,
    password_hash: passwordHash,
    image_id: imageId,
    ...meta,
  });
  await writeTexts(db, kind, id, ctx.language, {
    name,
    description: optionalContent(input.description),
    excerpt: optionalContent(input.excerpt),
    slug: input.slug === undefined ? undefined : String(input.slug),
  });
  return id;
}

async function presentWritten(db: Db, kind: LinkedPostKind, ctx: RequestContext, site: Site, id: number): Promise<Representation> {
  const rows = await findPosts(db, kind, [id]);
  const [item] = await presentPosts(db, kind, rows, ctx, site, { single: false, unlock: alwaysUnlocked });
  return item as Representation;
}

export async function createLinkedPost(db: Db, kind: LinkedPostKind, ctx: RequestContext, site: Site, input: Input): Promise<Representation> {
  return db.transaction().execute(async (trx) => presentWritten(trx, kind, ctx, site, await insertLinkedPost(trx, kind, ctx, site, input)));
}

/** Partial update (deviation 1): only the fields sent change. */
export async function updateLinkedPost(
  db: Db,
  kind: LinkedPostKind,
  ctx: RequestContext,
  site: Site,
  target: Target,
  input: Input,
): Promise<Representation> {
  // The slow hash before the write lock.
  const passwordHash = await passwordHashFor(input.password);
  return db.transaction().execute(async (trx) => {
    const row = await resolveTarget(trx, kind, target, true);
    const now = new Date();
    const name = input[kind.nameField] === undefined ? undefined : requiredName(kind, input[kind.nameField]);
    const author = await authorFor(trx, ctx.user, input.author);
    const meta = kind.writeMeta(input, row);
    const dates = postDates(input, site, now);
    if (!canEdit(ctx.user, row)) throw PlatformErrors.forbidden(ctx.user !== null);
    const dateUtc = dates?.date_utc ?? row.date_utc;
    const requested = input.status === undefined ? row.status : scaleStatus(ctx.user, input.status as string);
    const imageId = input.image === undefined ? row.image_id : await imageFor(trx, input.image, ctx.user);
    const modified = stamp(site, now);
    await updatePost(trx, kind, row.id, {
      ...(author === undefined ? {} : { author_id: author }),
      status: datedStatus(requested, dateUtc, now),
      ...(dates ?? {}),
      modified: modified.local,
      modified_utc: modified.utc,
      ...(passwordHash === undefined ? {} : { password_hash: passwordHash }),
      image_id: imageId,
      ...meta,
    });
    await writeTexts(trx, kind, row.id, ctx.language, {
      name,
      description: optionalContent(input.description),
      excerpt: optionalContent(input.excerpt),
      slug: input.slug === undefined ? undefined : String(input.slug),
    });
    return presentWritten(trx, kind, ctx, site, row.id);
  });
}

/**
 * Trashes the post (removing it from every event), or with `force` deletes
 * it for good (editors and above); 200 with the last representation.
 */
export async function deleteLinkedPost(
  db: Db,
  kind: LinkedPostKind,
  ctx: RequestContext,
  site: Site,
  target: Target,
  force: boolean,
): Promise<Representation> {
  return db.transaction().execute(async (trx) => {
    const row = await resolveTarget(trx, kind, target, true);
    if (!canDelete(ctx.user, row)) throw PlatformErrors.forbidden(ctx.user !== null);
    if (force && !can(ctx.user?.role ?? null, 'delete_others')) throw PlatformErrors.forbidden(ctx.user !== null);
    if (!force && row.status === 'trash') throw messages(kind).inTrash();
    await kind.unlinkFromEvents(trx, row.id);
    if (force) {
      const [item] = await presentPosts(trx, kind, [row], ctx, site, { single: false, unlock: alwaysUnlocked });
      await deletePost(trx, kind, row.id);
      return item as Representation;
    }
    const modified = stamp(site, new Date());
    await updatePost(trx, kind, row.id, { status: 'trash', modified: modified.local, modified_utc: modified.utc });
    return presentWritten(trx, kind, ctx, site, row.id);
  });
}
