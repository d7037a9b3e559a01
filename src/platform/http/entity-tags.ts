import { createHash } from 'node:crypto';

/**
 * Entity-tags (RFC 9110 §8.8.3) as the server makes and reads them. A tag is
 * strong and names the bytes of the representation sent: their SHA-1, or for
 * a page assembled from its items' texts the SHA-1 of theirs. The tag of an
 * item that has a row version names that version too, `"<version>-<sha1>"`,
 * so that a write can check a tag against the item it holds without making
 * its representation again (If-Match, §13.1.1). A compressed representation
 * has other bytes, so its own strong tag: the uncompressed one's with the
 * coding after a dot (`"<sha1>.br"`, `"<version>-<sha1>.gz"`; compression.ts).
 */

/** The strong tag of a representation: `"<sha1>"`, or `"<version>-<sha1>"` for an item at that row version. */
export function etagOf(body: string | Buffer, version?: number): string {
  const digest = digestOf(body);
  return version === undefined ? `"${digest}"` : `"${version}-${digest}"`;
}

/** A tag naming `version` alone, for a write whose client kept the version rather than a tag (the editor's form). */
export function versionTag(version: number): string {
  return etagOf('', version);
}

/** The digest a tag is made of: the SHA-1 of `body`, in base64url. */
export function digestOf(body: string | Buffer): string {
  return createHash('sha1').update(body).digest('base64url');
}

/**
 * The strong tag of a representation assembled from parts (a page of items): `"<sha1>"` of its parts'
 * digests, in order. It changes with any byte of any part, and an item's digest is computed once, not with
 * every page that shows it.
 */
export function etagOfParts(digests: readonly string[]): string {
  return `"${digestOf(digests.join('.'))}"`;
}

/** The content codings a tag may name, as they end it. */
export type TagCoding = 'br' | 'gz';

/** The tag of the representation `tag` names, compressed with `coding`. */
export function codedEtag(tag: string, coding: TagCoding): string {
  return `${tag.slice(0, -1)}.${coding}"`;
}

// A digest is 27 characters of base64url, `-` among them: read by its length, one that starts like a version
// (`"3-…"`) is not taken for one.
const VERSIONED = /^"(\d{1,15})-[A-Za-z0-9_-]{27}(?:\.(?:br|gz))?"$/;

/** The row version a tag names; `undefined` for a weak tag, a tag without version, or one this server never made. */
export function versionOfEtag(tag: string): number | undefined {
  const match = VERSIONED.exec(tag);
  return match === null ? undefined : Number(match[1]);
}

// entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE; etagc = %x21 / %x23-7E / obs-text
const ENTITY_TAG = /(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"/y;

/**
 * The tags of an If-Match or If-None-Match field: `*`, or the list (its
 * empty elements skipped, as §5.6.1 asks), or `undefined` when the field is
 * neither (a bare word, an unclosed quote).
 */
export function listedEtags(field: string): '*' | string[] | undefined {
  if (field.trim() === '*') return '*';
  const tags: string[] = [];
  let at = 0;
  let separated = true;
  while (at < field.length) {
    const char = field[at];
    if (char === ' ' || char === '\t') at += 1;
    else if (char === ',') {
      separated = true;
      at += 1;
    } else {
      ENTITY_TAG.lastIndex = at;
      const match = separated ? ENTITY_TAG.exec(field) : null;
      if (match === null) return undefined;
      tags.push(match[0]);
      at = ENTITY_TAG.lastIndex;
      separated = false;
    }
  }
  return tags;
}
