import { createHash } from 'node:crypto';
import type { AuthUser } from '../../platform/auth/authenticate.ts';
import type { Db } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import { cacheKey, type ReadCache } from '../../platform/cache/read-cache.ts';
import { UniqueViolationError } from '../../platform/db/dialect/errors.ts';
import { can } from '../calendar.capabilities.ts';
import type { Site } from '../common/context.ts';
import { fromInstant } from '../common/dates.ts';
import { sanitizeText } from '../common/html.ts';
import { isBeyondLastPage, pageWindow, totalPages } from '../common/pagination.ts';
import { invalidParam, parseIdList, parseList } from '../common/wire.ts';
import { listVisibility, utcStamp } from '../posts/posts.access.ts';
import { findPostType } from '../posts/posts.repository.ts';
import type { StoredSize } from '../common/images.ts';
import { keysOf, toMedia } from './media.mapper.ts';
import { filenameProblem, freeStem, sizeFileName, stemOfFilename, titleOfFilename } from './media.names.ts';
import { ImageRefused, processImage, type ProcessedImage } from './media.process.ts';
import {
  deleteMedia,
  findAltTexts,
  findFilesOfStem,
  findMedia,
  findMediaIdOfFile,
  insertMedia,
  listMedia,
  updateMedia,
  type MediaFilter,
  type MediaRow,
} from './media.repository.ts';
import { DEFAULT_PER_PAGE, type ListMediaQuery, type Media, type MediaFields, type UploadQuery } from './media.schemas.ts';
import type { MediaStorage } from './media.storage.ts';

export interface Upload {
  readonly bytes: Buffer;
  /** The file name the client gave, as sent. */
  readonly filename: string;
  readonly fields: UploadQuery;
}

export interface MediaPage {
  readonly items: Media[];
  readonly total: number;
  readonly totalPages: number;
}

const UPLOAD_ERRORS: Record<ImageRefused['reason'], string> = {
  unsupported_type: 'rest_upload_invalid_type',
  too_many_pixels: 'rest_upload_too_many_pixels',
  corrupt: 'rest_upload_invalid_image',
};

/** How many names an upload tries when uploads of the same name race it (each attempt names the next free one). */
const MAX_NAME_ATTEMPTS = 5;

/** The name an upload chose was taken by another, in another transaction or process, before it was stored. */
class NameTaken extends Error {
  constructor(readonly file: string) {
    super(`media file name taken meanwhile: ${file}`);
  }
}

/** A name taken: the database's unique file keys, or a directory's file opened exclusively. */
function isNameTaken(error: unknown): boolean {
  return error instanceof UniqueViolationError || (error as NodeJS.ErrnoException | undefined)?.code === 'EEXIST';
}

/** What an upload's row records besides its image. */
interface StoreArgs {
  readonly filename: string;
  readonly fields: UploadQuery;
  readonly parent: number | null;
  readonly user: AuthUser;
  readonly now: Date;
}

/** A stored file as it is served: its bytes and their strong ETag, computed once. */
export interface MediaFile {
  readonly bytes: Buffer;
  readonly etag: string;
}

/**
 * The share of the read cache's per-item budget one file may take: thumbnails and the sizes pages show are kept,
 * a camera's full size is read each time rather than push out hundreds of event representations.
 */
const MAX_CACHED_FILE_SHARE = 64;

const notFound = () => new AppError(404, 'rest_post_invalid_id', 'Invalid post ID.');

/** A `title` or `caption` as sent: a string, or WordPress's `{raw}` / `{rendered}` object read back. */
function textOf(value: string | { raw?: string; rendered?: string } | undefined): string | undefined {
  if (value === undefined || typeof value === 'string') return value === undefined ? undefined : sanitizeText(value).trim();
  const text = value.raw ?? value.rendered;
  return text === undefined ? undefined : sanitizeText(text).trim();
}

/** Whether `user` may change (`edit_others`) or delete (`delete_others`) an upload: their own (authors and above upload), or anyone's. */
export function mayChangeUpload(user: AuthUser | null, authorId: number | null, others: 'edit_others' | 'delete_others'): boolean {
  if (user === null) return false;
  return (authorId === user.id && can(user.role, 'upload_files')) || can(user.role, others);
}

/**
 * The media library (`/wp/v2/media`, docs/media.md): uploads checked and
 * sized (`media.process.ts`), their files in a `MediaStorage` and their rows
 * in `images`, with ids from the posts' sequence.
 */
export class MediaService {
  constructor(
    private readonly db: Db,
    private readonly storage: MediaStorage,
    private readonly site: Site,
    private readonly maxPixels: number,
    private readonly translateError: (error: unknown) => unknown,
    /** Where served files are kept once read (none: each is read from storage every time). */
    private readonly cache?: ReadCache,
    /** The read cache's per-item budget (`EVENT_CACHE_MB`), which files share with event representations. */
    private readonly cacheItemBytes = 0,
  ) {}

  /** Deletions begun: a file read while one runs is not cached, since it may be the deleted image's. */
  private deletions = 0;

  async upload(user: AuthUser, { bytes, filename, fields }: Upload): Promise<Media> {
    const problem = filenameProblem(filename);
    if (problem !== undefined) throw new AppError(400, 'rest_upload_invalid_disposition', problem);
    if (bytes.length === 0) throw new AppError(400, 'rest_upload_no_data', 'No data supplied.');
    const parent = await this.parentOf(fields.post);
    let image: ProcessedImage;
    try {
      image = await processImage(bytes, this.maxPixels);
    } catch (error) {
      if (error instanceof ImageRefused) throw new AppError(400, UPLOAD_ERRORS[error.reason], error.message);
      throw error;
    }
    const now = new Date();
    const local = fromInstant(now.getTime(), this.site.timezone)?.local ?? utcStamp(now);
    const folder = `${local.slice(0, 4)}/${local.slice(5, 7)}`;
    const wish = stemOfFilename(filename);
    // Names another upload took after this one looked: the next attempt passes them by, as WordPress's `-1`, `-2`.
    const raced = new Set<string>();
    for (let attempt = 1; ; attempt += 1) {
      try {
        const id = await this.store(image, folder, wish, raced, { filename, fields, parent, user, now });
        return await this.get(user, id);
      } catch (error) {
        if (!(error instanceof NameTaken)) throw error;
        if (attempt === MAX_NAME_ATTEMPTS)
          throw new AppError(409, 'rest_upload_name_taken', 'Uploads of the same name kept arriving at once: send it again.');
        raced.add(error.file);
      }
    }
  }

  /** Stores `image`'s files and row under the first free name after `wish`; NameTaken when another upload took it meanwhile. */
  private async store(image: ProcessedImage, folder: string, wish: string, raced: ReadonlySet<string>, upload: StoreArgs): Promise<number> {
    const written: string[] = [];
    let file = '';
    try {
      return await this.db.transaction().execute(async (trx) => {
        const taken = new Set([...(await findFilesOfStem(trx, `${folder}/${wish}`)), ...raced]);
        const stem = freeStem(wish, (candidate) => filesOf(image, folder, candidate), taken);
        file = `${folder}/${stem}.${image.extension}`;
        const sizes: Record<string, StoredSize> = {};
        for (const size of image.sizes) {
          const name = sizeFileName(stem, size.width, size.height, image.extension);
          // Two sizes of the same dimensions (a 3:4 portrait's medium_large and large) are one file, as in WordPress.
          if (!written.includes(`${folder}/${name}`)) {
            await this.storage.put(trx, `${folder}/${name}`, size.bytes);
            written.push(`${folder}/${name}`);
          }
          sizes[size.name] = { file: name, width: size.width, height: size.height, filesize: size.bytes.length, mime_type: image.mime };
        }
        await this.storage.put(trx, file, image.full.bytes);
        written.push(file);
        const { width, height } = image.full;
        sizes.full = { file: `${stem}.${image.extension}`, width, height, filesize: image.full.bytes.length, mime_type: image.mime };
        const { filename, fields, parent, user, now } = upload;
        return insertMedia(trx, {
          file,
          extension: image.extension,
          mime_type: image.mime,
          width,
          height,
          filesize: image.full.bytes.length,
          sizes: JSON.stringify(sizes),
          slug: stem,
          title: textOf(fields.title) || titleOfFilename(sanitizeText(filename)) || stem,
          alt_text: fields.alt_text === undefined ? '' : sanitizeText(fields.alt_text).trim(),
          caption: textOf(fields.caption) ?? '',
          parent_id: parent,
          author_id: user.id,
          created_at: utcStamp(now),
        });
      });
    } catch (error) {
      // What a store outside the transaction (a directory) kept of a failed upload; the database's rolled back.
      await this.storage.delete(this.db, written).catch(() => undefined);
      throw isNameTaken(this.translateError(error)) ? new NameTaken(file) : error;
    }
  }

  /** The post an upload is attached to: an event, a venue or an organizer; 0 or none is no post. */
  private async parentOf(post: number | undefined): Promise<number | null> {
    if (post === undefined || post === 0) return null;
    const type = await findPostType(this.db, post);
    if (type === undefined || type === 'image') throw invalidParam('post', 'The post does not exist.');
    return post;
  }

  async get(user: AuthUser | null, id: number): Promise<Media> {
    const row = await findMedia(this.db, id, readersOf(user));
    if (row === undefined) throw notFound();
    return toMedia(row, this.site);
  }

  async list(user: AuthUser | null, query: ListMediaQuery): Promise<MediaPage> {
    const page = query.page ?? 1;
    const perPage = query.per_page ?? DEFAULT_PER_PAGE;
    const filter: MediaFilter = {
      readers: readersOf(user),
      search: query.search,
      // Only images are stored: asking for another type, or a MIME type, narrows the list as WordPress does.
      mimeTypes:
        query.media_type !== undefined && query.media_type !== 'image' ? [] : query.mime_type === undefined ? undefined : [query.mime_type],
      authors: query.author === undefined ? undefined : parseIdList(query.author, 'author'),
      parents: query.parent === undefined ? undefined : parentIds(query.parent),
    };
    const { limit, offset } = pageWindow(page, perPage);
    const { rows, total } = await listMedia(this.db, filter, limit, offset);
    const pages = totalPages(total, perPage);
    if (isBeyondLastPage(page, total, perPage)) {
      throw new AppError(400, 'rest_post_invalid_page_number', 'The page number requested is larger than the number of pages available.');
    }
    return { items: rows.map((row) => toMedia(row, this.site)), total, totalPages: pages };
  }

  async update(user: AuthUser, id: number, fields: MediaFields): Promise<Media> {
    const row = await this.editable(user, id, 'edit_others', 'rest_cannot_edit', 'Sorry, you are not allowed to edit this post.');
    const title = textOf(fields.title);
    const caption = textOf(fields.caption);
    await updateMedia(this.db, row.id, {
      ...(title === undefined ? {} : { title }),
      ...(caption === undefined ? {} : { caption }),
      ...(fields.alt_text === undefined ? {} : { alt_text: sanitizeText(fields.alt_text).trim() }),
    });
    return this.get(user, id);
  }

  /**
   * Deletes an upload and its files; what showed it (events, venues, organizers) shows no image from then on: the
   * foreign key clears their `image`, in the same transaction. Images are never trashed (`force` must be true).
   */
  async remove(user: AuthUser, id: number, force: boolean): Promise<{ deleted: true; previous: Media }> {
    if (!force) {
      throw new AppError(501, 'rest_trash_not_supported', "The post does not support trashing. Set 'force=true' to delete.");
    }
    const row = await this.editable(user, id, 'delete_others', 'rest_cannot_delete', 'Sorry, you are not allowed to delete this post.');
    const previous = toMedia(row, this.site);
    this.deletions += 1;
    await this.db.transaction().execute(async (trx) => {
      const keys = keysOf(row);
      await deleteMedia(trx, row.id, keys);
      await this.storage.delete(trx, keys);
    });
    // Cached files depend on no calendar revision: forgetting them moves none.
    this.cache?.invalidateItems([row.id], Number.NEGATIVE_INFINITY);
    return { deleted: true, previous };
  }

  /** The alternative texts of the images a page shows, by id: what the image shows is the post's, whoever uploaded it. */
  altTexts(ids: readonly number[]): Promise<Map<number, string>> {
    return findAltTexts(this.db, ids);
  }

  /**
   * A stored file, by its key (its path under `/media/`). A file never changes under its key, so once read it is
   * served from the read cache, without storage or hashing, until its image is deleted here (another process
   * forgets it as its cache fills) — as any HTTP cache keeps it for a year.
   */
  async file(key: string): Promise<MediaFile | undefined> {
    const entry = cacheKey('media-file', key);
    const cached = this.cache?.item<MediaFile>(entry);
    if (cached !== undefined) return cached;
    const deletions = this.deletions;
    const [bytes, id] = await Promise.all([this.storage.get(key), findMediaIdOfFile(this.db, key)]);
    if (bytes === undefined || id === undefined) return undefined;
    const file = { bytes, etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"` };
    if (deletions === this.deletions && bytes.length <= this.cacheItemBytes / MAX_CACHED_FILE_SHARE) {
      this.cache?.setItem(entry, [id], file, () => bytes.length + file.etag.length, Number.POSITIVE_INFINITY);
    }
    return file;
  }

  /** The upload, if `user` may change it: their own (authors and above upload), or anyone's with `others`. */
  private async editable(
    user: AuthUser,
    id: number,
    others: 'edit_others' | 'delete_others',
    code: string,
    message: string,
  ): Promise<MediaRow> {
    const row = await findMedia(this.db, id);
    if (row === undefined) throw notFound();
    if (!mayChangeUpload(user, row.author_id, others)) throw new AppError(403, code, message);
    return row;
  }
}

/** Whose images `user` may see beside those uploaded to no post: all of them for editors and administrators. */
function readersOf(user: AuthUser | null): MediaFilter['readers'] {
  const visibility = listVisibility(user);
  if (visibility.kind === 'all-but-trash') return undefined;
  return { scope: { visibility, statuses: undefined, now: utcStamp(new Date()) }, userId: user?.id ?? null };
}

/** `parent` ids: 0 (no post) is allowed here, unlike other id lists. */
function parentIds(raw: unknown): number[] {
  const parts = parseList(raw);
  return [
    ...(parts.includes('0') ? [0] : []),
    ...parseIdList(
      parts.filter((part) => part !== '0'),
      'parent',
    ),
  ];
}

/** The keys of the files an upload of `image` named `stem` stores in `folder`: the whole image and its sizes. */
function filesOf(image: ProcessedImage, folder: string, stem: string): string[] {
  const sizes = image.sizes.map((size) => `${folder}/${sizeFileName(stem, size.width, size.height, image.extension)}`);
  return [`${folder}/${stem}.${image.extension}`, ...sizes];
}
