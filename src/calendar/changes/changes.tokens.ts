import { createHmac, timingSafeEqual } from 'node:crypto';
import { LANGUAGES, type Language } from '../../config/config.ts';
import type { ChangeType } from '../calendar.tables.ts';

/**
 * Sync and page tokens: what a client holds between two reads of
 * `/changes`, signed so that it cannot be forged or edited (HMAC-SHA256
 * with the key the database keeps, the same for every process), and opaque
 * (base64url). A token fixes what the sync is of: its item types, its
 * language and its caller.
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

type Packed = [
  version: 1,
  from: number,
  issued: number,
  types: number,
  language: Language,
  user: number,
  page?: [number, number, number, number],
];

const SIGNATURE_BYTES = 16;

function sign(key: string, body: string): Buffer {
  return createHmac('sha256', key).update(body).digest().subarray(0, SIGNATURE_BYTES);
}

/** Item types as bits (the token stays short). */
const typeBits = (types: readonly ChangeType[]) => types.reduce((bits, type) => bits | (1 << CHANGE_TYPES.indexOf(type)), 0);
const typesOf = (bits: number) => CHANGE_TYPES.filter((_, index) => (bits & (1 << index)) !== 0);

export function encodeToken(key: string, position: SyncPosition): string {
  const { page } = position;
  const packed: Packed = [1, position.from, position.issued, typeBits(position.types), position.language, position.user];
  if (page !== undefined) packed.push([page.upTo, page.after.seq, CHANGE_TYPES.indexOf(page.after.type), page.after.id]);
  const body = Buffer.from(JSON.stringify(packed)).toString('base64url');
  return `${body}.${sign(key, body).toString('base64url')}`;
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** The position a token holds; `undefined` for anything this server did not sign, or signed in another form. */
export function decodeToken(key: string, token: string): SyncPosition | undefined {
  const [body, signature, extra] = token.split('.');
  if (body === undefined || signature === undefined || extra !== undefined) return undefined;
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== SIGNATURE_BYTES || !timingSafeEqual(given, sign(key, body))) return undefined;
  let packed: unknown;
  try {
    packed = JSON.parse(Buffer.from(body, 'base64url').toString());
  } catch {
    return undefined;
  }
  if (!Array.isArray(packed) || packed[0] !== 1 || packed.length < 6 || packed.length > 7) return undefined;
  const [, from, issued, bits, language, user, page] = packed as unknown[];
  if (!isCount(from) || !isCount(issued) || !isCount(bits) || !isCount(user)) return undefined;
  if (!LANGUAGES.includes(language as Language) || typesOf(bits).length === 0) return undefined;
  const position = { from, issued, types: typesOf(bits), language: language as Language, user };
  if (page === undefined) return position;
  if (!Array.isArray(page) || page.length !== 4 || !page.every(isCount)) return undefined;
  const [upTo, seq, typeIndex, id] = page as number[];
  const type = CHANGE_TYPES[typeIndex!];
  if (type === undefined) return undefined;
  return { ...position, page: { upTo: upTo!, after: { seq: seq!, type, id: id! } } };
}
