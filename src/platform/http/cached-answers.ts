import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ReadCache } from '../cache/read-cache.ts';
import { etagOf } from './entity-tags.ts';

/** What a route answers besides its status (always 200 here): the body, and headers of its own. */
export interface Answer {
  readonly payload: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** The media type of a payload that is already text or bytes (an iCalendar feed, a list assembled from its items'): sent as it is. */
  readonly type?: string;
  /** The row version of the item the payload represents, read before it: its ETag names it (entity-tags.ts). */
  readonly itemVersion?: number;
}

interface SentAnswer {
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, string>>;
  readonly type: string;
}

export const JSON_TYPE = 'application/json; charset=utf-8';

function toBuffer(serialized: string | ArrayBuffer | Buffer): Buffer {
  // Buffer.from has one overload for text and another for an ArrayBuffer: TypeScript wants them apart.
  if (typeof serialized === 'string') return Buffer.from(serialized);
  return Buffer.isBuffer(serialized) ? serialized : Buffer.from(serialized);
}

/**
 * A surface's answers to reads, serialized once per version of the data
 * they are computed from (the per-version lifetime of its `ReadCache`):
 * `currentVersion` tells which version a request reads (a revision the
 * database bumps on every write, read once per event-loop tick; the
 * calendar adds the clock), so an answer is exact across processes and
 * over time. Requests for a key being produced wait for it.
 *
 * Routes give no key for a request whose answer depends on more than the key
 * says: on the calendar, who asks (anonymous answers only) or a `password`.
 */
export class CachedAnswers {
  constructor(
    private readonly cache: ReadCache,
    /** The version current for a request: the same value (or object) for as long as it holds. */
    private readonly currentVersion: (request: FastifyRequest) => Promise<unknown>,
    /** false: nothing is cached (RESPONSE_CACHE_MB=0), every answer is produced. */
    private readonly enabled: boolean,
    /** Keep each answer's ETag with it, for a surface that answers conditional reads (conditional-get.ts). */
    private readonly tagged = false,
  ) {}

  /** Sends the answer cached under `key` in the request's version, or produces, serializes, caches and sends it. */
  async answer(reply: FastifyReply, key: string | undefined, produce: () => Promise<Answer>): Promise<FastifyReply> {
    if (key === undefined || !this.enabled) {
      const { payload, headers, type, itemVersion } = await produce();
      // Tagged as it is sent (conditional-get.ts), with the version.
      if (itemVersion !== undefined) reply.itemVersion = itemVersion;
      void reply.headers(headers ?? {});
      return (type === undefined ? reply : reply.type(type)).send(payload);
    }
    const version = await this.currentVersion(reply.request);
    const sent = await this.cache.once(
      version,
      key,
      async (): Promise<SentAnswer> => {
        const { payload, headers = {}, type, itemVersion } = await produce();
        const body = toBuffer(type === undefined ? reply.serialize(payload) : Buffer.isBuffer(payload) ? payload : String(payload));
        // Tagged once: a cached answer is sent many times. A route may have tagged it (from its parts).
        const etag = headers.etag ?? etagOf(body, itemVersion);
        return { body, headers: this.tagged ? { ...headers, etag } : headers, type: type ?? JSON_TYPE };
      },
      (answer) => answer.body.length,
    );
    return reply.headers(sent.headers).type(sent.type).send(sent.body);
  }
}
