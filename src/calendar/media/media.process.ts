import type { Sharp } from 'sharp';
import { strippedJpeg } from './media.jpeg.ts';
import { loadSharp } from './media.sharp.ts';

/**
 * Uploaded images made safe and sized, with sharp (libvips). The type is
 * sniffed from the bytes, never taken from the name or the Content-Type;
 * the declared dimensions are checked against `MEDIA_MAX_PIXELS` from the
 * header, before anything is decoded (a decompression bomb costs nothing);
 * every file stored is encoded anew, which drops all metadata (EXIF, GPS,
 * XMP, comments) and anything appended to the image (a polyglot's HTML),
 * after the EXIF orientation is applied to the pixels — but an upright JPEG,
 * whose metadata is cut out of it (`media.jpeg.ts`): encoding 12 megapixels
 * anew was most of an upload's time. The sizes are WordPress's defaults,
 * never upscaled; an animation's sizes are its first frame.
 */

/** The formats accepted, by what their first bytes say. SVG is not one: it is a document that can carry scripts. */
export type ImageFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'avif';

const FORMATS: Record<ImageFormat, { readonly mime: string; readonly extension: string }> = {
  jpeg: { mime: 'image/jpeg', extension: 'jpg' },
  png: { mime: 'image/png', extension: 'png' },
  gif: { mime: 'image/gif', extension: 'gif' },
  webp: { mime: 'image/webp', extension: 'webp' },
  avif: { mime: 'image/avif', extension: 'avif' },
};

export const ACCEPTED_MIME_TYPES = Object.values(FORMATS).map((format) => format.mime);

/** WordPress's default sizes: `crop` cuts to exactly that box, the others fit inside it (0: unbounded). */
const SIZES = [
  { name: 'thumbnail', width: 150, height: 150, crop: true },
  { name: 'medium', width: 300, height: 300, crop: false },
  { name: 'medium_large', width: 768, height: 0, crop: false },
  { name: 'large', width: 1024, height: 1024, crop: false },
] as const;

export type SizeName = (typeof SIZES)[number]['name'] | 'full';

export interface ProcessedFile {
  readonly width: number;
  readonly height: number;
  readonly bytes: Buffer;
}

export interface ProcessedImage {
  readonly format: ImageFormat;
  readonly mime: string;
  readonly extension: string;
  /** The whole image, oriented and without metadata. */
  readonly full: ProcessedFile;
  /** The smaller sizes the image is large enough for, in WordPress's order. */
  readonly sizes: ReadonlyArray<ProcessedFile & { readonly name: SizeName }>;
}

/** Why an upload is not an image we store: the message says it to the client (400). */
export class ImageRefused extends Error {
  constructor(
    readonly reason: 'unsupported_type' | 'too_many_pixels' | 'corrupt',
    message: string,
  ) {
    super(message);
    this.name = 'ImageRefused';
  }
}

function startsWith(bytes: Buffer, signature: readonly number[], at = 0): boolean {
  return signature.every((byte, index) => bytes[at + index] === byte);
}

const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));

/** The format the bytes are, by their signature (file magic); `undefined` for anything else, SVG and HTML included. */
export function sniffFormat(bytes: Buffer): ImageFormat | undefined {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'gif';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'webp';
  // An ISO base media file (`ftyp` box) whose major brand is AVIF's: an image or an image sequence.
  if (startsWith(bytes, ascii('ftyp'), 4) && (startsWith(bytes, ascii('avif'), 8) || startsWith(bytes, ascii('avis'), 8))) return 'avif';
  return undefined;
}

/** The size a WordPress size gives an image of `width`×`height`, or `undefined` when it would not be smaller. */
function sizeBox(
  size: { readonly width: number; readonly height: number; readonly crop: boolean },
  width: number,
  height: number,
): { width: number; height: number } | undefined {
  if (size.crop) {
    const box = { width: Math.min(size.width, width), height: Math.min(size.height, height) };
    return box.width === width && box.height === height ? undefined : box;
  }
  const scale = Math.min(size.width === 0 ? Infinity : size.width / width, size.height === 0 ? Infinity : size.height / height);
  if (scale >= 1) return undefined;
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

function encode(image: Sharp, format: ImageFormat): Sharp {
  switch (format) {
    case 'jpeg':
      return image.jpeg({ quality: 82 });
    case 'png':
      return image.png();
    case 'gif':
      return image.gif();
    case 'webp':
      return image.webp({ quality: 82 });
    case 'avif':
      return image.avif({ quality: 60, effort: 2 });
  }
}

async function output(image: Sharp, format: ImageFormat): Promise<ProcessedFile> {
  const { data, info } = await encode(image, format).toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, bytes: data };
}

function refusalOf(error: unknown, maxPixels: number): ImageRefused {
  const message = error instanceof Error ? error.message : String(error);
  if (/pixel limit/i.test(message)) {
    return new ImageRefused('too_many_pixels', `The image has more pixels than the ${maxPixels} allowed.`);
  }
  return new ImageRefused('corrupt', 'The file is not a readable image: it is corrupt or truncated.');
}

/** The pixels every size is made from: decoded once, at the largest size (a JPEG at the smallest scale still larger). */
type Base = { readonly data: Buffer; readonly info: { width: number; height: number; channels: 1 | 2 | 3 | 4 } };

/**
 * The smaller sizes of an image of `width`×`height`: one decode (the first frame, oriented) to the largest of
 * them, then each made from those pixels and encoded at once (libvips runs each pipeline on a worker thread).
 */
async function sizesOf(source: Sharp, format: ImageFormat, width: number, height: number): Promise<ProcessedImage['sizes']> {
  const boxes = SIZES.flatMap((size) => {
    const box = sizeBox(size, width, height);
    return box === undefined ? [] : [{ size, box }];
  });
  if (boxes.length === 0) return [];
  const sharp = await loadSharp();
  // The base is as large as the size that keeps the most of the image's resolution (a crop may keep more than a fit).
  const scaleOf = ({ box }: (typeof boxes)[number]) => Math.max(box.width / width, box.height / height);
  const finest = boxes.reduce((most, entry) => (scaleOf(entry) > scaleOf(most) ? entry : most));
  const scale = scaleOf(finest);
  const baseBox = !finest.size.crop
    ? finest.box
    : scale < 1
      ? { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) }
      : undefined;
  const decoded = baseBox === undefined ? source : source.resize({ ...baseBox, fit: 'fill' });
  const base: Base = await decoded.raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  return Promise.all(
    boxes.map(async ({ size, box }) => {
      const resized = sharp(base.data, { raw: base.info }).resize({ ...box, fit: size.crop ? 'cover' : 'fill' });
      return { name: size.name, ...(await output(resized, format)) };
    }),
  );
}

/** The image `bytes` hold, checked, oriented, stripped of metadata and sized; an `ImageRefused` otherwise. */
export async function processImage(bytes: Buffer, maxPixels: number): Promise<ProcessedImage> {
  const format = sniffFormat(bytes);
  if (format === undefined) {
    throw new ImageRefused('unsupported_type', `The file is not an image of an accepted type (${ACCEPTED_MIME_TYPES.join(', ')}).`);
  }
  // `failOn: 'warning'`: a truncated or damaged image is refused, not stored half grey.
  const options = { limitInputPixels: maxPixels, failOn: 'warning' } as const;
  const sharp = await loadSharp();
  try {
    const header = await sharp(bytes, options).metadata();
    const animated = (header.pages ?? 1) > 1 && (format === 'gif' || format === 'webp');
    const orientation = header.orientation ?? 1;
    // An animation's height is a frame's (the header's first page); turned a quarter, width and height swap.
    const [width, height] = [header.width, animated ? (header.pageHeight ?? header.height) : header.height];
    const [fullWidth, fullHeight] = orientation >= 5 ? [height, width] : [width, height];
    // An upright JPEG in RGB or grey needs no new pixels: its metadata is cut out and its image data kept as it is.
    const upright = format === 'jpeg' && orientation === 1 && (header.space === 'srgb' || header.space === 'b-w');
    const stripped = upright ? strippedJpeg(bytes) : undefined;
    // The stripped file is what is decoded for the sizes: what is stored is what was found to be a whole image.
    const source = stripped ?? bytes;
    const [full, sizes] = await Promise.all([
      // Each frame of an animation counts: `limitInputPixels` checks the whole strip the frames are decoded into.
      stripped === undefined ? output(sharp(bytes, { ...options, animated }).autoOrient(), format) : { bytes: stripped },
      sizesOf(sharp(source, options).autoOrient(), format, fullWidth, fullHeight),
    ]);
    // A file with no size to make is decoded whole all the same: a damaged one is refused.
    if (stripped !== undefined && sizes.length === 0) await sharp(stripped, options).raw().toBuffer();
    return { format, ...FORMATS[format], full: { width: fullWidth, height: fullHeight, bytes: full.bytes }, sizes };
  } catch (error) {
    throw refusalOf(error, maxPixels);
  }
}
