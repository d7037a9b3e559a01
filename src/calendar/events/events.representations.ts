import type { FastifyReply } from 'fastify';
import type { Language } from '../../config/config.ts';
import { cacheKey, type ReadCache } from '../../platform/cache/read-cache.ts';
import { JSON_TYPE, type Answer } from '../../platform/http/cached-answers.ts';
import { digestOf, etagOfParts } from '../../platform/http/entity-tags.ts';
import type { CalendarVersion } from '../common/calendar-version.ts';
import { archiveHeaders } from '../common/pagination.ts';
import type { EmbeddedTerm } from '../terms/terms.schemas.ts';
import type { EventRow } from './events.repository.ts';
import { EventSchema, type EventList, type EventResponse } from './events.schemas.ts';

/** An event's fragment: its JSON text as the list's response schema serializes it, in UTF-8, and its digest. */
interface EventFragment {
  readonly bytes: Buffer;
  readonly digest: string;
}

/** An event as anonymous readers are shown it, with the row it was computed from, and its fragment and JSON-LD once computed. */
export interface EventEntry {
  readonly row: EventRow;
  /** Frozen: shared by every answer that shows it. */
  readonly event: EventResponse;
  /** What the cache counts it to weigh, once measured: its JSON text four times (objects, row, text, JSON-LD). */
  weight: number | undefined;
  fragment: EventFragment | undefined;
  jsonLd: Record<string, unknown> | undefined;
}

const HEAD = '{"events":[';
const HEAD_BYTES = Buffer.from(HEAD);
const COMMA = Buffer.from(',');

/** The item schema as Fastify's serializer compiler takes it: one object, whose compiled serializer the route keeps. */
const ITEM_SCHEMA: Readonly<Record<string, unknown>> = { ...EventSchema };

/**
 * Events as anonymous readers are shown them, per event and language: the
 * per-item lifetime of the calendar's `ReadCache`, invalidated for an event
 * when the change log names it (calendar-version.ts). The change log names
 * every change of what a representation shows but term counts, which move
 * when other events change: a read checks them against its version's
 * (`recounted`). An event's fragment (its JSON text and digest) is computed once,
 * so a list is assembled from its events' fragments (`listAnswer`).
 */
export class EventRepresentations {
  /** The entry each cached representation belongs to. */
  private readonly entries = new WeakMap<EventResponse, EventEntry>();

  constructor(private readonly cache: ReadCache) {}

  get(id: number, language: Language): EventEntry | undefined {
    return this.cache.item<EventEntry>(cacheKey('event', id, language));
  }

  /**
   * Caches `event`, computed from `row` at `version`; `weight` is given when known (a recount weighs what it
   * replaces, give or take a digit), else measured.
   */
  set(row: EventRow, language: Language, version: CalendarVersion, event: EventResponse, weight?: number): void {
    const entry: EventEntry = { row, event: Object.freeze(event), weight, fragment: undefined, jsonLd: undefined };
    this.entries.set(entry.event, entry);
    const measured = () => (entry.weight ??= 4 * JSON.stringify(event).length);
    this.cache.setItem(cacheKey('event', row.id, language), [row.id], entry, measured, version);
  }

  /**
   * `entry`'s representation with the term counts of `version` (a count changes without a change of the event):
   * the entry's own while its counts hold, else a new one, cached in the entry's place.
   */
  recounted(entry: EventEntry, language: Language, counts: ReadonlyMap<number, number>, version: CalendarVersion): EventResponse {
    const current = (term: EmbeddedTerm) => counts.get(term.id) ?? term.count;
    const holds = (term: EmbeddedTerm) => current(term) === term.count;
    const { event } = entry;
    if (event.categories.every(holds) && event.tags.every(holds)) return event;
    const recount = (term: EmbeddedTerm): EmbeddedTerm => ({ ...term, count: current(term) });
    const fresh = { ...event, categories: event.categories.map(recount), tags: event.tags.map(recount) };
    this.set(entry.row, language, version, fresh, entry.weight);
    return fresh;
  }

  /**
   * A page of events as the answer sent: its bytes assembled from the events' fragments (the envelope serialized
   * without them), byte for byte what the route's response schema makes of the whole page, and tagged from the events'
   * digests (entity-tags.ts). A cached event is serialized, encoded and hashed once, not with every page that shows it.
   */
  listAnswer(reply: FastifyReply, list: EventList): Answer {
    const envelope = String(reply.serialize({ ...list, events: [] }));
    if (!envelope.startsWith(`${HEAD}]`)) throw new Error('An event list is serialized with its events first.');
    const events = list.events.map((event) => this.fragmentOf(reply, event));
    const parts = [
      HEAD_BYTES,
      ...events.flatMap(({ bytes }, index) => (index === 0 ? [bytes] : [COMMA, bytes])),
      Buffer.from(envelope.slice(HEAD.length)),
    ];
    const etag = etagOfParts([digestOf(envelope), ...events.map(({ digest }) => digest)]);
    return { payload: Buffer.concat(parts), type: JSON_TYPE, headers: { ...archiveHeaders(list.total, list.total_pages, list), etag } };
  }

  private fragmentOf(reply: FastifyReply, event: EventResponse): EventFragment {
    const entry = this.entries.get(event);
    if (entry?.fragment !== undefined) return entry.fragment;
    const text = reply.serializeInput(event, ITEM_SCHEMA);
    if (entry === undefined) return { bytes: Buffer.from(text), digest: digestOf(text) };
    // A buffer of its own: one cut from Node's shared pool would keep the whole pool slab alive with it.
    const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
    bytes.write(text);
    entry.fragment = { bytes, digest: digestOf(bytes) };
    return entry.fragment;
  }
}
