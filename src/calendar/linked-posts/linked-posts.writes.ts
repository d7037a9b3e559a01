import type { AuthUser } from '../../platform/auth/authenticate.ts';
import { can } from '../calendar.capabilities.ts';
import type { Db } from '../../platform/db/schema.ts';
import { PlatformErrors } from '../../platform/errors.ts';
import { datedStatus, scaleStatus } from '../posts/posts.access.ts';
import { reservePostId, upsertTexts } from '../posts/posts.repository.ts';
import { claimLanguageSlug, claimSlug, sanitizeSlug } from '../posts/posts.slugs.ts';
import type { PostPasswords } from '../posts/posts.passwords.ts';
import { checkAuthor, newPostDates } from '../posts/posts.writes.ts';
import type { RequestContext } from '../common/context.ts';
import { sanitizeContent, sanitizeText } from '../common/html.ts';
import { attachWrittenImage, resolveImageForWrite } from '../common/images.ts';
import { invalidParam } from '../common/wire.ts';
import { withoutControls } from './linked-posts.fields.ts';
import type { LinkedPostKind } from './linked-posts.kind.ts';
import { insertPost } from './linked-posts.repository.ts';

/**
 * The write rules of venues and organizers: what POST and PUT store, and
 * what an event write's inline venue or organizer creates.
 */

/** The write arguments of a venue or organizer, as the route schemas validated them (plus the kind's own fields). */
export interface PostWriteInput extends Readonly<Record<string, unknown>> {
  readonly author?: number;
  readonly date?: string;
  readonly date_utc?: string;
  readonly description?: string;
  readonly excerpt?: string;
  readonly slug?: string;
  readonly status?: string;
  readonly image?: number | string;
  readonly password?: string;
}

export function requiredName(kind: LinkedPostKind, raw: unknown): string {
  const name = typeof raw === 'string' ? sanitizeText(withoutControls(raw)) : '';
  if (name === '') throw invalidParam(kind.nameField);
  return name;
}

export function optionalContent(raw: string | undefined): string | undefined {
  return raw === undefined ? undefined : sanitizeContent(withoutControls(raw));
}

/** The image a write names; control characters (which no URL has) are refused before storage sees them. */
export async function imageFor(db: Db, raw: number | string, user: AuthUser | null, baseUrl: string): Promise<number | null> {
  if (typeof raw === 'string' && withoutControls(raw) !== raw) throw invalidParam('image');
  return resolveImageForWrite(db, raw, user, baseUrl);
}

/** Writes the translatable fields in one language and keeps one slug per language. */
export async function writeTexts(
  db: Db,
  kind: LinkedPostKind,
  id: number,
  language: string,
  fields: { name?: string; description?: string; excerpt?: string; slug?: string },
): Promise<void> {
  const slug = await claimLanguageSlug(db, kind.type, id, language, { explicit: fields.slug, title: fields.name });
  await upsertTexts(db, kind.type, id, language, {
    [kind.nameField]: fields.name,
    description: fields.description,
    excerpt: fields.excerpt,
    slug,
  });
}

/**
 * Creates a post from write arguments (POST and inline objects of event
 * writes share it): always a new post (deviation 10). Returns its id.
 */
export async function insertLinkedPost(
  db: Db,
  kind: LinkedPostKind,
  ctx: RequestContext,
  input: PostWriteInput,
  passwords: PostPasswords,
): Promise<number> {
  if (!can(ctx.user?.role ?? null, 'edit')) throw PlatformErrors.forbidden(ctx.user !== null);
  const now = new Date();
  const siteZone = ctx.site.timezone;
  const name = requiredName(kind, input[kind.nameField]);
  const author = (await checkAuthor(db, input.author, ctx.user)) ?? ctx.user?.id ?? null;
  const meta = kind.writeMeta(input, kind.defaultMeta);
  const { date, date_utc: dateUtc } = newPostDates(input, siteZone, now);
  const imageId = input.image === undefined ? null : await imageFor(db, input.image, ctx.user, ctx.site.baseUrl);
  const passwordHash = (await passwords.hashOf(input.password)) ?? null;
  const id = await reservePostId(db, kind.type);
  await insertPost(db, kind, {
    id,
    author_id: author,
    status: datedStatus(scaleStatus(ctx.user, input.status), dateUtc, now),
    date,
    date_utc: dateUtc,
    // A new post was last modified when it is dated (WordPress's wp_insert_post); updates take the time of the request.
    modified: date,
    modified_utc: dateUtc,
    password_hash: passwordHash,
    image_id: imageId,
    ...meta,
  });
  await attachWrittenImage(db, imageId, id);
  // A new post has no slug yet: one claim, nothing to release.
  const slug = await claimSlug(db, kind.type, id, input.slug !== undefined && sanitizeSlug(input.slug) !== '' ? input.slug : name);
  await upsertTexts(db, kind.type, id, ctx.language, {
    [kind.nameField]: name,
    description: optionalContent(input.description),
    excerpt: optionalContent(input.excerpt),
    slug,
  });
  return id;
}
