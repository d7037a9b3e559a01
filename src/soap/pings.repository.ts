import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../platform/db/schema.ts';
import type { SoapPingTable } from './soap.tables.ts';
import './soap.tables.ts';

export type PingRow = Selectable<SoapPingTable>;
export type NewPingRow = Insertable<SoapPingTable>;
export async function insertPing(db: Db, ping: NewPingRow): Promise<void> {
  await db.insertInto('soap_pings').values(ping).execute();
}

/** Rows per statement: four parameters each, far below SQLite's and PostgreSQL's limits. */
const ROWS_PER_STATEMENT = 500;

/** Many pings, all or none: one statement (its own transaction), or one transaction for a larger batch. */
export async function insertPings(db: Db, pings: readonly NewPingRow[]): Promise<void> {
  if (pings.length <= ROWS_PER_STATEMENT) {
    await db
      .insertInto('soap_pings')
      .values([...pings])
      .execute();
    return;
  }
  await db.transaction().execute(async (trx) => {
    for (let start = 0; start < pings.length; start += ROWS_PER_STATEMENT) {
      await trx
        .insertInto('soap_pings')
        .values(pings.slice(start, start + ROWS_PER_STATEMENT))
        .execute();
    }
  });
}

/** Newest first: ids grow with arrival, across processes too. */
export function listPings(db: Db, { limit, offset }: { limit: number; offset: number }): Promise<PingRow[]> {
  return db.selectFrom('soap_pings').selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute();
}

export async function countPings(db: Db): Promise<number> {
  const row = await db
    .selectFrom('soap_pings')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
