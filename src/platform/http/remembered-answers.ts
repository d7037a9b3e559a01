import type { FastifyReply, FastifyRequest } from 'fastify';
import { etagOf } from './entity-tags.ts';

/** What a route answers besides its status (always 200 here): the body, and headers of its own. */
export interface Answer {
  readonly payload: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** The media type of a payload that is already text (an iCalendar feed): sent as it is, not serialized as JSON. */
  readonly type?: string;
  /** The row version of the item the payload represents, read before it: its ETag names it (entity-tags.ts). */
  readonly itemVersion?: number;
}

interface Remembered {
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, string>>;
  readonly type: string;
}

const JSON_TYPE = 'application/json; charset=utf-8';

const sizeOf = (key: string, value: { readonly body: Buffer }) => Buffer.byteLength(key) + value.body.length;

function toBuffer(serialized: string | ArrayBuffer | Buffer): Buffer {
  if (typeof serialized === 'string') return Buffer.from(serialized);
  return Buffer.isBuffer(serialized) ? serialized : Buffer.from(serialized);
}

/**
 * Entries up to a total size in bytes, keys included (a key can be as long as
 * a URL, and is the caller's to choose); the oldest go first when a new one
 * does not fit.
 */
export class ByteBoundedMap<V extends { readonly body: Buffer }> {
  private readonly entries = new Map<string, V>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: V): void {
    if (sizeOf(key, value) > this.maxBytes) return;
    this.delete(key);
    this.entries.set(key, value);
    this.bytes += sizeOf(key, value);
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.bytes -= sizeOf(key, entry);
  }
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
        const body = toBuffer(type === undefined ? reply.serialize(payload) : String(payload));
        // Tagged once: a remembered answer is sent many times.
        return { body, headers: this.tagged ? { ...headers, etag: etagOf(body, itemVersion) } : headers, type: type ?? JSON_TYPE };
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
    this.entries = new ByteBoundedMap(maxBytes);
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
