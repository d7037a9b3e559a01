import type { ImageResponse } from '../common/images.ts';
import type { PagesService } from './pages.service.ts';
import type { PageImage } from './pages.views.ts';

/**
 * Images on the pages: the featured image of an event, a venue or an
 * organizer as an `<img>` the browser picks a size of (`srcset` from the
 * sizes of the upload, with its dimensions so nothing jumps as it loads),
 * and the one size that stands for the page in link previews (Open Graph).
 */

/** The width the pages' main column reaches (72rem): the image is never shown wider. */
const SHOWN_SIZES = '(max-width: 72rem) 100vw, 72rem';

/** The size link previews take: WordPress's `large`, or the full size of a smaller image. */
const PREVIEW_SIZE = 'large';

/** What a post's `image` (false or absent when none) shows, with the upload's alternative text. */
export async function pageImageOf(pages: PagesService, image: unknown): Promise<PageImage | undefined> {
  if (image === false || image === undefined || image === null) return undefined;
  const found = image as ImageResponse;
  const alt = (await pages.services.media.altTexts([found.id])).get(found.id) ?? '';
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
