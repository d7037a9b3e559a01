import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Validators for reads (RFC 9110 §8.8.3, §13.1.2): a 200 answer to GET or
 * HEAD carries a strong `ETag` of its bytes, and a request whose
 * `If-None-Match` names it gets a 304 with no body. Pollers and mirrors
 * then pay for a representation only when it changed. The tag is of the
 * representation sent, so it differs with the language, the caller and a
 * password exactly when the body does.
 */

/** A strong validator of a representation: the SHA-1 of its bytes. */
export function strongEtag(body: string | Buffer): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

/** Weak comparison with every tag of an If-None-Match field; `*` matches any current representation. */
export function noneMatchHits(field: string | undefined, etag: string): boolean {
  if (field === undefined) return false;
  return field.split(',').some((listed) => {
    const tag = listed.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}

/** An onSend hook: tags a 200 read (unless the route tagged it already) and answers 304 when the caller has it. */
export async function answerConditionalGet(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if ((request.method !== 'GET' && request.method !== 'HEAD') || reply.statusCode !== 200) return payload;
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
  const tagged = reply.getHeader('etag');
  const etag = typeof tagged === 'string' ? tagged : strongEtag(payload);
  void reply.header('etag', etag);
  if (!noneMatchHits(request.headers['if-none-match'], etag)) return payload;
  void reply.code(304);
  return '';
}
