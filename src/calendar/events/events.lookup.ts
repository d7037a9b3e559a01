import type { Db } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import { missingItem } from '../changes/changes.preconditions.ts';
import { findIdBySlug, findPostType } from '../posts/posts.repository.ts';
import { sanitizeSlug } from '../posts/posts.slugs.ts';
import type { RequestContext } from '../common/context.ts';
import { invalidParam, MAX_ID } from '../common/wire.ts';
import { findEventById, type EventRow } from './events.repository.ts';

/** The event a request names, by its id or by one of its slugs, and the errors of an event that is not there. */

/** An event addressed by its id or by one of its slugs. */
export type EventRef = { readonly id: number } | { readonly slug: string };

export const eventNotFound = (id: number) => new AppError(404, 'rest-event-not-found', `Event with ID ${id} does not exist.`);
const notAnEvent = () => new AppError(400, 'rest-invalid-event-id', 'The specified ID is not a valid event.');
const noSlug = () => invalidParam('slug', 'No event has this slug.');

/** The event `ref` names; `writer`: a write's caller, whose If-Match makes a missing event a 412. */
export async function eventOf(db: Db, ref: EventRef, writer?: RequestContext): Promise<EventRow> {
  return eventRowOf(db, ref, await eventIdOf(db, ref, writer), writer);
}

export async function eventIdOf(db: Db, ref: EventRef, writer?: RequestContext): Promise<number> {
  if (!('id' in ref)) {
    const id = await findIdBySlug(db, 'event', sanitizeSlug(ref.slug));
    if (id === undefined) throw missingItem(writer, noSlug());
    return id;
  }
  if (ref.id > MAX_ID) throw missingItem(writer, eventNotFound(ref.id));
  return ref.id;
}

export async function eventRowOf(db: Db, ref: EventRef, id: number, writer?: RequestContext): Promise<EventRow> {
  const row = await findEventById(db, id);
  if ('slug' in ref) {
    // Recurrence children are not addressable by slug (as in the reference).
    if (row === undefined || row.parent_id !== null) throw missingItem(writer, noSlug());
    return row;
  }
  if (row !== undefined) return row;
  const type = await findPostType(db, id);
  throw missingItem(writer, type !== undefined && type !== 'event' ? notAnEvent() : eventNotFound(id));
}
