import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';

type Db = Kysely<Database>;

export async function recordFailure(db: Db, username: string, address: string, atMs: number): Promise<void> {
  await db.insertInto('auth_failures').values({ username, address, failed_at_ms: atMs }).execute();
}

/** Failures since `sinceMs` for the pair and for the address, with the oldest of each. */
export async function countFailures(db: Db, username: string, address: string, sinceMs: number) {
  const [pair, byAddress] = await Promise.all([
    db
      .selectFrom('auth_failures')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min<number>('failed_at_ms').as('oldest')])
      .where('username', '=', username)
      .where('address', '=', address)
      .where('failed_at_ms', '>=', sinceMs)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('auth_failures')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min<number>('failed_at_ms').as('oldest')])
      .where('address', '=', address)
      .where('failed_at_ms', '>=', sinceMs)
      .executeTakeFirstOrThrow(),
  ]);
  return {
    pair: { count: Number(pair.n), oldestMs: pair.oldest === null ? null : Number(pair.oldest) },
    address: { count: Number(byAddress.n), oldestMs: byAddress.oldest === null ? null : Number(byAddress.oldest) },
  };
}

export async function clearFailures(db: Db, username: string, address: string): Promise<void> {
  await db.deleteFrom('auth_failures').where('username', '=', username).where('address', '=', address).execute();
}

export async function pruneFailures(db: Db, beforeMs: number): Promise<void> {
  await db.deleteFrom('auth_failures').where('failed_at_ms', '<', beforeMs).execute();
}
