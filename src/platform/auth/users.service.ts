import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { UniqueViolationError } from '../db/dialect/errors.ts';
import { ConflictError, InvalidError, NotFoundError } from '../errors.ts';
import { isRole, ROLES, type Role } from './capabilities.ts';
import { hashToken } from './authenticate.ts';
import { generatePassword, hashPassword } from './passwords.ts';
import { insertToken, listTokens, revokeToken } from './tokens.repository.ts';
import { countUsers, deleteUser, findUserByUsername, insertUser, listUsers, updateUser } from './users.repository.ts';

type Db = Kysely<Database>;
type TranslateError = (error: unknown) => unknown;

function requireRole(role: string): Role {
  if (!isRole(role)) throw new InvalidError('unknown_role', `Unknown role "${role}"; use one of ${ROLES.join(', ')}.`);
  return role;
}

function requireUsername(username: string): string {
  if (!/^[\w.@+-]{1,60}$/.test(username)) {
    throw new InvalidError('invalid_username', 'A username is 1–60 letters, digits or . _ @ + -.');
  }
  return username;
}

function requirePassword(password: string): string {
  if (password.length < 8 || password.length > 1024) {
    throw new InvalidError('invalid_password', 'A password has 8 to 1024 characters.');
  }
  return password;
}

export async function addUser(
  db: Db,
  translateError: TranslateError,
  input: { username: string; password: string; role: string; email?: string; displayName?: string },
): Promise<{ id: number; username: string; role: Role }> {
  const username = requireUsername(input.username);
  const role = requireRole(input.role);
  const passwordHash = await hashPassword(requirePassword(input.password));
  try {
    const id = await insertUser(db, {
      username,
      role,
      passwordHash,
      email: input.email ?? '',
      displayName: input.displayName ?? username,
    });
    return { id, username, role };
  } catch (error) {
    if (translateError(error) instanceof UniqueViolationError) {
      throw new ConflictError('duplicate_username', `A user named "${username}" already exists.`);
    }
    throw error;
  }
}

async function requireUser(db: Db, username: string) {
  const user = await findUserByUsername(db, username);
  if (user === undefined) throw new NotFoundError('unknown_user', `No user named "${username}".`);
  return user;
}

export async function setPassword(db: Db, username: string, password: string): Promise<void> {
  await requireUser(db, username);
  await updateUser(db, username, { password_hash: await hashPassword(requirePassword(password)) });
}

export async function setRole(db: Db, username: string, role: string): Promise<void> {
  await requireUser(db, username);
  await updateUser(db, username, { role: requireRole(role) });
}

export async function removeUser(db: Db, username: string): Promise<void> {
  if (!(await deleteUser(db, username))) throw new NotFoundError('unknown_user', `No user named "${username}".`);
}

export async function listAllUsers(db: Db) {
  const users = await listUsers(db);
  return users.map(({ id, username, display_name, email, role, created_at }) => ({
    id,
    username,
    display_name,
    email,
    role,
    created_at,
  }));
}

/** Creates an API token; the clear token is returned once and only its hash is stored. */
export async function createToken(db: Db, username: string, name = 'cli'): Promise<{ id: number; token: string }> {
  const user = await requireUser(db, username);
  const token = `alm_${randomBytes(32).toString('base64url')}`;
  const id = await insertToken(db, { userId: user.id, name, tokenHash: hashToken(token) });
  return { id, token };
}

export function listApiTokens(db: Db, username?: string) {
  return listTokens(db, username);
}

export async function revokeApiToken(db: Db, id: number): Promise<void> {
  if (!(await revokeToken(db, id))) throw new NotFoundError('unknown_token', `No live token with id ${id}.`);
}

/**
 * On an empty users table, creates the first administrator. Returns the
 * generated password (to print once) or `undefined` when one was supplied.
 */
export async function ensureFirstAdministrator(
  db: Db,
  translateError: TranslateError,
  username: string,
  suppliedPassword: string | undefined,
): Promise<{ created: false } | { created: true; username: string; generatedPassword: string | undefined }> {
  if ((await countUsers(db)) > 0) return { created: false };
  const password = suppliedPassword ?? generatePassword();
  try {
    await addUser(db, translateError, { username, password, role: 'administrator' });
  } catch (error) {
    // Another process created it between our count and insert.
    if (error instanceof ConflictError && error.reason === 'duplicate_username') return { created: false };
    throw error;
  }
  return { created: true, username, generatedPassword: suppliedPassword === undefined ? password : undefined };
}
