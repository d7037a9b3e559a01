import assert from 'node:assert/strict';
import type { Credentials, TestServer } from '../helpers/server.ts';
import type { RequestContext } from '../../src/calendar/common/context.ts';
import { PostPasswords } from '../../src/calendar/posts/posts.passwords.ts';
import { contextFor } from './context.helper.ts';
import type { Role } from '../../src/platform/auth/capabilities.ts';

export const NS = '/calendar/events/v1';
export const VENUES = `${NS}/venues`;
export const ORGANIZERS = `${NS}/organizers`;

let counter = 0;

/** Creates a venue through the API and returns its representation. */
export async function makeVenue(server: TestServer, auth: Credentials, fields: Record<string, unknown> = {}): Promise<any> {
  counter += 1;
  const response = await server.request(VENUES, { method: 'POST', auth, body: { venue: `Venue ${counter}`, ...fields } });
  assert.equal(response.status, 201, response.text);
  return response.body;
}

/** Creates an organizer through the API and returns its representation. */
export async function makeOrganizer(server: TestServer, auth: Credentials, fields: Record<string, unknown> = {}): Promise<any> {
  counter += 1;
  const response = await server.request(ORGANIZERS, { method: 'POST', auth, body: { organizer: `Organizer ${counter}`, ...fields } });
  assert.equal(response.status, 201, response.text);
  return response.body;
}

function stamp(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

export interface EventRowFields {
  status?: string;
  /** Start, in days from now (may be negative). */
  startsInDays?: number;
  venueId?: number | null;
  organizerIds?: number[];
  authorId?: number | null;
  hidden?: boolean;
}

/**
 * Inserts an event row directly (independent of the events routes), with
 * its venue and organizer links; returns its id.
 */
export async function insertEventRow(server: TestServer, fields: EventRowFields = {}): Promise<number> {
  const db = server.server.store.db;
  const start = new Date(Date.now() + (fields.startsInDays ?? 1) * 86_400_000);
  const end = new Date(start.getTime() + 3_600_000);
  const now = stamp(new Date());
  const { id } = await db.insertInto('post_ids').values({ type: 'event' }).returning('id').executeTakeFirstOrThrow();
  await db
    .insertInto('events')
    .values({
      id,
      author_id: fields.authorId ?? null,
      status: fields.status ?? 'publish',
      date: now,
      date_utc: now,
      modified: now,
      modified_utc: now,
      password_hash: null,
      image_id: null,
      parent_id: null,
      timezone: 'UTC',
      all_day: 0,
      start_local: stamp(start),
      end_local: stamp(end),
      start_utc: stamp(start),
      end_utc: stamp(end),
      cost: null,
      currency_symbol: '',
      currency_position: '',
      currency_code: '',
      website: null,
      show_map: 0,
      show_map_link: 0,
      hide_from_listings: fields.hidden ? 1 : 0,
      sticky: 0,
      featured: 0,
      venue_id: fields.venueId ?? null,
    })
    .execute();
  const organizers = fields.organizerIds ?? [];
  if (organizers.length > 0) {
    await db
      .insertInto('event_organizers')
      .values(organizers.map((organizerId, position) => ({ event_id: id, organizer_id: organizerId, position })))
      .execute();
  }
  return id;
}

/** The request context the link functions get from the events module. */
export function contextOf(server: TestServer, credentials: Credentials | null, role: Role = 'administrator'): RequestContext {
  return contextFor(
    server,
    credentials === null ? null : { id: credentials.id, username: credentials.username, displayName: credentials.username, role },
  );
}

export function idsOf(list: any[]): number[] {
  return list.map((item) => item.id as number).sort((a, b) => a - b);
}

/** The post passwords of `server`'s process, for the link resolvers that create inline posts. */
export function postPasswords(server: TestServer): PostPasswords {
  return new PostPasswords(server.server.store.db, server.config);
}
