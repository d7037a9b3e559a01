import type { Db } from '../../platform/db/schema.ts';
import type { LinkedPostRow } from '../linked-posts/linked-posts.kind.ts';
import {
  assertPostsReadable,
  checkedAhead,
  type CheckedLinks,
  linkedIdOf,
  linkEntries,
  MAX_LINKED_POSTS,
  presentEmbedded,
  resolveLinkEntries,
} from '../linked-posts/linked-posts.links.ts';
import type { PostAssets } from '../linked-posts/linked-posts.present.ts';
import type { PostPasswords } from '../posts/posts.passwords.ts';
import { canRead } from '../posts/posts.access.ts';
import type { RequestContext } from '../common/context.ts';
import { organizerKind } from './organizers.kind.ts';
import { findOrganizersOfEvents, replaceEventOrganizers } from './organizers.repository.ts';

/** Organizers linked to events, in link order. */
export type EventOrganizerRows = readonly { readonly eventId: number; readonly row: LinkedPostRow }[];

/** The organizers of events that the caller may read, each event's in link order (see findEmbeddable). */
export async function findEmbeddableOrganizers(db: Db, eventIds: readonly number[], ctx: RequestContext): Promise<EventOrganizerRows> {
  const now = new Date();
  return (await findOrganizersOfEvents(db, eventIds)).filter(({ row }) => canRead(ctx.user, row, now));
}

/** Each event's organizers (list shape, stripped when the organizer has a password); `[]` when none. */
export async function presentEventOrganizers(
  eventIds: readonly number[],
  links: EventOrganizerRows,
  ctx: RequestContext,
  assets: PostAssets,
): Promise<Map<number, object[]>> {
  const organizers = await presentEmbedded(organizerKind, [...new Map(links.map(({ row }) => [row.id, row])).values()], ctx, assets);
  const result = new Map<number, object[]>(eventIds.map((id) => [id, []]));
  for (const { eventId, row } of links) {
    const organizer = organizers.get(row.id);
    if (organizer !== undefined) result.get(eventId)?.push(organizer);
  }
  return result;
}

/**
 * The organizers an event write names, in order: an id, a CSV string of ids
 * (deviation 13), or an array of ids, `{id}` objects and inline organizers
 * (matched by name and e-mail, else created as by POST /organizers).
 * `[]`/`""`/`0`/`null` → none. Errors are 400 `rest_invalid_param` naming `organizer`.
 */
export async function resolveOrganizersForWrite(trx: Db, input: unknown, ctx: RequestContext, passwords: PostPasswords): Promise<number[]> {
  return resolveLinkEntries(trx, organizerKind, linkEntries(input), ctx, 'organizer', passwords);
}

/**
 * The organizers an event write links to, in order, ahead of their check when all are named by id and the check is
 * one read (see checkedAhead).
 */
export function organizersForWrite(
  trx: Db,
  input: unknown,
  ctx: RequestContext,
  passwords: PostPasswords,
): Promise<CheckedLinks<number[]>> {
  const named = linkEntries(input).map(linkedIdOf);
  const byId = named.length <= MAX_LINKED_POSTS && named.every((id) => typeof id === 'number');
  return checkedAhead(resolveOrganizersForWrite(trx, input, ctx, passwords), byId ? [...new Set(named as number[])] : undefined);
}

/** Replaces the event's organizers with these, in this order. */
export async function setEventOrganizers(trx: Db, eventId: number, organizerIds: number[], linked?: readonly number[]): Promise<void> {
  await replaceEventOrganizers(trx, eventId, organizerIds, linked);
}

/** For the `organizer` list filter: 400 naming `organizer` unless every id is an organizer the caller may read. */
export async function assertOrganizersReadable(db: Db, ids: number[], ctx: RequestContext): Promise<void> {
  return assertPostsReadable(db, organizerKind, ids, 'organizer', ctx);
}
