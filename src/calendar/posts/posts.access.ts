import type { AuthUser } from '../../platform/auth/authenticate.ts';
import { can, type CalendarCapability } from '../calendar.capabilities.ts';
import type { PostStatus } from '../calendar.tables.ts';
import { invalidParam, parseList } from '../common/wire.ts';

/**
 * Who may read, list, edit and delete a post (event, venue or organizer),
 * and the status a write stores: WordPress's rules with the deviations of
 * docs/calendar-compatibility.md (roles and capabilities there).
 */

/** The statuses a post can be stored with (WordPress's, without its internal ones). */
export const POST_STATUSES: readonly PostStatus[] = ['publish', 'future', 'draft', 'pending', 'private', 'trash'];

/** What permission rules need to know of an event, venue or organizer. */
export interface PostAccessFacts {
  readonly author_id: number | null;
  readonly status: string;
  readonly date_utc: string;
}

/** `YYYY-MM-DD HH:MM:SS` in UTC for an instant. */
export function utcStamp(instant: Date): string {
  return instant.toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * A `future` post whose publication date has passed *is* published, for
 * every purpose; no scheduler rewrites it.
 */
export function effectiveStatus(post: Pick<PostAccessFacts, 'status' | 'date_utc'>, now: Date = new Date()): string {
  return post.status === 'future' && post.date_utc <= utcStamp(now) ? 'publish' : post.status;
}

function isOwn(user: AuthUser, post: PostAccessFacts): boolean {
  return post.author_id !== null && post.author_id === user.id;
}

/** WordPress `edit_post` on an event, venue or organizer. */
export function canEdit(user: AuthUser | null, post: PostAccessFacts, now: Date = new Date()): boolean {
  if (user === null) return false;
  const status = effectiveStatus(post, now);
  if (!isOwn(user, post) && !can(user.role, 'edit_others')) return false;
  if (status === 'publish' && !can(user.role, 'edit_published')) return false;
  if (status === 'private' && !isOwn(user, post) && !can(user.role, 'edit_private')) return false;
  if (status === 'private' && isOwn(user, post) && !can(user.role, 'edit_published')) return false;
  return can(user.role, 'edit');
}

/** WordPress `delete_post`. */
export function canDelete(user: AuthUser | null, post: PostAccessFacts, now: Date = new Date()): boolean {
  if (user === null) return false;
  const status = effectiveStatus(post, now);
  if (!isOwn(user, post) && !can(user.role, 'delete_others')) return false;
  if ((status === 'publish' || status === 'private') && !can(user.role, 'delete_published')) return false;
  if (status === 'private' && !isOwn(user, post) && !can(user.role, 'delete_private')) return false;
  return can(user.role, 'delete');
}

/** WordPress `read_post`: published for anyone, private for its author or editors, the rest for who may edit it. */
export function canRead(user: AuthUser | null, post: PostAccessFacts, now: Date = new Date()): boolean {
  const status = effectiveStatus(post, now);
  if (status === 'publish') return true;
  if (user === null || status === 'trash') return false;
  if (status === 'private') return isOwn(user, post) || can(user.role, 'read_private');
  return canEdit(user, post, now);
}

/** A `publish` dated in the future is stored `future` (WordPress's wp_insert_post). */
export function datedStatus(status: string, dateUtc: string, now: Date): string {
  return status === 'publish' && dateUtc > utcStamp(now) ? 'future' : status;
}

/**
 * The status a write really stores (WordPress's rule with deviation 8): users
 * who cannot publish get `pending` for publish/future/private and `draft`
 * when they asked for nothing.
 */
export function scaleStatus(user: AuthUser | null, requested: string | undefined): string {
  const mayPublish = user !== null && can(user.role, 'publish');
  if (requested === undefined) return mayPublish ? 'publish' : 'draft';
  if (mayPublish) return requested;
  return requested === 'publish' || requested === 'future' || requested === 'private' ? 'pending' : requested;
}

/**
 * Which posts a list shows (deviation 9): everyone sees published ones;
 * contributors and authors also their own unpublished ones; editors and
 * administrators everything but trash.
 */
export type ListVisibility =
  { readonly kind: 'published' } | { readonly kind: 'published-or-own'; readonly userId: number } | { readonly kind: 'all-but-trash' };

export function listVisibility(user: AuthUser | null): ListVisibility {
  if (user === null || !can(user.role, 'edit')) return { kind: 'published' };
  if (can(user.role, 'edit_others') && can(user.role, 'read_private')) return { kind: 'all-but-trash' };
  return { kind: 'published-or-own', userId: user.id };
}

/** May this user ask lists for statuses other than `publish` (`status=any`, drafts…)? */
export function mayListUnpublished(user: AuthUser | null): boolean {
  return user !== null && can(user.role, 'edit');
}

/** Which rows a list or a link query may see. */
export interface StatusScope {
  readonly visibility: ListVisibility;
  /** Explicit `status` filter; `undefined` = the visibility's default set (everything but trash). */
  readonly statuses: readonly string[] | undefined;
  /** UTC `YYYY-MM-DD HH:MM:SS`: a `future` post dated before it is published. */
  readonly now: string;
}

/**
 * The `status` argument of a list (as the reference, with deviation 9), any
 * case, repeated values once: who cannot list unpublished posts may only
 * ask for `publish`; the others for known statuses or `any`. `undefined` =
 * the caller's default set.
 */
export function requestedStatuses(user: AuthUser | null, raw: unknown): string[] | undefined {
  if (raw === undefined) return undefined;
  const asked = parseList(raw).map((status) => status.toLowerCase());
  if (asked.length === 0) throw invalidParam('status');
  if (!mayListUnpublished(user)) {
    if (asked.some((status) => status !== 'publish')) throw invalidParam('status');
    return ['publish'];
  }
  if (asked.some((status) => status !== 'any' && !(POST_STATUSES as readonly string[]).includes(status))) throw invalidParam('status');
  return asked.includes('any') ? undefined : [...new Set(asked)];
}

/**
 * Whose password-protected content a read may match on. A protected post
 * shows its title (name) and dates, and strips the rest: texts, meta, links
 * to venues, organizers and terms. Invisible means absent
 * (issue 19): unless the caller may edit every post and asks with
 * `context=edit`, searches, filters, counts and linked-item routes treat
 * what a protected post strips as if it did not exist. A `password`
 * argument opens a post's representation, never what lists match on.
 */
export type Exposure = 'unprotected' | 'all';

const EDITS_EVERY_POST: readonly CalendarCapability[] = ['edit_others', 'edit_published', 'edit_private'];

export function exposureOf(user: AuthUser | null, context: string | undefined): Exposure {
  const editsEverything = user !== null && EDITS_EVERY_POST.every((capability) => can(user.role, capability));
  return context === 'edit' && editsEverything ? 'all' : 'unprotected';
}
