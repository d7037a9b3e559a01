import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { AuthUser } from '../../platform/auth/authenticate.ts';
import { can, type CalendarCapability } from '../calendar.capabilities.ts';
import type { ListVisibility } from './permissions.ts';

/**
 * What a read may see of posts, as SQL over a post table under an alias
 * (events, venues or organizers share the columns used here).
 */

/** Which rows a list or a link query may see. */
export interface StatusScope {
  readonly visibility: ListVisibility;
  /** Explicit `status` filter; `undefined` = the visibility's default set (everything but trash). */
  readonly statuses: readonly string[] | undefined;
  /** UTC `YYYY-MM-DD HH:MM:SS`: a `future` post dated before it is published. */
  readonly now: string;
}

function published(alias: string, now: string): RawBuilder<SqlBool> {
  const status = sql.ref(`${alias}.status`);
  return sql<SqlBool>`(${status} = 'publish' or (${status} = 'future' and ${sql.ref(`${alias}.date_utc`)} <= ${now}))`;
}

function statusIn(alias: string, statuses: readonly string[], now: string): RawBuilder<SqlBool> {
  const status = sql.ref(`${alias}.status`);
  const parts = statuses.map((wanted) => {
    if (wanted === 'publish') return published(alias, now);
    if (wanted === 'future') return sql<SqlBool>`(${status} = 'future' and ${sql.ref(`${alias}.date_utc`)} > ${now})`;
    return sql<SqlBool>`${status} = ${wanted}`;
  });
  return sql<SqlBool>`(${sql.join(parts, sql` or `)})`;
}

/** The posts (events, venues or organizers under `alias`) a scope may list (deviation 9). */
export function visibleIn(alias: string, scope: StatusScope): RawBuilder<SqlBool> {
  const notTrash = sql<SqlBool>`${sql.ref(`${alias}.status`)} <> 'trash'`;
  const wanted = scope.statuses === undefined ? notTrash : statusIn(alias, scope.statuses, scope.now);
  switch (scope.visibility.kind) {
    case 'published':
      return sql<SqlBool>`(${published(alias, scope.now)} and ${wanted})`;
    case 'published-or-own':
      return sql<SqlBool>`((${published(alias, scope.now)} or ${sql.ref(`${alias}.author_id`)} = ${scope.visibility.userId}) and ${wanted})`;
    case 'all-but-trash':
      return wanted;
  }
}

/**
 * Whose password-protected content a read may match on. A protected post
 * shows its title (name) and dates, and strips the rest: texts, meta, links
 * to venues, organizers and terms (reference §7). Invisible means absent
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

/** The posts under `alias` whose protected content `exposure` may match on. */
export function exposedIn(alias: string, exposure: Exposure): RawBuilder<SqlBool> {
  return exposure === 'all' ? sql<SqlBool>`(1 = 1)` : sql<SqlBool>`${sql.ref(`${alias}.password_hash`)} is null`;
}
