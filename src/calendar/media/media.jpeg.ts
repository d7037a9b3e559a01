/**
 * A JPEG without its metadata, its compressed image data kept as it is: re-encoding a 12-megapixel photo only
 * to drop its EXIF costs most of an upload's time, and a little of its quality. What is kept is an allowlist —
 * the tables and frames the image needs, a plain JFIF header, Adobe's colour transform flag and the ICC colour
 * profile; EXIF (GPS, camera, thumbnail), XMP, IPTC, comments, multi-picture extensions (gain maps, depth maps) and
 * anything after the end of the image are gone. Anything unexpected gives `undefined`: the caller encodes anew.
 */

const SOI = 0xd8;
const EOI = 0xd9;
const SOS = 0xda;

/** Segments kept whatever they hold: quantization and Huffman tables, restart interval, arithmetic conditioning. */
const TABLES = new Set([0xdb, 0xc4, 0xdd, 0xcc]);

/** Start-of-frame markers (baseline, extended, progressive, lossless; Huffman or arithmetic). */
function isFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function startsWithText(segment: Buffer, text: string): boolean {
  return segment.subarray(4, 4 + text.length).toString('latin1') === text;
}

/** Whether an application segment is one the image's colours depend on (and that carries nothing else). */
function isKeptApplication(marker: number, segment: Buffer): boolean {
  // JFIF without an embedded thumbnail: exactly its 14 bytes of header.
  if (marker === 0xe0) return segment.length === 18 && startsWithText(segment, 'JFIF\0');
  if (marker === 0xe2) return startsWithText(segment, 'ICC_PROFILE\0');
  if (marker === 0xee) return segment.length === 16 && startsWithText(segment, 'Adobe');
  return false;
}

/** The end of a scan's entropy-coded data: the next marker that is not a restart, a stuffed zero or fill. */
function scanEnd(bytes: Buffer, from: number): number {
  for (let at = bytes.indexOf(0xff, from); at !== -1 && at + 1 < bytes.length; at = bytes.indexOf(0xff, at + 1)) {
    const next = bytes[at + 1]!;
    if (next !== 0x00 && next !== 0xff && !(next >= 0xd0 && next <= 0xd7)) return at;
  }
  return -1;
}

/** `bytes` (a JPEG) with only the segments an image needs, up to its end; `undefined` when it is not that simple. */
export function strippedJpeg(bytes: Buffer): Buffer | undefined {
  if (bytes[0] !== 0xff || bytes[1] !== SOI) return undefined;
  const kept: Buffer[] = [bytes.subarray(0, 2)];
  let at = 2;
  let frames = 0;
  while (at + 2 <= bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    if (marker === EOI) {
      kept.push(bytes.subarray(at, at + 2));
      return frames === 1 ? Buffer.concat(kept) : undefined;
    }
    if (at + 4 > bytes.length) return undefined;
    const end = at + 2 + bytes.readUInt16BE(at + 2);
    if (end > bytes.length) return undefined;
    const segment = bytes.subarray(at, end);
    if (marker === SOS) {
      const data = scanEnd(bytes, end);
      if (data === -1) return undefined;
      kept.push(bytes.subarray(at, data));
      at = data;
      continue;
    }
    if (isFrame(marker)) frames += 1;
    else if (!TABLES.has(marker) && !(marker >= 0xe0 && marker <= 0xef) && marker !== 0xfe) return undefined;
    if (isFrame(marker) || TABLES.has(marker) || isKeptApplication(marker, segment)) kept.push(segment);
    at = end;
  }
  return undefined;
}
