import type { Db } from '../../platform/db/schema.ts';
import '../calendar.tables.ts';

export interface ImageRow {
  id: number;
  url: string;
  extension: string;
}

/** An image with what an upload has besides (`file` null for a recorded URL). */
export interface ImageDetailsRow extends ImageRow {
  file: string | null;
  width: number;
  height: number;
  filesize: number;
  sizes: string;
}

export async function findImagesByIds(db: Db, ids: readonly number[]): Promise<ImageDetailsRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('images')
    .select(['id', 'url', 'extension', 'file', 'width', 'height', 'filesize', 'sizes'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
}

export async function findImageByUrl(db: Db, url: string): Promise<ImageRow | undefined> {
  return db.selectFrom('images').select(['id', 'url', 'extension']).where('url', '=', url).executeTakeFirst();
}

/**
 * Records an image URL, or returns the row already holding it. Concurrent
 * inserts of the same URL meet on the unique index (no aborted transaction).
 */
export async function insertImage(
  db: Db,
  row: { url: string; extension: string; author_id: number | null; created_at: string },
): Promise<number> {
  const { id } = await db.insertInto('post_ids').values({ type: 'image' }).returning('id').executeTakeFirstOrThrow();
  const inserted = await db
    .insertInto('images')
    .values({ id, ...row })
    .onConflict((oc) => oc.column('url').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted !== undefined) return inserted.id;
  await db.deleteFrom('post_ids').where('id', '=', id).execute();
  const existing = await findImageByUrl(db, row.url);
  if (existing === undefined) throw new Error('image row vanished');
  return existing.id;
}

/**
 * Makes `postId` the upload's post (WordPress's `post_parent`) when it has none, or only one since deleted: an image
 * belongs to the first post that shows it, and is seen by that post's readers only (a draft's image stays hidden).
 */
export async function attachImage(db: Db, imageId: number, postId: number): Promise<void> {
  await db
    .updateTable('images')
    .set({ parent_id: postId })
    .where('id', '=', imageId)
    .where('file', 'is not', null)
    .where((eb) =>
      eb.or([
        eb('parent_id', 'is', null),
        eb.not(eb.exists(eb.selectFrom('post_ids').select('id').whereRef('post_ids.id', '=', 'images.parent_id'))),
      ]),
    )
    .execute();
}
