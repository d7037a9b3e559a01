import { sql, type Selectable, type Updateable } from 'kysely';
import type { Db } from '../../platform/db/schema.ts';
import type { ImageTable } from '../calendar.tables.ts';
import type { StatusScope } from '../posts/posts.access.ts';
import { likePattern, visibleIn } from '../posts/posts.repository.ts';
import '../calendar.tables.ts';
import './media.tables.ts';

/** An uploaded image's row: `file` is set (recorded URLs are not media). */
export type MediaRow = Selectable<ImageTable> & { file: string };

export interface NewMedia {
  readonly file: string;
  readonly extension: string;
  readonly mime_type: string;
  readonly width: number;
  readonly height: number;
  readonly filesize: number;
  readonly sizes: string;
  readonly slug: string;
  readonly title: string;
  readonly alt_text: string;
  readonly caption: string;
  readonly parent_id: number | null;
  readonly author_id: number;
  readonly created_at: string;
}

export interface MediaFilter {
  /**
   * Who asks: an image uploaded to a post is shown only to those who may see that post (a draft's, a private
   * post's, a protected post's images are its readers' alone), and always to its uploader. `undefined`: everyone's.
   */
  readonly readers?: { readonly scope: StatusScope; readonly userId: number | null };
  readonly search?: string;
  readonly mimeTypes?: readonly string[];
  readonly authors?: readonly number[];
  readonly parents?: readonly number[];
}

export async function insertStoredFile(trx: Db, key: string, bytes: Buffer): Promise<void> {
  await trx.insertInto('media_files').values({ key, bytes }).execute();
}

export async function readStoredFile(db: Db, key: string): Promise<Buffer | undefined> {
  const row = await db.selectFrom('media_files').select('bytes').where('key', '=', key).executeTakeFirst();
  return row === undefined ? undefined : Buffer.from(row.bytes);
}

export async function deleteStoredFiles(trx: Db, keys: readonly string[]): Promise<void> {
  if (keys.length > 0)
    await trx
      .deleteFrom('media_files')
      .where('key', 'in', [...keys])
      .execute();
}

/**
 * Files named `stem…` in a month's folder (`2026/12/poster`) that a new upload's names must differ from: uploads'
 * files, and every file of a deleted image (a name once served is never given again).
 */
export async function findFilesOfStem(db: Db, stem: string): Promise<Set<string>> {
  const pattern = likePattern(stem);
  const [uploads, retired] = await Promise.all([
    db
      .selectFrom('images')
      .select('file')
      .where(sql<boolean>`file like ${pattern} escape '\\'`)
      .execute(),
    db
      .selectFrom('media_retired_files')
      .select('key')
      .where(sql<boolean>`key like ${pattern} escape '\\'`)
      .execute(),
  ]);
  return new Set([...uploads.flatMap((row) => (row.file === null ? [] : [row.file])), ...retired.map((row) => row.key)]);
}

/** The upload a stored file (its key) is a size of, or `undefined` when none is: a file outlives no image. */
export async function findMediaIdOfFile(db: Db, key: string): Promise<number | undefined> {
  const slash = key.lastIndexOf('/');
  const row = await db
    .selectFrom('images')
    .select('id')
    .where(sql<boolean>`file like ${likePattern(key.slice(0, slash + 1))} escape '\\'`)
    .where((eb) => eb.or([eb('file', '=', key), sql<boolean>`sizes like ${likePattern(`"file":"${key.slice(slash + 1)}"`)} escape '\\'`]))
    .executeTakeFirst();
  return row?.id;
}

/** A new upload, its id from the posts' sequence; its URL column holds its path (unique as the file is). */
export async function insertMedia(trx: Db, media: NewMedia): Promise<number> {
  const { id } = await trx.insertInto('post_ids').values({ type: 'image' }).returning('id').executeTakeFirstOrThrow();
  await trx
    .insertInto('images')
    .values({ id, url: `/media/${media.file}`, ...media })
    .execute();
  return id;
}

export async function findMedia(db: Db, id: number, readers?: MediaFilter['readers']): Promise<MediaRow | undefined> {
  const row = await filtered(db, { readers }).selectAll().where('id', '=', id).executeTakeFirst();
  return row as MediaRow | undefined;
}

/** Whether the image's post (if any) is one `readers` may see; a post since deleted leaves its images to everyone. */
function parentVisible(readers: NonNullable<MediaFilter['readers']>) {
  const shown = (table: 'events' | 'venues' | 'organizers') =>
    sql<boolean>`exists (select 1 from ${sql.table(table)} p where p.id = images.parent_id and ${visibleIn('p', readers.scope)}${
      readers.scope.visibility.kind === 'all-but-trash' ? sql`` : sql` and p.password_hash is null`
    })`;
  const own = readers.userId === null ? sql`` : sql` or images.author_id = ${readers.userId}`;
  return sql<boolean>`(images.parent_id is null${own} or not exists (select 1 from post_ids where post_ids.id = images.parent_id)
    or ${shown('events')} or ${shown('venues')} or ${shown('organizers')})`;
}

function filtered(db: Db, filter: MediaFilter) {
  let query = db.selectFrom('images').where('file', 'is not', null);
  if (filter.readers !== undefined) query = query.where(parentVisible(filter.readers));
  if (filter.search !== undefined && filter.search !== '') {
    const pattern = likePattern(filter.search.toLowerCase());
    query = query.where(
      sql<boolean>`(lower(title) like ${pattern} escape '\\' or lower(caption) like ${pattern} escape '\\' or lower(alt_text) like ${pattern} escape '\\' or slug like ${pattern} escape '\\')`,
    );
  }
  if (filter.mimeTypes !== undefined) query = query.where('mime_type', 'in', filter.mimeTypes.length === 0 ? [''] : [...filter.mimeTypes]);
  if (filter.authors !== undefined && filter.authors.length > 0) query = query.where('author_id', 'in', [...filter.authors]);
  if (filter.parents !== undefined && filter.parents.length > 0) {
    // `parent=0`: images uploaded to no post, as WordPress says it.
    const ids = filter.parents.filter((id) => id !== 0);
    query = query.where((eb) =>
      eb.or([
        ...(ids.length > 0 ? [eb('parent_id', 'in', ids)] : []),
        ...(filter.parents!.includes(0) ? [eb('parent_id', 'is', null)] : []),
      ]),
    );
  }
  return query;
}

/** A page of uploads, newest first, and how many match. */
export async function listMedia(db: Db, filter: MediaFilter, limit: number, offset: number): Promise<{ rows: MediaRow[]; total: number }> {
  const rows = await filtered(db, filter)
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  const count = await filtered(db, filter)
    .select((eb) => eb.fn.countAll<number | string>().as('total'))
    .executeTakeFirstOrThrow();
  return { rows: rows as MediaRow[], total: Number(count.total) };
}

export async function updateMedia(
  trx: Db,
  id: number,
  values: Updateable<Pick<ImageTable, 'title' | 'alt_text' | 'caption' | 'parent_id'>>,
): Promise<void> {
  await trx.updateTable('images').set(values).where('id', '=', id).execute();
}

/**
 * Deletes the image row and its id; what used it loses it (`image_id` is set null by the foreign key, in this
 * transaction). Its files' `keys` are retired, never to be given to another upload.
 */
export async function deleteMedia(trx: Db, id: number, keys: readonly string[]): Promise<void> {
  await trx.deleteFrom('images').where('id', '=', id).execute();
  await trx.deleteFrom('post_ids').where('id', '=', id).execute();
  if (keys.length > 0) {
    await trx
      .insertInto('media_retired_files')
      .values(keys.map((key) => ({ key })))
      .onConflict((conflict) => conflict.column('key').doNothing())
      .execute();
  }
}

/** The alternative texts of images, by id (those without one are left out). */
export async function findAltTexts(db: Db, ids: readonly number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('images')
    .select(['id', 'alt_text'])
    .where('id', 'in', [...new Set(ids)])
    .where('alt_text', '<>', '')
    .execute();
  return new Map(rows.map((row) => [row.id, row.alt_text]));
}
