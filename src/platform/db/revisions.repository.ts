import { sql } from 'kysely';
import type { Db } from './schema.ts';

/** One revision's value: one primary-key read. */
export async function findRevision(db: Db, name: string): Promise<number> {
  const { rows } = await sql<{ value: number | string }>`select value from revisions where name = ${name}`.execute(db);
  return Number(rows[0]?.value);
}

// Read in every tick of the event loop that serves requests: a constant statement, not rebuilt each time.
const LIST_REVISIONS = sql<{ name: string; value: number | string }>`select name, value from revisions`;

/** Every revision by name. */
export async function listRevisions(db: Db): Promise<Map<string, number>> {
  const { rows } = await LIST_REVISIONS.execute(db);
  return new Map(rows.map((row) => [row.name, Number(row.value)]));
}
