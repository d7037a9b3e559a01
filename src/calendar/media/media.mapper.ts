import { fromInstant } from '../common/dates.ts';
import { folderOf, mediaUrl, sizesOf } from '../common/images.ts';
import type { Media } from './media.schemas.ts';
import type { MediaRow } from './media.repository.ts';

/** Every storage key of an upload: its full size and each smaller one. */
export function keysOf(row: Pick<MediaRow, 'file' | 'sizes'>): string[] {
  const folder = folderOf(row.file);
  return [row.file, ...Object.values(sizesOf(row)).map((size) => `${folder}/${size.file}`)].filter(
    (key, index, keys) => keys.indexOf(key) === index,
  );
}

const isoOf = (stamp: string) => stamp.replace(' ', 'T');

/** An upload as `/wp/v2/media` represents it. */
export function toMedia(row: MediaRow, site: { readonly baseUrl: string; readonly timezone: string }): Media {
  const folder = folderOf(row.file);
  const source = mediaUrl(site.baseUrl, row.file);
  const sizes = Object.fromEntries(
    Object.entries(sizesOf(row)).map(([name, size]) => [name, { ...size, source_url: mediaUrl(site.baseUrl, `${folder}/${size.file}`) }]),
  );
  const local = fromInstant(Date.parse(`${isoOf(row.created_at)}Z`), site.timezone)?.local ?? row.created_at;
  return {
    id: row.id,
    date: isoOf(local),
    date_gmt: isoOf(row.created_at),
    slug: row.slug,
    status: 'inherit',
    type: 'attachment',
    link: source,
    title: { rendered: row.title },
    author: row.author_id ?? 0,
    alt_text: row.alt_text,
    caption: { rendered: row.caption === '' ? '' : `<p>${row.caption}</p>\n` },
    media_type: 'image',
    mime_type: row.mime_type,
    media_details: { width: row.width, height: row.height, file: row.file, filesize: row.filesize, sizes, image_meta: {} },
    post: row.parent_id,
    source_url: source,
  };
}
