import type { FastifyReply } from 'fastify';
import { digestOf, etagOfParts } from '../../platform/http/entity-tags.ts';
import { JSON_TYPE, type Answer } from '../../platform/http/remembered-answers.ts';
import { archiveHeaders } from '../shared/pagination.ts';
import { EventSchema, type EventList, type EventResponse } from './events.schemas.ts';

/** An event's JSON text as the list's response schema serializes it, in UTF-8, and its digest. */
interface EventText {
  readonly bytes: Buffer;
  readonly digest: string;
}

/**
 * The texts of remembered events (frozen, shared by every answer that shows them unchanged, events.present.ts):
 * made once, and gone with the representation they were made of, which a write to the event replaces.
 */
const texts = new WeakMap<EventResponse, EventText>();

const HEAD = '{"events":[';
const HEAD_BYTES = Buffer.from(HEAD);
const COMMA = Buffer.from(',');

/** The item schema as Fastify's serializer compiler takes it: one object, whose compiled serializer the route keeps. */
const ITEM_SCHEMA: Readonly<Record<string, unknown>> = { ...EventSchema };

/**
 * A page of events as the answer sent: its bytes assembled from each event's (the envelope serialized without
 * them), byte for byte what the route's response schema makes of the whole page, and tagged from the events'
 * digests (entity-tags.ts). A remembered event is serialized, encoded and hashed once, not with every page that
 * shows it (issue 26).
 */
export function eventListAnswer(reply: FastifyReply, list: EventList): Answer {
  const envelope = String(reply.serialize({ ...list, events: [] }));
  if (!envelope.startsWith(`${HEAD}]`)) throw new Error('An event list is serialized with its events first.');
  const events = list.events.map((event) => textOf(reply, event));
  const parts = [
    HEAD_BYTES,
    ...events.flatMap(({ bytes }, index) => (index === 0 ? [bytes] : [COMMA, bytes])),
    Buffer.from(envelope.slice(HEAD.length)),
  ];
  const etag = etagOfParts([digestOf(envelope), ...events.map(({ digest }) => digest)]);
  return { payload: Buffer.concat(parts), type: JSON_TYPE, headers: { ...archiveHeaders(list.total, list.total_pages, list), etag } };
}

function textOf(reply: FastifyReply, event: EventResponse): EventText {
  const kept = texts.get(event);
  if (kept !== undefined) return kept;
  const text = reply.serializeInput(event, ITEM_SCHEMA);
  if (!Object.isFrozen(event)) return { bytes: Buffer.from(text), digest: digestOf(text) };
  // Kept in a buffer of its own: one cut from Node's shared pool would keep the whole pool slab alive with it.
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  const made = { bytes, digest: digestOf(bytes) };
  texts.set(event, made);
  return made;
}
