import type { Db } from '../../platform/db/schema.ts';
import type { PostType } from '../calendar.tables.ts';

/** An item an import made before: the post, its kind, and the digest of what the input said then. */
export interface ImportedItem {
  readonly post_id: number;
  readonly type: PostType;
  readonly digest: string;
}

export async function findImported(db: Db, source: string, key: string): Promise<ImportedItem | undefined> {
  return db
    .selectFrom('imported_items as i')
    .innerJoin('post_ids as p', 'p.id', 'i.post_id')
    .select(['i.post_id', 'p.type', 'i.digest'])
    .where('i.source', '=', source)
    .where('i.item_key', '=', key)
    .executeTakeFirst();
}

export async function insertImported(db: Db, item: { source: string; item_key: string; post_id: number; digest: string }): Promise<void> {
  await db.insertInto('imported_items').values(item).execute();
}

export async function updateImportedDigest(db: Db, source: string, key: string, digest: string): Promise<void> {
  await db.updateTable('imported_items').set({ digest }).where('source', '=', source).where('item_key', '=', key).execute();
}
