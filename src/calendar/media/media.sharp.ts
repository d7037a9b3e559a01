import type Sharp from 'sharp';

/**
 * sharp, imported when an image is first processed: libvips and its threads take about 27 MB of a process that
 * may never process one (serving stored files needs none of it). Its operation cache is off: every upload is a new
 * image, and libvips would keep up to 50 MB of decoded ones.
 */
export async function loadSharp(): Promise<typeof Sharp> {
  const { default: sharp } = await import('sharp');
  sharp.cache(false);
  return sharp;
}
