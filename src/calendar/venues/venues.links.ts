import type { Db } from '../../platform/db/schema.ts';
import type { LinkedPostRow } from '../linked-posts/linked-posts.kind.ts';
import {
  assertPostsReadable,
  checkedAhead,
  type CheckedLinks,
  findEmbeddable,
  linkedIdOf,
  linkEntries,
  presentEmbedded,
  resolveLinkEntry,
} from '../linked-posts/linked-posts.links.ts';
import type { PostAssets } from '../linked-posts/linked-posts.present.ts';
import type { PostPasswords } from '../posts/posts.passwords.ts';
import type { RequestContext } from '../common/context.ts';
import { invalidParam } from '../common/wire.ts';
import { venueKind } from './venues.kind.ts';

/** The venues of events, for the events module: the readable ones of `venueIds` (see findEmbeddable). */
export async function findEmbeddableVenues(db: Db, venueIds: readonly number[], ctx: RequestContext): Promise<LinkedPostRow[]> {
  return findEmbeddable(db, venueKind, venueIds, ctx);
}

/** Their list representations (stripped when the venue itself has a password), by venue id. */
export async function presentEmbeddedVenues(
  rows: readonly LinkedPostRow[],
  ctx: RequestContext,
  assets: PostAssets,
): Promise<Map<number, object>> {
  return presentEmbedded(venueKind, rows, ctx, assets);
}

/**
 * The venue an event write names: an id, a numeric string, `{id}`, or an
 * inline venue (matched by name and address, else created as by
 * POST /venues). `null` unlinks (deviation 2); several venues are a 400
 * (deviation 13). Errors are 400 `rest_invalid_param` naming `venue`.
 */
export async function resolveVenueForWrite(trx: Db, input: unknown, ctx: RequestContext, passwords: PostPasswords): Promise<number | null> {
  const entries = linkEntries(input);
  if (entries.length === 0) return null;
  if (entries.length > 1) throw invalidParam('venue', 'An event has one venue.');
  return resolveLinkEntry(trx, venueKind, entries[0], ctx, 'venue', passwords);
}

/** The venue an event write links to (null: none), ahead of its check when named by id (see checkedAhead). */
export function venueForWrite(
  trx: Db,
  input: unknown,
  ctx: RequestContext,
  passwords: PostPasswords,
): Promise<CheckedLinks<number | null>> {
  return checkedAhead(resolveVenueForWrite(trx, input, ctx, passwords), venueIdNamedBy(input));
}

/** The venue `input` names by id (null: none), known without reading; undefined when only the check can tell. */
export function venueIdNamedBy(input: unknown): number | null | undefined {
  const entries = linkEntries(input);
  if (entries.length === 0) return null;
  return entries.length === 1 ? (linkedIdOf(entries[0]) ?? undefined) : undefined;
}

/** For the `venue` list filter: 400 naming `venue` unless every id is a venue the caller may read. */
export async function assertVenuesReadable(db: Db, ids: number[], ctx: RequestContext): Promise<void> {
  return assertPostsReadable(db, venueKind, ids, 'venue', ctx);
}
