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
 * (`"….br"`, entity-tags.ts). If-None-Match with either gets a 304, and
 * If-Match reads the item's version from either. Each compressed copy is
 * made once per body, on the libuv pool, and kept in a byte-bounded map
 * under the body's strong tag (which names its bytes), or its digest when
 * it has none.
 */

export interface CompressionOptions {
  /** Bytes of compressed copies a process keeps; 0 = none kept, each answer compressed as it is sent. */
  readonly cacheBytes: number;
}

type Coding = 'br' | 'gzip';

const TAG_CODING: Record<Coding, TagCoding> = { br: 'br', gzip: 'gz' };

/** Brotli first: a quarter smaller than gzip on these pages, at about the same cost at these levels. */
const CODINGS: Coding[] = ['br', 'gzip'];

/** Below this the bytes saved do not pay for the coding (a header and a round of the pool). */
const MIN_BYTES = 1024;

const COMPRESSIBLE = /^(?:text\/|application\/(?:json|javascript|xml|[\w.+-]*\+(?:json|xml))\b|image\/svg\+xml)/i;

const compressors: Record<Coding, (body: Buffer) => Promise<Buffer>> = {
  br: (body) =>
    promisify(brotliCompress)(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    }),
  gzip: (body) => promisify(gzip)(body, { level: 6 }),
};

function isRead(request: FastifyRequest): boolean {
  return request.method === 'GET' || request.method === 'HEAD';
}

/** What a shared cache may keep (cache-control.ts decides, before this runs): nothing in it is anyone's own. */
function isPublic(reply: FastifyReply): boolean {
  return String(reply.getHeader('cache-control') ?? '').startsWith('public');
}

function isCompressible(reply: FastifyReply): boolean {
  return COMPRESSIBLE.test(String(reply.getHeader('content-type') ?? '')) && !reply.hasHeader('content-encoding');
}

/** The coding the client prefers among ours, or undefined for the answer as it is. */
function codingFor(request: FastifyRequest): Coding | undefined {
  const accepted = request.headers['accept-encoding'];
  return accepted === undefined || accepted === '' ? undefined : (negotiate(accepted, CODINGS) ?? undefined);
}

/**
 * The headers of an answer compressed with `coding`: the coding (unless it is a 304's, which has no content), its
 * own tag, and `Vary: Accept-Encoding` so that a cache gives it only to clients that asked the same. An
 * uncompressed answer suits every client and says nothing of the coding, so a cache in front keeps one copy of it,
 * not one per Accept-Encoding its clients send.
 */
function markCompressed(reply: FastifyReply, coding: Coding, content: boolean): void {
  const tag = reply.getHeader('etag');
  if (typeof tag === 'string') void reply.header('etag', codedEtag(tag, TAG_CODING[coding]));
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
    if (!isRead(request) || !isPublic(reply)) return payload;
    if (reply.statusCode === 304) return this.notModified(request, reply, payload);
    if (reply.statusCode !== 200 || !isCompressible(reply)) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
    const coding = codingFor(request);
    if (coding === undefined || body.length < MIN_BYTES) return payload;
    const tag = reply.getHeader('etag');
    const compressed = await this.copyOf(body, coding, typeof tag === 'string' && !tag.startsWith('W/') ? tag : undefined);
    markCompressed(reply, coding, true);
    return compressed;
  }

  /** A 304 to a client holding a compressed copy (its tag) says what that copy's 200 said. */
  private notModified(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
    const tag = reply.getHeader('etag');
    const held = request.headers['if-none-match'] ?? '';
    const coding = typeof tag === 'string' ? CODINGS.find((each) => held.includes(codedEtag(tag, TAG_CODING[each]))) : undefined;
    if (coding !== undefined) markCompressed(reply, coding, false);
    return payload;
  }

  private async copyOf(body: Buffer, coding: Coding, strongTag: string | undefined): Promise<Buffer> {
    const key = `${coding} ${strongTag ?? digestOf(body)}`;
    const kept = this.kept.get(key) ?? (await this.pending.get(key));
    if (kept !== undefined) return kept;
    const making = compressors[coding](body);
    this.pending.set(key, making);
    try {
      const compressed = await making;
      this.kept.set(key, compressed, compressed.length);
      return compressed;
    } finally {
      this.pending.delete(key);
    }
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
      const steps = [route.onSend ?? []].flat();
      if (steps.includes(step)) return;
      const last = steps.at(-1);
      // Fastify's HEAD step (head-route.js) must stay last: it sends the length of the body it is given, and none.
      const headStep = route.method === 'HEAD' && last?.name === 'headRouteOnSendHandler';
      route.onSend = headStep ? [...steps.slice(0, -1), step, last] : [...steps, step];
    });
  },
  { name: 'almanac-compression' },
);
