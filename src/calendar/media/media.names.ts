import { sanitizeSlug } from '../posts/posts.slugs.ts';

/**
 * The names of uploaded files. A client names its file in
 * `Content-Disposition` (or a multipart part); that name only ever gives a
 * slug — the stored file is `YYYY/MM/<slug>.<extension of the sniffed
 * type>` — and a name that tries to leave its folder is refused outright.
 */

const MAX_STEM_LENGTH = 80;

/** The file name a `Content-Disposition: attachment; filename="…"` (or `filename*=UTF-8''…`) gives, as sent. */
export function filenameOfDisposition(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const extended = /(?:^|;)\s*filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]*)/i.exec(header);
  if (extended !== null) {
    try {
      return decodeURIComponent(extended[1]!.trim());
    } catch {
      return undefined;
    }
  }
  const quoted = /(?:^|;)\s*filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header);
  if (quoted !== null) return quoted[1]!.replace(/\\(.)/g, '$1');
  const bare = /(?:^|;)\s*filename\s*=\s*([^;\s]+)/i.exec(header);
  return bare === null ? undefined : bare[1];
}

/** Why a file name is refused, or `undefined` when it is a plain name: no NUL or control character, no folder. */
export function filenameProblem(name: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'The file name contains a NUL or control character.';
  if (/[/\\]/.test(name) || name === '..' || name === '.') return 'The file name contains a path (/, \\ or ..): send the name alone.';
  if (name.trim() === '') return 'The file name is empty.';
  return undefined;
}

/** The name without its extension, as WordPress titles an upload by default. */
export function titleOfFilename(name: string): string {
  const dot = name.lastIndexOf('.');
  return (dot > 0 ? name.slice(0, dot) : name).trim();
}

/** The slug the stored file is named after: the title's, or `image`. */
export function stemOfFilename(name: string): string {
  return sanitizeSlug(titleOfFilename(name)).slice(0, MAX_STEM_LENGTH).replace(/-$/, '') || 'image';
}

/** The file of one size of an image: `poster-150x150.jpg`, as WordPress names it. */
export function sizeFileName(stem: string, width: number, height: number, extension: string): string {
  return `${stem}-${width}x${height}.${extension}`;
}

/** `stem`, or the first of `stem-1`, `stem-2`… none of whose files (`filesOf`) is taken (WordPress's rule). */
export function freeStem(stem: string, filesOf: (candidate: string) => readonly string[], taken: ReadonlySet<string>): string {
  let candidate = stem;
  for (let suffix = 1; filesOf(candidate).some((file) => taken.has(file)); suffix += 1) candidate = `${stem}-${suffix}`;
  return candidate;
}

/** A name for the stored file from the URL's last path segment; the media library makes a slug of it. */
export function filenameOfUrl(url: string): string {
  const path = new URL(url).pathname;
  let name = path.slice(path.lastIndexOf('/') + 1);
  try {
    name = decodeURIComponent(name);
  } catch {
    // A malformed escape: the segment as written names it as well.
  }
  // eslint-disable-next-line no-control-regex -- what a decoded name may hold and a file name may not
  const plain = name.replace(/[/\\\u0000-\u001f\u007f]/g, '-').replace(/^\.+$/, '');
  return plain.trim() === '' ? 'image' : plain;
}
