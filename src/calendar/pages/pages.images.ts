import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.ts';
import { loadImages, type ImageResponse } from '../common/images.ts';
import type { Thumbnail } from './pages.present.ts';

/**
 * Images on the pages: the featured image of an event, a venue or an
 * organizer as an `<img>` the browser picks a size of (`srcset` from the
 * sizes of the upload, with its dimensions so nothing jumps as it loads),
 * the one size that stands for the page in link previews (Open Graph), and
 * the thumbnails of the events on a card (list, week and day views).
 */

/** An `<img>`'s attributes; an image recorded by URL has no dimensions and no sizes. */
export interface PageImage {
  readonly url: string;
  readonly alt: string;
  readonly width?: number;
  readonly height?: number;
  readonly srcset?: string;
  readonly sizes?: string;
}

/** Where the alternative texts of uploads are read (the media library). */
export interface AltTexts {
  altTexts(ids: readonly number[]): Promise<Map<number, string>>;
}

/** The width the pages' main column reaches (72rem): the image is never shown wider. */
const SHOWN_SIZES = '(max-width: 72rem) 100vw, 72rem';

/** The size link previews take: WordPress's `large`, or the full size of a smaller image. */
const PREVIEW_SIZE = 'large';

/** What a post's `image` (false or absent when none) shows, with the upload's alternative text. */
export async function pageImageOf(media: AltTexts, image: unknown): Promise<PageImage | undefined> {
  if (image === false || image === undefined || image === null) return undefined;
  const found = image as ImageResponse;
  const alt = (await media.altTexts([found.id])).get(found.id) ?? '';
  if (found.width === undefined || found.height === undefined) return { url: found.url, alt };
  // The thumbnail is cropped square: the other sizes keep the image's shape, as a srcset's candidates must.
  const candidates = Object.entries(found.sizes ?? {})
    .filter(([name]) => name !== 'thumbnail')
    .map(([, size]) => `${size.url} ${size.width}w`);
  const srcset = [...candidates, `${found.url} ${found.width}w`].join(', ');
  return { url: found.url, alt, width: found.width, height: found.height, srcset, sizes: SHOWN_SIZES };
}

/** The image a page's Open Graph tags name: the large size if the image has one. */
export function previewImageOf(image: unknown, alt: string | undefined): PageImage | undefined {
  if (image === false || image === undefined || image === null) return undefined;
  const found = image as ImageResponse;
  const size = found.sizes?.[PREVIEW_SIZE];
  if (size !== undefined) return { url: size.url, width: size.width, height: size.height, alt: alt ?? '' };
  return { url: found.url, width: found.width, height: found.height, alt: alt ?? '' };
}

/** The thumbnail of `image` (none for an image recorded by URL, which has no sizes), `alt` its alternative text. */
export function thumbnailOf(image: ImageResponse | false | undefined, alt: string | undefined): Thumbnail | undefined {
  const size = image === false || image === undefined ? undefined : (image.sizes?.thumbnail ?? image.sizes?.medium);
  return size === undefined ? undefined : { src: size.url, width: size.width, height: size.height, alt: alt ?? '' };
}

/** The thumbnails of the images `ids` names (one query for the images, one for their alternative texts), by id. */
export async function thumbnailsOf(
  db: Kysely<Database>,
  media: AltTexts,
  baseUrl: string,
  ids: readonly number[],
): Promise<Map<number, Thumbnail>> {
  if (ids.length === 0) return new Map();
  const [images, alts] = await Promise.all([loadImages(db, ids, baseUrl), media.altTexts(ids)]);
  const found = new Map<number, Thumbnail>();
  for (const [id, image] of images) {
    const thumbnail = thumbnailOf(image, alts.get(id));
    if (thumbnail !== undefined) found.set(id, thumbnail);
  }
  return found;
}
