import type { Kysely } from 'kysely';
import type { AuthUser } from '../../platform/auth/authenticate.ts';
import { can } from '../calendar.capabilities.ts';
import type { Database } from '../../platform/db/schema.ts';
import { utcStamp } from '../posts/posts.access.ts';
import { findImageByUrl, findImagesByIds, insertImage } from './images.repository.ts';
import { invalidParam, isHttpUrl, parsePositiveInt } from './wire.ts';

type Db = Kysely<Database>;

/** The `image` field of events, venues and organizers: `{url, id, extension}` (docs/calendar-compatibility.md). */
export interface ImageResponse {
  url: string;
  id: number;
  extension: string;
}

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
 * The image id an `image` write value designates: the id of a stored image,
 * or an http(s) URL — recorded, never fetched, the same URL reusing its row,
 * and only for users who may upload (a contributor's URL is a 400 as in the
 * reference). `null` for an empty value. Anything else is a 400 naming `param`.
 */
export async function resolveImageForWrite(db: Db, input: unknown, user: AuthUser | null, param = 'image'): Promise<number | null> {
  if (isEmptyImage(input)) return null;
  const id = parsePositiveInt(input);
  if (id !== undefined) {
    const [image] = await findImagesByIds(db, [id]);
    if (image === undefined) throw invalidParam(param, 'The image does not exist.');
    return image.id;
  }
  if (typeof input !== 'string' || !isHttpUrl(input.trim())) throw invalidParam(param);
  if (user === null || !can(user.role, 'upload_files')) throw invalidParam(param, 'You are not allowed to add images by URL.');
  const url = input.trim();
  const existing = await findImageByUrl(db, url);
  if (existing !== undefined) return existing.id;
  return insertImage(db, { url, extension: imageExtension(url), author_id: user.id, created_at: utcStamp(new Date()) });
}

/** Batch-loads image representations for a page of items. */
export async function loadImages(db: Db, ids: readonly (number | null)[]): Promise<Map<number, ImageResponse>> {
  const wanted = ids.filter((id): id is number => id !== null);
  const rows = await findImagesByIds(db, wanted);
  return new Map(rows.map((row) => [row.id, { url: row.url, id: row.id, extension: row.extension }]));
}
