import { sanitizeText } from '../shared/html.ts';
import { invalidParam, isHttpUrl } from '../shared/wire.ts';

/**
 * Validation of the contact fields venues and organizers share: plain-text
 * meta (tags stripped, as `sanitize_text_field`) and the website.
 */

/** The new value of a plain-text field, or the current one when not sent. */
export function textField(input: Readonly<Record<string, unknown>>, name: string, current: unknown): string {
  const value = input[name];
  if (value === undefined) return String(current ?? '');
  if (value === null) return '';
  if (typeof value !== 'string' && typeof value !== 'number') throw invalidParam(name);
  return sanitizeText(String(value));
}

/** `website`: empty or an absolute http(s) URL, stored as given (returned raw, deviation 14). */
export function websiteField(input: Readonly<Record<string, unknown>>, current: unknown): string {
  const value = input.website;
  if (value === undefined) return String(current ?? '');
  const url = value === null ? '' : String(value).trim();
  if (url !== '' && !isHttpUrl(url)) throw invalidParam('website');
  return url;
}
