import Type from 'typebox';
import type { AuthUser } from '../../platform/auth/authenticate.ts';
import { can } from '../calendar.capabilities.ts';
import type { Db } from '../../platform/db/schema.ts';
import { utcStamp } from '../posts/posts.access.ts';
import { attachImage, findImageByUrl, findImagesByIds, insertImage, type ImageDetailsRow } from './images.repository.ts';
import { invalidParam, isHttpUrl, parsePositiveInt } from './wire.ts';

/** One smaller size of an uploaded image, as the reference shows an attachment's sizes (`mime-type`, no `file`). */
export interface ImageSizeResponse {
  width: number;
  height: number;
  'mime-type': string;
  filesize: number;
  url: string;
}

/**
 * The `image` field of events, venues and organizers (docs/calendar-compatibility.md): `{url, id, extension}` for
 * a recorded URL; an uploaded image adds its `width`, `height`, `filesize` and `sizes` (the full size is the `url`).
 */
export interface ImageResponse {
  url: string;
  id: number;
  extension: string;
  width?: number;
  height?: number;
  filesize?: number;
  sizes?: Record<string, ImageSizeResponse>;
}

const ImageSizeSchema = Type.Object({
  width: Type.Integer(),
  height: Type.Integer(),
  'mime-type': Type.String(),
  filesize: Type.Integer({ description: 'Bytes' }),
  url: Type.String(),
});

/** `ImageResponse` as the response schemas declare it (the optional keys after the others, in the reference's order). */
export const ImageObjectSchema = Type.Object({
  url: Type.String({ description: 'The full size image' }),
  id: Type.Integer(),
  extension: Type.String(),
  width: Type.Optional(Type.Integer({ description: 'Uploaded images only' })),
  height: Type.Optional(Type.Integer({ description: 'Uploaded images only' })),
  filesize: Type.Optional(Type.Integer({ description: 'Bytes; uploaded images only' })),
  sizes: Type.Optional(
    Type.Record(Type.String(), ImageSizeSchema, {
      description: 'Uploaded images only: thumbnail, medium, medium_large, large, those the image is larger than',
    }),
  ),
});

/** Lower-case suffix of the URL's path, `""` if none. */
export function imageExtension(url: string): string {
  const path = new URL(url).pathname;
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/** Whether an `image` value means "no image" (`""`, `0`, `null`, `false`). */
export function isEmptyImage(input: unknown): boolean {
  return input === '' || input === 0 || input === '0' || input === null || input === false;
}

/**
 * The image id an `image` write value designates: the id of a stored image; the URL of an uploaded image's full
 * size under `baseUrl` (that image, as its id would); or another http(s) URL — recorded, never fetched, the same
 * URL reusing its row, and only for users who may upload (a contributor's URL is a 400 as in the reference).
 * `null` for an empty value. Anything else is a 400 naming `param`.
 */
export async function resolveImageForWrite(
  db: Db,
  input: unknown,
  user: AuthUser | null,
  baseUrl: string,
  param = 'image',
): Promise<number | null> {
  if (isEmptyImage(input)) return null;
  const id = parsePositiveInt(input);
  if (id !== undefined) {
    const [image] = await findImagesByIds(db, [id]);
    if (image === undefined) throw invalidParam(param, 'The image does not exist.');
    return image.id;
  }
  if (typeof input !== 'string' || !isHttpUrl(input.trim())) throw invalidParam(param);
  const url = input.trim();
  // An upload's row holds its path under the site (`/media/…`), which moves with BASE_URL.
  const upload = url.startsWith(`${baseUrl}/media/`) ? await findImageByUrl(db, url.slice(baseUrl.length)) : undefined;
  if (upload !== undefined) return upload.id;
  if (user === null || !can(user.role, 'upload_files')) throw invalidParam(param, 'You are not allowed to add images by URL.');
  const existing = await findImageByUrl(db, url);
  if (existing !== undefined) return existing.id;
  return insertImage(db, { url, extension: imageExtension(url), author_id: user.id, created_at: utcStamp(new Date()) });
}

/** Attaches the image a write gave a post (`null`: none) to it, when the image has no post yet (`attachImage`). */
export async function attachWrittenImage(db: Db, imageId: number | null | undefined, postId: number): Promise<void> {
  if (imageId !== null && imageId !== undefined) await attachImage(db, imageId, postId);
}

/** One stored size of an upload, as `images.sizes` keeps it (JSON, written by the media library), by WordPress's size name. */
export interface StoredSize {
  readonly file: string;
  readonly width: number;
  readonly height: number;
  readonly filesize: number;
  readonly mime_type: string;
}

export function sizesOf(row: { readonly sizes: string }): Record<string, StoredSize> {
  return JSON.parse(row.sizes) as Record<string, StoredSize>;
}

/** The folder of an upload's files (`2026/12`), from its full size file. */
export function folderOf(file: string): string {
  return file.slice(0, file.lastIndexOf('/'));
}

/** Where a stored file (by its key, `2026/12/poster.jpg`) is served. */
export function mediaUrl(baseUrl: string, key: string): string {
  return `${baseUrl}/media/${key}`;
}

function imageOf(row: ImageDetailsRow, baseUrl: string): ImageResponse {
  if (row.file === null) return { url: row.url, id: row.id, extension: row.extension };
  const folder = folderOf(row.file);
  const sizes: Record<string, ImageSizeResponse> = {};
  for (const [name, size] of Object.entries(sizesOf(row))) {
    // The reference's sizes are the attachment metadata's, which has no `full`: that is the image's own url.
    if (name === 'full') continue;
    const url = mediaUrl(baseUrl, `${folder}/${size.file}`);
    sizes[name] = { width: size.width, height: size.height, 'mime-type': size.mime_type, filesize: size.filesize, url };
  }
  const { id, extension, width, height, filesize } = row;
  const image: ImageResponse = { url: mediaUrl(baseUrl, row.file), id, extension, width, height, filesize };
  // Falsy entries are dropped, as the reference drops them: an image too small for any size has no `sizes`.
  if (Object.keys(sizes).length > 0) image.sizes = sizes;
  return image;
}

/** Batch-loads image representations for a page of items; uploads' URLs are under `baseUrl`. */
export async function loadImages(db: Db, ids: readonly (number | null)[], baseUrl: string): Promise<Map<number, ImageResponse>> {
  const wanted = ids.filter((id): id is number => id !== null);
  const rows = await findImagesByIds(db, wanted);
  return new Map(rows.map((row) => [row.id, imageOf(row, baseUrl)]));
}
