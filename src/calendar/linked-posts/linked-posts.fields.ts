import { sanitizeText } from '../common/html.ts';
import { invalidParam, isHttpUrl } from '../common/wire.ts';

/**
 * Validation of the contact fields venues and organizers share: plain-text
 * meta (tags stripped, as `sanitize_text_field`) and the website.
 */

/**
 * Tags removed, as `sanitize_text_field`; `&` and `"` stay literal (an address
 * is text, not HTML), while `<` and `>` of the text stay escaped so that no
 * markup can be rebuilt from entities.
 */
function plainText(value: string): string {
  return sanitizeText(withoutControls(value).replace(/\s+/g, ' '))
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

// eslint-disable-next-line no-control-regex -- control characters are what this matches
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** Text without control characters (a NUL cannot even be stored by PostgreSQL); tabs and line breaks stay. */
export function withoutControls(text: string): string {
  return text.replace(CONTROL_CHARACTERS, '');
}

/** The new value of a plain-text field, or the current one when not sent. */
export function textField(input: Readonly<Record<string, unknown>>, name: string, current: unknown): string {
  const value = input[name];
  if (value === undefined) return String(current ?? '');
  if (value === null) return '';
  if (typeof value !== 'string' && typeof value !== 'number') throw invalidParam(name);
  return plainText(String(value));
}

/** `website`: empty or an absolute http(s) URL, stored as given (returned raw, deviation 14). */
export function websiteField(input: Readonly<Record<string, unknown>>, current: unknown): string {
  const value = input.website;
  if (value === undefined) return String(current ?? '');
  const url = value === null ? '' : String(value).trim();
  if (url !== '' && (!isHttpUrl(url) || withoutControls(url) !== url)) throw invalidParam('website');
  return url;
}
