import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.ts';
import '../calendar.tables.ts';

type Db = Kysely<Database>;

/**
 * The events revision (migration 2026-11-22T0600-revisions): a number in the
 * database that every write to `events` or `event_terms` bumps in its own
 * transaction. What a process remembers of events (list totals, term counts)
 * is keyed by it, so a write made by any process sharing the database makes
 * it stale at once.
 */
export async function readEventsRevision(db: Db): Promise<number> {
  const row = await db.selectFrom('revisions').select('value').where('name', '=', 'events').executeTakeFirstOrThrow();
  return Number(row.value);
}

export async function bumpEventsRevision(db: Db): Promise<void> {
  await db
    .updateTable('revisions')
    .set((eb) => ({ value: eb('value', '+', 1) }))
    .where('name', '=', 'events')
    .execute();
}
