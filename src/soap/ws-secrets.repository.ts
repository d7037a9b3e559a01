import type { Db } from '../platform/db/schema.ts';
import './soap.tables.ts';

/** Gives the user a new salt, which replaces (and so revokes) the previous secret. */
export async function upsertWsSecret(db: Db, userId: number, salt: string, issuedAt: string): Promise<void> {
  await db
    .insertInto('soap_ws_secrets')
    .values({ user_id: userId, salt, issued_at: issuedAt })
    .onConflict((conflict) => conflict.column('user_id').doUpdateSet({ salt, issued_at: issuedAt }))
    .execute();
}

/** The user with that username and their secret's salt, if both exist. */
export function findWsSecretOwner(db: Db, username: string) {
  return db
    .selectFrom('soap_ws_secrets')
    .innerJoin('users', 'users.id', 'soap_ws_secrets.user_id')
    .select(['users.id', 'users.username', 'users.display_name', 'users.role', 'soap_ws_secrets.salt'])
    .where('users.username', '=', username)
    .executeTakeFirst();
}
