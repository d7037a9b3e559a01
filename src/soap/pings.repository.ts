import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../platform/db/schema.ts';
import type { SoapPingTable } from './soap.tables.ts';
import './soap.tables.ts';

export type PingRow = Selectable<SoapPingTable>;
export type NewPingRow = Insertable<SoapPingTable>;
type Db = Kysely<Database>;

export async function insertPing(db: Db, ping: NewPingRow): Promise<void> {
  await db.insertInto('soap_pings').values(ping).execute();
}

/** Newest first: ids grow with arrival, across processes too. */
export function listPings(db: Db, { limit, offset }: { limit: number; offset: number }): Promise<PingRow[]> {
  return db.selectFrom('soap_pings').selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute();
}

export async function countPings(db: Db): Promise<number> {
  const row = await db.selectFrom('soap_pings').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}
