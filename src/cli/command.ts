// What every command of `almanac` is made of: its options, its usage errors, its output and the database it opens.
import type { ParseArgsConfig } from 'node:util';
import type { Config } from '../config/config.ts';
import { createDb, migrateToLatest, type Store } from '../platform/db/database.ts';
import { MIGRATION_FOLDERS } from '../migrations.ts';

export class UsageError extends Error {}

export type Options = Record<string, string | boolean | undefined>;

export interface Command {
  readonly usage: string;
  readonly options: NonNullable<ParseArgsConfig['options']>;
  /** Whether it takes arguments besides its options (a file). */
  readonly positionals?: boolean;
  /** Its exit code, when not 0. */
  readonly run: (options: Options, config: Config, positionals: readonly string[]) => Promise<number | void>;
}

export const out = (line: string) => process.stdout.write(`${line}\n`);

export function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function optional(options: Options, name: string): string | undefined {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
}

/** Opens the database, runs `work`, closes it. */
export async function withOpenStore<T>(config: Config, work: (store: Store) => Promise<T>): Promise<T> {
  const store = createDb(config.databaseUrl, { sqliteSynchronous: config.sqliteSynchronous, sqliteBusyWaitMs: config.sqliteBusyWaitMs });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** Opens the database, migrated, runs `work`, closes it. */
export async function withStore<T>(config: Config, work: (store: Store) => Promise<T>): Promise<T> {
  return withOpenStore(config, async (store) => {
    await migrateToLatest(store.db, MIGRATION_FOLDERS);
    return work(store);
  });
}

export const json = { json: { type: 'boolean' } } as const;
