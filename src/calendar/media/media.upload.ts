import { invalidParam, MAX_ID, NO_NUL_PATTERN } from '../common/wire.ts';
import type { UploadQuery } from './media.schemas.ts';

const TEXT_FIELDS = { title: 500, alt_text: 1000, caption: 5000 } as const;
const noNul = new RegExp(NO_NUL_PATTERN);

/**
 * The fields of a multipart upload (its parts other than the file), held
 * to the rules the query string's are: texts without NUL within their
 * lengths, `post` an id. Other parts are ignored, as WordPress does.
 */
export function uploadFieldsOf(parts: Readonly<Record<string, string>>): UploadQuery {
  const fields: { -readonly [K in keyof UploadQuery]: UploadQuery[K] } = {};
  for (const [name, max] of Object.entries(TEXT_FIELDS) as [keyof typeof TEXT_FIELDS, number][]) {
    const value = parts[name];
    if (value === undefined) continue;
    if (value.length > max || !noNul.test(value)) throw invalidParam(name);
    fields[name] = value;
  }
  if (parts.post !== undefined) {
    const post = /^\d+$/.test(parts.post.trim()) ? Number(parts.post.trim()) : NaN;
    if (!(post >= 0 && post <= MAX_ID)) throw invalidParam('post');
    fields.post = post;
  }
  return fields;
}
