import { randomBytes } from 'node:crypto';
import type { Store } from '../db/database.ts';
import { UniqueViolationError } from '../db/dialect/errors.ts';
import { ConflictError, InvalidError, NotFoundError } from '../errors.ts';
import { isRole, ROLES, type Role } from './capabilities.ts';
import { hashToken } from './authenticate.ts';
import { generatePassword, type PasswordHasher } from './passwords.ts';
import { insertToken, listTokens, revokeToken } from './tokens.repository.ts';
import { countUsers, deleteUser, findUserByUsername, insertUser, listUsers, updateUser } from './users.repository.ts';

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

/** The users and their API tokens, as the command line and the first start administer them. */
export class UsersService {
  constructor(
    private readonly store: Pick<Store, 'db' | 'translateError'>,
    private readonly passwords: PasswordHasher,
  ) {}

  async add(input: {
    username: string;
    password: string;
    role: string;
    email?: string;
    displayName?: string;
  }): Promise<{ id: number; username: string; role: Role }> {
    const username = requireUsername(input.username);
    const role = requireRole(input.role);
    const passwordHash = await this.passwords.hash(requirePassword(input.password));
    try {
      const id = await insertUser(this.store.db, {
        username,
        role,
        passwordHash,
        email: input.email ?? '',
        displayName: input.displayName ?? username,
      });
      return { id, username, role };
    } catch (error) {
      if (this.store.translateError(error) instanceof UniqueViolationError) {
        throw new ConflictError('duplicate_username', `A user named "${username}" already exists.`);
      }
      throw error;
    }
  }

  async setPassword(username: string, password: string): Promise<void> {
    await this.requireUser(username);
    await updateUser(this.store.db, username, { password_hash: await this.passwords.hash(requirePassword(password)) });
  }

  async setRole(username: string, role: string): Promise<void> {
    await this.requireUser(username);
    await updateUser(this.store.db, username, { role: requireRole(role) });
  }

  async remove(username: string): Promise<void> {
    if (!(await deleteUser(this.store.db, username))) throw new NotFoundError('unknown_user', `No user named "${username}".`);
  }

  async list() {
    const users = await listUsers(this.store.db);
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
  async createToken(username: string, name = 'cli'): Promise<{ id: number; token: string }> {
    const user = await this.requireUser(username);
    const token = `alm_${randomBytes(32).toString('base64url')}`;
    const id = await insertToken(this.store.db, { userId: user.id, name, tokenHash: hashToken(token) });
    return { id, token };
  }

  listTokens(username?: string) {
    return listTokens(this.store.db, username);
  }

  async revokeToken(id: number): Promise<void> {
    if (!(await revokeToken(this.store.db, id))) throw new NotFoundError('unknown_token', `No live token with id ${id}.`);
  }

  /**
   * On an empty users table, creates the first administrator. Returns the
   * generated password (to print once) or `undefined` when one was supplied.
   */
  async ensureFirstAdministrator(
    username: string,
    suppliedPassword: string | undefined,
  ): Promise<{ created: false } | { created: true; username: string; generatedPassword: string | undefined }> {
    if ((await countUsers(this.store.db)) > 0) return { created: false };
    const password = suppliedPassword ?? generatePassword();
    try {
      await this.add({ username, password, role: 'administrator' });
    } catch (error) {
      // Another process created it between our count and insert.
      if (error instanceof ConflictError && error.reason === 'duplicate_username') return { created: false };
      throw error;
    }
    return { created: true, username, generatedPassword: suppliedPassword === undefined ? password : undefined };
  }

  private async requireUser(username: string) {
    const user = await findUserByUsername(this.store.db, username);
    if (user === undefined) throw new NotFoundError('unknown_user', `No user named "${username}".`);
    return user;
  }
}
