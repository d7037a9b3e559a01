import type { FastifyReply, FastifyRequest } from 'fastify';
import { ByteBoundedMap } from '../memory/byte-bounded-map.ts';
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

interface Remembered {
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, string>>;
  readonly type: string;
}

export const JSON_TYPE = 'application/json; charset=utf-8';

function toBuffer(serialized: string | ArrayBuffer | Buffer): Buffer {
  if (typeof serialized === 'string') return Buffer.from(serialized);
  return Buffer.isBuffer(serialized) ? serialized : Buffer.from(serialized);
}

/**
 * Serialized answers to reads, remembered in this process for as long as
 * the data they were made from cannot have changed: `version` tells which
 * version of that data is current (a revision the database bumps on every
 * write, read once per event-loop turn; the calendar adds the clock), and a
 * new version starts empty. So what is remembered is exact across processes
 * and over time (ADR 9).
 *
 * Routes give no key for a request whose answer depends on more than the key
 * says: on the calendar, who asks (anonymous answers only) or a `password`.
 */
export class RememberedAnswers {
  private version: unknown;
  private generation: Generation;

  constructor(
    /** The version current for a request: compared with `!==`, so the same value (or object) for as long as it holds. */
    private readonly currentVersion: (request: FastifyRequest) => Promise<unknown>,
    /** 0 remembers nothing. */
    private readonly maxBytes: number,
    /** Remember each answer's ETag with it, for a surface that answers conditional reads (conditional-get.ts). */
    private readonly tagged = false,
  ) {
    this.generation = new Generation(maxBytes);
  }

  /**
   * Sends the answer remembered under `key`, or produces it, serializes it
   * through the route's response schema, remembers it and sends it. Requests
   * for a key being produced wait for it rather than produce it again (a
   * list's key changes every second: without this, every request in flight
   * at that moment would compute the same page). Errors are thrown to every
   * request that waited for them, and never remembered.
   */
  async answer(reply: FastifyReply, key: string | undefined, produce: () => Promise<Answer>): Promise<FastifyReply> {
    if (key === undefined || this.maxBytes === 0) {
      const { payload, headers, type, itemVersion } = await produce();
      // Tagged as it is sent (conditional-get.ts), with the version.
      if (itemVersion !== undefined) reply.itemVersion = itemVersion;
      void reply.headers(headers ?? {});
      return (type === undefined ? reply : reply.type(type)).send(payload);
    }
    const generation = await this.currentGeneration(reply.request);
    const remembered =
      generation.entries.get(key) ??
      (await generation.produceOnce(key, async () => {
        const { payload, headers = {}, type, itemVersion } = await produce();
        const body = toBuffer(type === undefined ? reply.serialize(payload) : Buffer.isBuffer(payload) ? payload : String(payload));
        // Tagged once: a remembered answer is sent many times. A route may have tagged it (from its parts).
        const etag = headers.etag ?? etagOf(body, itemVersion);
        return { body, headers: this.tagged ? { ...headers, etag } : headers, type: type ?? JSON_TYPE };
      }));
    return reply.headers(remembered.headers).type(remembered.type).send(remembered.body);
  }

  private async currentGeneration(request: FastifyRequest): Promise<Generation> {
    const version = await this.currentVersion(request);
    if (version !== this.version) {
      this.version = version;
      this.generation = new Generation(this.maxBytes);
    }
    return this.generation;
  }
}

/** What is remembered in one version, and what is being produced in it. */
export class Generation {
  readonly entries: ByteBoundedMap<Remembered>;
  private readonly inFlight = new Map<string, Promise<Remembered>>();

  constructor(maxBytes: number) {
    this.entries = new ByteBoundedMap(maxBytes, (remembered) => remembered.body.length);
  }

  produceOnce(key: string, produce: () => Promise<Remembered>): Promise<Remembered> {
    let pending = this.inFlight.get(key);
    if (pending === undefined) {
      pending = produce().then(
        (remembered) => {
          this.inFlight.delete(key);
          this.entries.set(key, remembered);
          return remembered;
        },
        (error: unknown) => {
          this.inFlight.delete(key);
          throw error;
        },
      );
      this.inFlight.set(key, pending);
    }
    return pending;
  }
}
