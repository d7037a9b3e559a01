import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.ts';
import { assertPostsExist, linkEntries, loadEmbedded, resolveLinkEntry } from '../linked-posts/linked-posts.links.ts';
import type { RequestContext } from '../shared/context.ts';
import { organizerKind } from './organizers.kind.ts';
import { CreateOrganizerBodySchema } from './organizers.schemas.ts';
import { findEventOrganizerLinks, replaceEventOrganizers } from './organizers.repository.ts';

type Db = Kysely<Database>;

/** Each event's organizers (list shape, stripped when the organizer has a password), in link order; `[]` when none. */
export async function loadEventOrganizers(db: Db, eventIds: number[], ctx: RequestContext): Promise<Map<number, object[]>> {
  const links = await findEventOrganizerLinks(db, eventIds);
  const organizers = await loadEmbedded(db, organizerKind, links.map((link) => link.organizer_id), ctx);
  const result = new Map<number, object[]>(eventIds.map((id) => [id, []]));
  for (const link of links) {
    const organizer = organizers.get(link.organizer_id);
    if (organizer !== undefined) result.get(link.event_id)?.push(organizer);
  }
  return result;
}

/**
 * The organizers an event write names, in order: an id, a CSV string of ids
 * (deviation 13), or an array of ids, `{id}` objects and inline organizers
 * (matched by name and e-mail, else created as by POST /organizers).
 * `[]`/`""`/`0`/`null` → none. Errors are 400 `rest_invalid_param` naming `organizer`.
 */
export async function resolveOrganizersForWrite(trx: Db, input: unknown, ctx: RequestContext): Promise<number[]> {
  const ids: number[] = [];
  for (const entry of linkEntries(input)) {
    const id = await resolveLinkEntry(trx, organizerKind, CreateOrganizerBodySchema, entry, ctx, 'organizer');
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** Replaces the event's organizers with these, in this order. */
export async function setEventOrganizers(trx: Db, eventId: number, organizerIds: number[]): Promise<void> {
  await replaceEventOrganizers(trx, eventId, organizerIds);
}

/** For the `organizer` list filter: 400 naming `organizer` unless every id is an organizer. */
export async function assertOrganizersExist(db: Db, ids: number[]): Promise<void> {
  return assertPostsExist(db, organizerKind, ids, 'organizer');
}
