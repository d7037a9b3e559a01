import sharp from 'sharp';

/** Images made in the test (no binary fixtures) and uploads as WordPress clients send them. */

export const MEDIA = '/wp/v2/media';

/** An image of `width`×`height` in one colour, in `format`. */
export function picture(width: number, height: number, format: 'jpeg' | 'png' | 'webp', colour = '#c33'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } })
    .toFormat(format)
    .toBuffer();
}

/** A JPEG of `width`×`height` in one colour. */
export function jpeg(width: number, height: number, colour = '#c33'): Promise<Buffer> {
  return picture(width, height, 'jpeg', colour);
}

/** A raw upload: the bytes as the body, named by Content-Disposition (wpapi, api-fetch). */
export function raw(bytes: Buffer, filename: string, type = 'image/jpeg'): { body: Buffer; headers: Record<string, string> } {
  return { body: bytes, headers: { 'content-type': type, 'content-disposition': `attachment; filename="${filename}"` } };
}

/** The path of a served URL, for the test server's `request`. */
export function pathOf(url: string): string {
  return new URL(url).pathname;
}

/** The bytes as a multipart file part. */
export function blob(bytes: Buffer): Blob {
  return new Blob([new Uint8Array(bytes)]);
}
