import type { AuthUser } from '../../platform/auth/authenticate.ts';
import { can } from '../calendar.capabilities.ts';
import type { Db } from '../../platform/db/schema.ts';
import { PlatformErrors } from '../../platform/errors.ts';
import { fromInstant, nowIn, parseDate, type Stamp, type ZonedMoment } from '../common/dates.ts';
import { invalidParam, MAX_ID } from '../common/wire.ts';
import { utcStamp } from './posts.access.ts';
import { userExists } from './posts.repository.ts';

/**
 * What every post write (event, venue, organizer) decides the same way:
 * publication and modification dates, the author, the password.
 */

/** A post's publication or modification date: wall time in the site zone, and UTC. */
export interface PostStamps {
  readonly local: Stamp;
  readonly utc: Stamp;
}

/** `instant` in the site zone and in UTC: the date of a new post, the `modified` of a write. */
export function stampsAt(siteZone: string, instant: Date): PostStamps {
  return { local: nowIn(siteZone, instant).local, utc: utcStamp(instant) };
}

/** A date argument of a write, in `zone`; 400 naming it when it does not parse. */
export function parseWriteDate(name: string, value: string, zone: string, now: Date): ZonedMoment {
  const moment = parseDate(value, zone, now);
  if (moment === undefined) throw invalidParam(name, `Invalid date: ${name}.`);
  return moment;
}

/**
 * The publication date a write sets: `date` in the site zone or `date_utc`
 * in UTC, each alone setting both (as the reference); with both, `date_utc`
 * wins and `date` must still be a date. `undefined` when neither is sent.
 */
export function publicationDates(
  sent: { readonly date?: string | undefined; readonly date_utc?: string | undefined },
  siteZone: string,
  now: Date,
): { date: Stamp; date_utc: Stamp } | undefined {
  if (sent.date_utc !== undefined) {
    const moment = parseWriteDate('date_utc', sent.date_utc, 'UTC', now);
    if (sent.date !== undefined) parseWriteDate('date', sent.date, siteZone, now);
    return { date: fromInstant(moment.epochMs, siteZone)?.local ?? moment.utc, date_utc: moment.utc };
  }
  if (sent.date === undefined) return undefined;
  const moment = parseWriteDate('date', sent.date, siteZone, now);
  return { date: moment.local, date_utc: moment.utc };
}

/** The publication date of a new post: the one sent, else `now` (also its first `modified`, as WordPress's wp_insert_post). */
export function newPostDates(
  sent: { readonly date?: string | undefined; readonly date_utc?: string | undefined },
  siteZone: string,
  now: Date,
): { date: Stamp; date_utc: Stamp } {
  const created = stampsAt(siteZone, now);
  return publicationDates(sent, siteZone, now) ?? { date: created.local, date_utc: created.utc };
}

/** The author a write names: an existing user; another user than the caller only for editors and above (deviation 8). */
export async function checkAuthor(db: Db, author: number | undefined, user: AuthUser | null): Promise<number | undefined> {
  if (author === undefined) return undefined;
  if (author > MAX_ID || !(await userExists(db, author))) throw invalidParam('author', 'No user has this id.');
  if (author !== user?.id && !can(user?.role ?? null, 'edit_others')) throw PlatformErrors.forbidden(user !== null);
  return author;
}
