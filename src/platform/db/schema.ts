import type { Generated, Kysely } from 'kysely';

/**
 * The database as Kysely sees it. Each surface adds its own tables by
 * augmenting this interface in its `*.tables.ts` file, so the platform does
 * not need to know about them.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Database extends PlatformTables {}

/** The database handle every repository takes: a connection pool, or a transaction. */
export type Db = Kysely<Database>;

export interface PlatformTables {
  users: UserTable;
  api_tokens: ApiTokenTable;
  auth_failures: AuthFailureTable;
  sessions: SessionTable;
  revisions: RevisionTable;
}

export interface UserTable {
  id: Generated<number>;
  username: string;
  display_name: string;
  email: string;
  role: string;
  password_hash: string;
  created_at: string;
}

export interface ApiTokenTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  /** SHA-256 (hex) of the token: tokens are high-entropy, a fast hash is enough. */
  token_hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** A signed-in browser (the editor's cookie); deleting the row signs it out everywhere. */
export interface SessionTable {
  /** SHA-256 (hex) of the cookie's token. */
  id: string;
  user_id: number;
  /** A digest of the user's password hash at sign-in: a new password ends the session. */
  credential: string;
  created_at_ms: number;
  last_seen_ms: number;
  /** The absolute end, whatever the activity. */
  expires_at_ms: number;
}

/** One row per failed login, per (username, address); read to decide lockouts. */
export interface AuthFailureTable {
  id: Generated<number>;
  /** What was guessed: `login` or `post-password` (counted apart). */
  bucket: Generated<string>;
  /** The username, or a namespaced subject such as `post:12`. */
  username: string;
  address: string;
  failed_at_ms: number;
}

/**
 * A counter per kind of cached data (`auth`, and those surfaces add), bumped by
 * database triggers in every transaction that writes the tables it covers:
 * what a process caches is keyed by it (revisions.ts).
 */
export interface RevisionTable {
  name: string;
  value: number;
}
