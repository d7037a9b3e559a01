import type { Kysely } from 'kysely';
import type { Config } from '../../config/config.ts';
import type { Database } from '../../platform/db/schema.ts';
import { utcStamp } from '../posts/posts.access.ts';
import { pruneRemovals } from './changes.repository.ts';

/** How long sync tokens stay valid and removals are retained (`CHANGES_RETENTION_DAYS`), in seconds. */
export function retentionSeconds(config: Pick<Config, 'changesRetentionDays'>): number {
  return config.changesRetentionDays * 86_400;
}

/**
 * Forgets the removals older than `olderThanSeconds`: maintenance of the log, run by `almanac changes prune` and by
 * the server every hour with CHANGES_RETENTION_DAYS, so it needs only the database (not the services a sync reads through).
 */
export async function pruneChangeLog(
  db: Kysely<Database>,
  olderThanSeconds: number,
  now = new Date(),
): Promise<{ pruned: number; floor: number }> {
  const before = utcStamp(new Date(now.getTime() - olderThanSeconds * 1000));
  return db.transaction().execute((trx) => pruneRemovals(trx, before));
}
