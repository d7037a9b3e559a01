import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.ts';
import { assertPostsExist, linkEntries, loadEmbedded, resolveLinkEntry } from '../linked-posts/linked-posts.links.ts';
import type { RequestContext } from '../shared/context.ts';
import { invalidParam } from '../shared/wire.ts';
import { venueKind } from './venues.kind.ts';
import { CreateVenueBodySchema } from './venues.schemas.ts';

type Db = Kysely<Database>;

/**
 * The venue of an event, for the events module: ids in, representations
 * out (list shape, stripped when the venue itself has a password).
 */
export async function loadEmbeddedVenues(db: Db, venueIds: number[], ctx: RequestContext): Promise<Map<number, object>> {
  return loadEmbedded(db, venueKind, venueIds, ctx);
}

/**
 * The venue an event write names: an id, a numeric string, `{id}`, or an
 * inline venue (matched by name and address, else created as by
 * POST /venues). `null` unlinks (deviation 2); several venues are a 400
 * (deviation 13). Errors are 400 `rest_invalid_param` naming `venue`.
 */
export async function resolveVenueForWrite(trx: Db, input: unknown, ctx: RequestContext): Promise<number | null> {
  const entries = linkEntries(input);
  if (entries.length === 0) return null;
  if (entries.length > 1) throw invalidParam('venue', 'An event has one venue.');
  return resolveLinkEntry(trx, venueKind, CreateVenueBodySchema, entries[0], ctx, 'venue');
}

/** For the `venue` list filter: 400 naming `venue` unless every id is a venue. */
export async function assertVenuesExist(db: Db, ids: number[]): Promise<void> {
  return assertPostsExist(db, venueKind, ids, 'venue');
}
