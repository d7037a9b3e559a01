import { UsersService } from '../../../src/platform/auth/users.service.ts';
import type { Role } from '../../../src/platform/auth/capabilities.ts';
import { passwordHasher, type Credentials, type TestServer } from '../../helpers/server.ts';

/** Everyone who may knock at the door: the five roles, nobody, and two kinds of bad credentials. */
export const CALLERS = [
  'anonymous',
  'subscriber',
  'contributor',
  'author',
  'editor',
  'administrator',
  'wrong-password',
  'revoked-token',
] as const;
export type Caller = (typeof CALLERS)[number];
export const ROLE_CALLERS = ['subscriber', 'contributor', 'author', 'editor', 'administrator'] as const satisfies readonly Role[];

export interface Cast {
  readonly users: Readonly<Record<Role, Credentials>>;
  /** The Authorization header a caller sends (undefined for anonymous). */
  header(caller: Caller): string | undefined;
  /** The user id behind a role caller. */
  idOf(caller: Caller): number | undefined;
}

/** Creates one user per role, a wrong-password header and a revoked token. */
export async function castOf(server: TestServer): Promise<Cast> {
  const users = {
    administrator: await server.admin(),
    editor: await server.createUser('editor'),
    author: await server.createUser('author'),
    contributor: await server.createUser('contributor'),
    subscriber: await server.createUser('subscriber'),
  } as const;
  const accounts = new UsersService(server.server.store, passwordHasher(server.config));
  const revoked = await accounts.createToken(users.editor.username, 'revoked');
  await accounts.revokeToken(revoked.id);
  const wrongPassword = `Basic ${Buffer.from(`${users.editor.username}:not-the-password`).toString('base64')}`;
  return {
    users,
    header(caller) {
      switch (caller) {
        case 'anonymous':
          return undefined;
        case 'wrong-password':
          return wrongPassword;
        case 'revoked-token':
          return `Bearer ${revoked.token}`;
        default:
          return users[caller].bearer;
      }
    },
    idOf(caller) {
      return caller in users ? users[caller as Role].id : undefined;
    },
  };
}
