import type { Db } from '../db/schema.ts';

export async function insertToken(db: Db, token: { userId: number; name: string; tokenHash: string }): Promise<number> {
  const row = await db
    .insertInto('api_tokens')
    .values({
      user_id: token.userId,
      name: token.name,
      token_hash: token.tokenHash,
      created_at: new Date().toISOString(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The live token with that hash and its owner, or undefined. */
export function findActiveTokenOwner(db: Db, tokenHash: string) {
  return db
    .selectFrom('api_tokens')
    .innerJoin('users', 'users.id', 'api_tokens.user_id')
    .select(['api_tokens.id as token_id', 'api_tokens.last_used_at', 'users.id', 'users.username', 'users.display_name', 'users.role'])
    .where('api_tokens.token_hash', '=', tokenHash)
    .where('api_tokens.revoked_at', 'is', null)
    .executeTakeFirst();
}

export async function touchToken(db: Db, id: number, at: string): Promise<void> {
  await db.updateTable('api_tokens').set({ last_used_at: at }).where('id', '=', id).execute();
}

export function listTokens(db: Db, username?: string) {
  let query = db
    .selectFrom('api_tokens')
    .innerJoin('users', 'users.id', 'api_tokens.user_id')
    .select([
      'api_tokens.id',
      'users.username',
      'api_tokens.name',
      'api_tokens.created_at',
      'api_tokens.last_used_at',
      'api_tokens.revoked_at',
    ])
    .orderBy('api_tokens.id');
  if (username !== undefined) query = query.where('users.username', '=', username);
  return query.execute();
}

export async function revokeToken(db: Db, id: number): Promise<boolean> {
  const result = await db
    .updateTable('api_tokens')
    .set({ revoked_at: new Date().toISOString() })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
