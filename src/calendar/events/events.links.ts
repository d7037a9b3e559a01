import { behind } from '../../platform/db/group-commit.ts';
import type { Db } from '../../platform/db/schema.ts';
import type { RequestContext } from '../common/context.ts';
import { organizersForWrite, setEventOrganizers } from '../organizers/organizers.links.ts';
import type { PostPasswords } from '../posts/posts.passwords.ts';
import { eventTermsWrite } from '../terms/terms.links.ts';
import type { UpdateEventBody } from './events.schemas.ts';

/**
 * An event write's organizers, categories and tags: resolves the links `body` names, then asks for their writes
 * together, and settles once they are asked for, with `written` waiting for their answers. With `linked` (what the
 * event links to now, known without reading it: a new event links to nothing) every write is asked for at once, so
 * what the write asks for next is answered after them (its answer's reads, on PostgreSQL in the same round trip).
 */
export async function eventLinkWrites(
  trx: Db,
  eventId: number,
  body: UpdateEventBody,
  caller: RequestContext,
  passwords: PostPasswords,
  linked?: readonly [],
): Promise<{ written: Promise<unknown> }> {
  const writes: (() => Promise<void>)[] = [];
  if (body.organizer !== undefined) {
    const organizers = await organizersForWrite(trx, body.organizer, caller, passwords);
    writes.push(() => behind(organizers.checked, () => setEventOrganizers(trx, eventId, organizers.value, linked)));
  }
  if (body.categories !== undefined) writes.push(await eventTermsWrite(trx, eventId, 'category', body.categories, caller, linked));
  if (body.tags !== undefined) writes.push(await eventTermsWrite(trx, eventId, 'tag', body.tags, caller, linked));
  // Each behind the ones before it: the first to fail is the answer, not one that failed only because it aborted the transaction.
  return { written: writes.reduce<Promise<unknown>>((ahead, write) => behind(ahead, write), Promise.resolve()) };
}
