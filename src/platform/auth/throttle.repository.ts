import type { Db } from '../db/schema.ts';

export async function recordFailure(db: Db, bucket: string, username: string, address: string, atMs: number): Promise<void> {
  await db.insertInto('auth_failures').values({ bucket, username, address, failed_at_ms: atMs }).execute();
}

/** Failures in `bucket` since `sinceMs` for the pair and for the address, with the oldest of each. */
export async function countFailures(db: Db, bucket: string, username: string, address: string, sinceMs: number) {
  const [pair, byAddress] = await Promise.all([
    db
      .selectFrom('auth_failures')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min<number>('failed_at_ms').as('oldest')])
      .where('bucket', '=', bucket)
      .where('username', '=', username)
      .where('address', '=', address)
      .where('failed_at_ms', '>=', sinceMs)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('auth_failures')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min<number>('failed_at_ms').as('oldest')])
      .where('bucket', '=', bucket)
      .where('address', '=', address)
      .where('failed_at_ms', '>=', sinceMs)
      .executeTakeFirstOrThrow(),
  ]);
  return {
    pair: { count: Number(pair.n), oldestMs: pair.oldest === null ? null : Number(pair.oldest) },
    address: { count: Number(byAddress.n), oldestMs: byAddress.oldest === null ? null : Number(byAddress.oldest) },
  };
}

export async function clearFailures(db: Db, bucket: string, username: string, address: string): Promise<void> {
  await db
    .deleteFrom('auth_failures')
    .where('bucket', '=', bucket)
    .where('username', '=', username)
    .where('address', '=', address)
    .execute();
}

export async function pruneFailures(db: Db, bucket: string, beforeMs: number): Promise<void> {
  await db.deleteFrom('auth_failures').where('bucket', '=', bucket).where('failed_at_ms', '<', beforeMs).execute();
}
