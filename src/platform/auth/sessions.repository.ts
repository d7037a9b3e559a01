import type { Selectable } from 'kysely';
import type { Db, SessionTable } from '../db/schema.ts';

export interface SessionWithUser extends Selectable<SessionTable> {
  readonly username: string;
  readonly display_name: string;
  readonly role: string;
  readonly password_hash: string;
}

export async function insertSession(db: Db, session: Selectable<SessionTable>): Promise<void> {
  await db.insertInto('sessions').values(session).execute();
}

/** The session and its user as they are now: a role or a password changed since sign-in shows at once. */
export async function findSessionWithUser(db: Db, id: string): Promise<SessionWithUser | undefined> {
  const row = await db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select([
      'sessions.id',
      'sessions.user_id',
      'sessions.credential',
      'sessions.created_at_ms',
      'sessions.last_seen_ms',
      'sessions.expires_at_ms',
      'users.username',
      'users.display_name',
      'users.role',
      'users.password_hash',
    ])
    .where('sessions.id', '=', id)
    .executeTakeFirst();
  // PostgreSQL's bigint arrives as a string.
  return row === undefined
    ? undefined
    : {
        ...row,
        created_at_ms: Number(row.created_at_ms),
        last_seen_ms: Number(row.last_seen_ms),
        expires_at_ms: Number(row.expires_at_ms),
      };
}

export async function touchSession(db: Db, id: string, nowMs: number): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_ms: nowMs }).where('id', '=', id).execute();
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute();
}

/** Removes the sessions past their absolute end or idle since `idleBeforeMs`. */
export async function pruneSessions(db: Db, nowMs: number, idleBeforeMs: number): Promise<void> {
  await db
    .deleteFrom('sessions')
    .where((eb) => eb.or([eb('expires_at_ms', '<=', nowMs), eb('last_seen_ms', '<', idleBeforeMs)]))
    .execute();
}
