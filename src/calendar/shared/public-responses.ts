import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.ts';
import { calendarVersionOfTurn, type CalendarVersion } from './calendar-version.ts';

/** What a route answers besides its status (always 200 here): the body, and headers of its own. */
export interface Answer {
  readonly payload: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

interface Remembered {
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

function toBuffer(serialized: string | ArrayBuffer | Buffer): Buffer {
  if (typeof serialized === 'string') return Buffer.from(serialized);
  return Buffer.isBuffer(serialized) ? serialized : Buffer.from(serialized);
}

/** Entries up to a total size in bytes; the oldest go first when a new one does not fit. */
export class ByteBoundedMap<V extends { readonly body: Buffer }> {
  private readonly entries = new Map<string, V>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: V): void {
    if (value.body.length > this.maxBytes) return;
    this.delete(key);
    this.entries.set(key, value);
    this.bytes += value.body.length;
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
    this.bytes -= entry.body.length;
  }
}

/**
 * Answers to anonymous calendar reads, serialized, remembered in this
 * process for the current calendar version (calendar-version.ts). An
 * anonymous answer is a function of the request and of the calendar, and
 * within a version the calendar cannot change: a write ends it (by the
 * revision the database bumps, whichever process wrote), and so does the
 * clock (when a scheduled post goes live). So what is remembered is exact,
 * across processes and over time, at the cost of one primary-key read per
 * turn of the event loop (calendarVersionOfTurn); a new version starts empty.
 *
 * Callers with credentials are never served from here: what they may see
 * depends on who they are. Routes give no key for requests whose answer
 * depends on more than the key says (a `password` argument, say).
 */
export class PublicResponses {
  private version: CalendarVersion | undefined;
  private generation: Generation;

  constructor(
    private readonly db: Kysely<Database>,
    /** 0 remembers nothing. */
    private readonly maxBytes: number,
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
  async answer(request: FastifyRequest, reply: FastifyReply, key: string | undefined, produce: () => Promise<Answer>): Promise<FastifyReply> {
    if (key === undefined || request.user !== null || this.maxBytes === 0) {
      const { payload, headers } = await produce();
      return reply.headers(headers ?? {}).send(payload);
    }
    const generation = await this.currentGeneration();
    const remembered = generation.entries.get(key) ?? (await generation.produceOnce(key, async () => {
      const { payload, headers = {} } = await produce();
      return { body: toBuffer(reply.serialize(payload)), headers };
    }));
    return reply.headers(remembered.headers).type(JSON_TYPE).send(remembered.body);
  }

  private async currentGeneration(): Promise<Generation> {
    const version = await calendarVersionOfTurn(this.db);
    if (version !== this.version) {
      this.version = version;
      this.generation = new Generation(this.maxBytes);
    }
    return this.generation;
  }
}

/** What is remembered in one calendar version, and what is being produced in it. */
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
