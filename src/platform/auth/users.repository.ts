import type { Selectable } from 'kysely';
import type { Db, UserTable } from '../db/schema.ts';

export type UserRow = Selectable<UserTable>;
export function findUserByUsername(db: Db, username: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
}

export function listUsers(db: Db): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().orderBy('id').execute();
}

export async function countUsers(db: Db): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertUser(
  db: Db,
  user: { username: string; displayName: string; email: string; role: string; passwordHash: string },
): Promise<number> {
  const row = await db
    .insertInto('users')
    .values({
      username: user.username,
      display_name: user.displayName,
      email: user.email,
      role: user.role,
      password_hash: user.passwordHash,
      created_at: new Date().toISOString(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function updateUser(db: Db, username: string, changes: { role?: string; password_hash?: string }): Promise<boolean> {
  const result = await db.updateTable('users').set(changes).where('username', '=', username).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteUser(db: Db, username: string): Promise<boolean> {
  const result = await db.deleteFrom('users').where('username', '=', username).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export function findUserById(db: Db, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}
