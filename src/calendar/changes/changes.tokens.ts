import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { LANGUAGES, type Language } from '../../config/config.ts';
import type { ChangeType } from '../calendar.tables.ts';

/**
 * Sync and page tokens: what a client holds between two reads of
 * `/changes`. A token is sealed with AES-256-GCM under a key derived from
 * the one the database keeps (the same for every process): it cannot be
 * forged or edited, and it reveals nothing — not where in the log the sync
 * stands, which moves with changes the caller cannot see, nor the item it
 * resumes after. Every token has a fresh random nonce, and every token of a
 * kind the same length. A token fixes what the sync is of: its item types,
 * its language and its caller.
 */

export const CHANGE_TYPES: readonly ChangeType[] = ['event', 'venue', 'organizer', 'category', 'tag'];

/** What a sync is of, fixed when it starts. */
export interface SyncScope {
  readonly types: readonly ChangeType[];
  readonly language: Language;
  /** The caller's user id; 0 for anonymous callers. */
  readonly user: number;
}

/** Where a sync stands: changes numbered after `from` are new to the client. */
export interface SyncPosition extends SyncScope {
  readonly from: number;
  /** When the client last read (UNIX seconds): tokens expire with the log's retention. */
  readonly issued: number;
  /** Set on a page token: the sync reads changes up to `upTo`, resuming after `after`. */
  readonly page?: { readonly upTo: number; readonly after: { readonly seq: number; readonly type: ChangeType; readonly id: number } };
}

const PURPOSE = 'almanac /changes tokens, AES-256-GCM';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Moves with every change of the sealed layout: a token of another layout is refused (410). */
const LAYOUT = 2;

/**
 * The sealed layout, fixed widths so that a token's length tells nothing:
 * layout, from, issued, types (bits), language, user, then for a page token
 * upTo and the change it resumes after (seq, type, id).
 */
const SYNC_FIELDS = [1, 6, 4, 1, 1, 4] as const;
const PAGE_FIELDS = [6, 6, 1, 4] as const;
const width = (fields: readonly number[]) => fields.reduce((sum, bytes) => sum + bytes, 0);
const SYNC_BYTES = width(SYNC_FIELDS);
const PAGE_BYTES = SYNC_BYTES + width(PAGE_FIELDS);

let derived: { readonly stored: string; readonly key: Buffer } | undefined;

/** The cipher key for the key the database keeps: HKDF-SHA256 with a purpose of its own, so it is used for nothing else. */
function cipherKey(stored: string): Buffer {
  if (derived?.stored !== stored) derived = { stored, key: Buffer.from(hkdfSync('sha256', stored, '', PURPOSE, 32)) };
  return derived.key;
}

/** Item types as bits. */
const typeBits = (types: readonly ChangeType[]) => types.reduce((bits, type) => bits | (1 << CHANGE_TYPES.indexOf(type)), 0);
const typesOf = (bits: number) => CHANGE_TYPES.filter((_, index) => (bits & (1 << index)) !== 0);

function pack(values: readonly number[], fields: readonly number[]): Buffer {
  const bytes = Buffer.alloc(width(fields));
  let offset = 0;
  fields.forEach((size, index) => {
    offset = bytes.writeUIntBE(values[index]!, offset, size);
  });
  return bytes;
}

function unpack(bytes: Buffer, fields: readonly number[]): number[] {
  let offset = 0;
  return fields.map((size) => {
    const value = bytes.readUIntBE(offset, size);
    offset += size;
    return value;
  });
}

export function encodeToken(key: string, position: SyncPosition): string {
  const { page } = position;
  const sync = [LAYOUT, position.from, position.issued, typeBits(position.types), LANGUAGES.indexOf(position.language), position.user];
  const plain =
    page === undefined
      ? pack(sync, SYNC_FIELDS)
      : Buffer.concat([
          pack(sync, SYNC_FIELDS),
          pack([page.upTo, page.after.seq, CHANGE_TYPES.indexOf(page.after.type), page.after.id], PAGE_FIELDS),
        ]);
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', cipherKey(key), nonce);
  const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([nonce, sealed, cipher.getAuthTag()]).toString('base64url');
}

/** What a token seals, or `undefined` when it is not one this calendar sealed whole (forged, edited, cut, of another layout). */
function open(key: string, token: string): Buffer | undefined {
  const bytes = Buffer.from(token, 'base64url');
  // Base64url decoding skips what it cannot read: only the token's own spelling is that token.
  if (bytes.toString('base64url') !== token) return undefined;
  const length = bytes.length - NONCE_BYTES - TAG_BYTES;
  if (length !== SYNC_BYTES && length !== PAGE_BYTES) return undefined;
  const decipher = createDecipheriv('aes-256-gcm', cipherKey(key), bytes.subarray(0, NONCE_BYTES));
  decipher.setAuthTag(bytes.subarray(NONCE_BYTES + length));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, NONCE_BYTES + length)), decipher.final()]);
  } catch {
    return undefined;
  }
}

/** The position a token holds; `undefined` for anything this server did not seal, or sealed in another layout. */
export function decodeToken(key: string, token: string): SyncPosition | undefined {
  const plain = open(key, token);
  if (plain === undefined) return undefined;
  const [layout, from, issued, bits, languageIndex, user] = unpack(plain, SYNC_FIELDS) as [number, number, number, number, number, number];
  const language = LANGUAGES[languageIndex];
  if (layout !== LAYOUT || language === undefined || typesOf(bits).length === 0) return undefined;
  const position = { from, issued, types: typesOf(bits), language, user };
  if (plain.length === SYNC_BYTES) return position;
  const [upTo, seq, typeIndex, id] = unpack(plain.subarray(SYNC_BYTES), PAGE_FIELDS) as [number, number, number, number];
  const type = CHANGE_TYPES[typeIndex];
  return type === undefined ? undefined : { ...position, page: { upTo, after: { seq, type, id } } };
}
