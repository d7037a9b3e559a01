import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import { ByteBoundedMap } from '../cache/byte-bounded-map.ts';
import { addVary } from './cache-control.ts';
import { codedEtag, digestOf, type TagCoding } from './entity-tags.ts';

/**
 * Content codings (RFC 9110 §8.4, §12.5.3): a text answer that any cache may
 * keep (`public`) is sent brotli- or gzip-compressed to a client that
 * accepts it — a month page of 120 kB reaches a phone as 9 kB. Answers for
 * someone (credentials, a cookie, a password: `private`) are sent as they
 * are, since compressing a secret (a form's token) beside text the caller
 * chose lets an eavesdropper guess it from the answer's size (BREACH).
 *
 * A compressed answer has other bytes than the uncompressed one, so a strong
 * tag of its own: the uncompressed answer's with the coding after a dot
 * (`"….br"`, entity-tags.ts). If-None-Match is compared with the tag of
 * what the request would be sent (conditional-get.ts asks `codingOf`), and
 * If-Match reads the item's version from any. A compressed copy is made
 * once per body and coding, on the libuv pool, and kept in a byte-bounded
 * map under the body's strong tag (which names its bytes), or its digest
 * when it has none.
 */

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's answers are never compressed: their tags must be those its other answers name (CalDAV's getetag). */
    sentAsItIs?: boolean;
  }
}

export interface CompressionOptions {
  /** Bytes of compressed copies a process keeps; 0 = none kept, each answer compressed as it is sent. */
  readonly cacheBytes: number;
}

export type Coding = 'br' | 'gzip';

const TAG_CODING: Record<Coding, TagCoding> = { br: 'br', gzip: 'gz' };

/**
 * Brotli first (a quarter smaller than gzip on these pages, at about the same cost at these levels); `identity` is
 * listed so that a client preferring it (`identity, br;q=0.1`) gets the answer as it is.
 */
const OFFERED = ['br', 'gzip', 'identity'] as const;

/** Below this the bytes saved do not pay for the coding (a header and a round of the pool). */
const MIN_BYTES = 1024;

/**
 * A longer Accept-Encoding is not parsed (an answer as it is suits every client): browsers send some 30 characters,
 * and parsing 15 kB takes 2 ms.
 */
const MAX_ACCEPT_LENGTH = 1024;

/** Above this an answer goes as it is: one request never holds the pool's threads for long. */
const MAX_BYTES = 16 * 1024 * 1024;

const COMPRESSIBLE = /^(?:text\/|application\/(?:json|javascript|xml|[\w.+-]*\+(?:json|xml))\b|image\/svg\+xml)/i;

const compressors: Record<Coding, (body: Buffer) => Promise<Buffer>> = {
  br: (body) =>
    promisify(brotliCompress)(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    }),
  gzip: (body) => promisify(gzip)(body, { level: 6 }),
};

/** What a shared cache may keep (cache-control.ts decides, before this runs): nothing in it is anyone's own. */
function isPublic(reply: FastifyReply): boolean {
  return String(reply.getHeader('cache-control') ?? '').startsWith('public');
}

function isCompressible(reply: FastifyReply): boolean {
  return COMPRESSIBLE.test(String(reply.getHeader('content-type') ?? '')) && !reply.hasHeader('content-encoding');
}

function byteLengthOf(payload: unknown): number | undefined {
  if (Buffer.isBuffer(payload)) return payload.length;
  return typeof payload === 'string' ? Buffer.byteLength(payload) : undefined;
}

/**
 * The coding `payload` is sent in to this request (undefined: as it is): a public read's text, within the sizes
 * above, in the coding the client prefers among ours. The conditional read (conditional-get.ts) compares the tag of
 * that representation, and this step makes it.
 */
export function codingOf(request: FastifyRequest, reply: FastifyReply, payload: unknown): Coding | undefined {
  if ((request.method !== 'GET' && request.method !== 'HEAD') || reply.statusCode !== 200) return undefined;
  const accepted = request.headers['accept-encoding'];
  if (accepted === undefined || accepted === '' || accepted.length > MAX_ACCEPT_LENGTH) return undefined;
  if (!isPublic(reply) || !isCompressible(reply)) return undefined;
  const bytes = byteLengthOf(payload);
  if (bytes === undefined || bytes < MIN_BYTES || bytes > MAX_BYTES) return undefined;
  const chosen = negotiate(accepted, [...OFFERED]);
  return chosen === 'br' || chosen === 'gzip' ? chosen : undefined;
}

/** The tag of `tag`'s representation compressed with `coding`. */
export function codedTag(tag: string, coding: Coding): string {
  return codedEtag(tag, TAG_CODING[coding]);
}

/**
 * The headers of an answer compressed with `coding`: the coding (not on a 304, which has no content), its own tag,
 * and `Vary: Accept-Encoding` so that a cache gives it only to clients that asked the same. An uncompressed answer
 * suits every client and says nothing of the coding, so a cache in front keeps one copy of it, not one per
 * Accept-Encoding its clients send.
 */
export function markCompressed(reply: FastifyReply, coding: Coding, content: boolean): void {
  const tag = reply.getHeader('etag');
  if (typeof tag === 'string') void reply.header('etag', codedTag(tag, coding));
  if (content) void reply.header('content-encoding', coding);
  addVary(reply, 'Accept-Encoding');
}

class CompressedCopies {
  private readonly kept: ByteBoundedMap<Buffer>;
  private readonly pending = new Map<string, Promise<Buffer>>();

  constructor(cacheBytes: number) {
    this.kept = new ByteBoundedMap(cacheBytes);
  }

  /** The onSend step, last of every read's: the payload as the client will receive it. */
  async encode(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const coding = codingOf(request, reply, payload);
    if (coding === undefined) return payload;
    const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload as string);
    const tag = reply.getHeader('etag');
    const compressed = await this.copyOf(body, coding, typeof tag === 'string' && !tag.startsWith('W/') ? tag : undefined);
    markCompressed(reply, coding, true);
    return compressed;
  }

  /**
   * The body compressed, made once while its copy is kept (requests that ask meanwhile share the making). A strong
   * tag names the bytes it was made of (entity-tags.ts: a digest of them, or of the parts they are assembled from).
   */
  private copyOf(body: Buffer, coding: Coding, strongTag: string | undefined): Promise<Buffer> {
    const key = `${coding} ${strongTag ?? digestOf(body)}`;
    const kept = this.kept.get(key);
    if (kept !== undefined) return Promise.resolve(kept);
    return this.pending.get(key) ?? this.make(key, body, coding);
  }

  private make(key: string, body: Buffer, coding: Coding): Promise<Buffer> {
    const making = compressors[coding](body).then((compressed) => {
      this.kept.set(key, compressed, compressed.length);
      return compressed;
    });
    this.pending.set(key, making);
    const settled = () => void this.pending.delete(key);
    making.then(settled, settled);
    return making;
  }
}

/**
 * Registered before every surface: it makes its step the last onSend hook of each route (a route's own hooks run
 * after those of its plugins), so it sees the body after the surfaces tagged it and answered 304s; for the HEAD
 * route Fastify derives from a GET, before the step that measures the body and drops it.
 */
export const compressionPlugin = fp<CompressionOptions>(
  async (app: FastifyInstance, { cacheBytes }) => {
    const copies = new CompressedCopies(cacheBytes);
    const step: onSendHookHandler = (request, reply, payload) => copies.encode(request, reply, payload);
    app.addHook('onRoute', (route) => {
      if (route.config?.sentAsItIs === true) return;
      const steps = [route.onSend ?? []].flat();
      if (steps.includes(step)) return;
      const last = steps.at(-1);
      // Fastify's HEAD step (head-route.js) must stay last: it sends the length of the body it is given, and none.
      // Found by its name; compression.test.ts's HEAD case fails if Fastify renames it.
      const headStep = route.method === 'HEAD' && last?.name === 'headRouteOnSendHandler';
      route.onSend = headStep ? [...steps.slice(0, -1), step, last] : [...steps, step];
    });
  },
  { name: 'almanac-compression' },
);
