import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { codedTag, codingOf, markCompressed } from './compression.ts';
import { etagOf, listedEtags } from './entity-tags.ts';

/**
 * Validators (RFC 9110 §8.8.3, §13.1.2): a 200 answer to GET or HEAD
 * carries a strong `ETag` of its bytes, and a request whose
 * `If-None-Match` names it gets a 304 with no body. Pollers and mirrors
 * then pay for a representation only when it changed. The tag is of the
 * representation sent, so it differs with the language, the caller and a
 * password exactly when the body does. An answer that represents an item
 * with a row version (`reply.itemVersion`), read or written, has that
 * version in its tag, which a later write's If-Match is checked against.
 */

declare module 'fastify' {
  interface FastifyReply {
    /** The row version of the item the answer represents, set by its route: the ETag names it (entity-tags.ts). */
    itemVersion: number | null;
  }
}

/** Weak comparison with every tag of an If-None-Match field; `*` matches any current representation. */
export function noneMatchHits(field: string | undefined, etag: string): boolean {
  const listed = field === undefined ? undefined : listedEtags(field);
  if (listed === '*') return true;
  return listed !== undefined && listed.some((tag) => tag.replace(/^W\//, '') === etag);
}

/**
 * An onSend hook: tags a 200 read and a 2xx answer that names its item's
 * version (unless the route tagged it already), and answers 304, without
 * content, to a read when the caller has it. Decorate replies with `itemVersion` (null) where
 * it is registered.
 */
export async function answerConditionally(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  const read = request.method === 'GET' || request.method === 'HEAD';
  const { statusCode, itemVersion } = reply;
  const tags = read ? statusCode === 200 : itemVersion !== null && statusCode >= 200 && statusCode < 300;
  if (!tags || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return payload;
  const tagged = reply.getHeader('etag');
  const etag = typeof tagged === 'string' ? tagged : etagOf(payload, itemVersion ?? undefined);
  void reply.header('etag', etag);
  if (!read) return payload;
  // The tag of what this request would be sent: a compressed copy has its own (compression.ts).
  const coding = codingOf(request, reply, payload);
  if (!noneMatchHits(request.headers['if-none-match'], coding === undefined ? etag : codedTag(etag, coding))) return payload;
  if (coding !== undefined) markCompressed(reply, coding, false);
  // A 304 has no content, so no Content-Type or Content-Length (RFC 9110 §8.6, §15.4.5). Fastify measures any body it
  // is sent, the empty one too, but not none (null); a HEAD's own last hook measures anything but a stream.
  void reply.code(304).removeHeader('content-type').removeHeader('content-length');
  return request.method === 'HEAD' ? Readable.from([]) : null;
}
