import type { Db } from '../platform/db/schema.ts';
import './soap.tables.ts';

/**
 * Records a nonce until `expiresAtMs`; `false` when it is already recorded and
 * not expired (a replay). The primary key decides, so two processes racing on
 * one nonce cannot both win; an expired row is taken over, so pruning is only housekeeping.
 */
export async function insertNonce(db: Db, nonceKey: string, expiresAtMs: number, nowMs: number): Promise<boolean> {
  const result = await db
    .insertInto('soap_nonces')
    .values({ nonce_key: nonceKey, expires_at_ms: expiresAtMs })
    .onConflict((conflict) =>
      conflict.column('nonce_key').doUpdateSet({ expires_at_ms: expiresAtMs }).where('soap_nonces.expires_at_ms', '<', nowMs),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function pruneNonces(db: Db, beforeMs: number): Promise<void> {
  await db.deleteFrom('soap_nonces').where('expires_at_ms', '<', beforeMs).execute();
}
