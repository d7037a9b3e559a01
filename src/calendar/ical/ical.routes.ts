import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { EventIdParamsSchema, ListEventsQuerySchema, ReadEventQuerySchema } from '../events/events.schemas.ts';
import { requestContext, type CalendarDeps } from '../shared/context.ts';
import { WpErrorSchema } from '../shared/schemas.ts';
import { REFRESH_SECONDS, type IcalService } from './ical.service.ts';

const CALENDAR_TYPE = 'text/calendar; charset=utf-8';

/** The answer of a feed in the OpenAPI document: an iCalendar text, not JSON. */
const CalendarTextSchema = {
  description: 'An iCalendar object (RFC 5545, RFC 7986)',
  headers: {
    etag: Type.String({ description: 'A strong validator of the body: send it back in If-None-Match to get a 304' }),
    'cache-control': Type.String({ description: 'public, max-age=300 for anonymous callers; private, no-cache otherwise' }),
  },
  content: { 'text/calendar': { schema: Type.String({ description: 'VCALENDAR text, CRLF lines folded at 75 octets' }) } },
};
/**
 * Anonymous feeds are the same for everybody: shared caches may keep them a
 * few minutes (pollers come every REFRESH-INTERVAL; a 304 is cheap after).
 * A signed-in caller's feed, or one unlocked by a password, shows what others
 * may not see: `private`, and revalidated every time.
 */
function cacheControlOf(request: FastifyRequest, query: { password?: string }): string {
  return request.user === null && query.password === undefined ? `public, max-age=${Math.min(300, REFRESH_SECONDS)}` : 'private, no-cache';
}

// The ETag, and the 304 to a poller that has the feed, are the calendar's for every read (conditional-get.ts).
function sendCalendar(request: FastifyRequest, reply: FastifyReply, query: { password?: string }, body: string, filename: string) {
  void reply.headers({
    'cache-control': cacheControlOf(request, query),
    vary: 'Authorization',
    'content-disposition': `inline; filename="${filename}"`,
  });
  return reply.type(CALENDAR_TYPE).send(body);
}

/** `/events.ics` and `/events/{id}.ics` (issue 22; docs/calendar-ical.md). */
export async function icalRoutes(app: FastifyInstance, { deps, service }: { deps: CalendarDeps; service: IcalService }): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const errors = { 400: WpErrorSchema, 401: WpErrorSchema, 403: WpErrorSchema, 404: WpErrorSchema, 410: WpErrorSchema };

  typed.get('/events.ics', {
    config: { access: 'public' },
    schema: {
      operationId: 'getEventsFeed',
      tags: ['calendar'],
      summary: 'The events of /events as an iCalendar feed to subscribe to (same filters; at most ICAL_MAX_EVENTS)',
      querystring: ListEventsQuerySchema,
      response: { 200: CalendarTextSchema, ...errors },
    },
    handler: async (request, reply) =>
      sendCalendar(request, reply, request.query, await service.listFeed(request.query, requestContext(request, deps)), 'events.ics'),
  });

  // `[0-9]`, not `\d`: the namespace index lists this route as `events/(?P<id>[0-9]+).ics`. wpapi files a route
  // under its group's pattern, ignoring what follows it: with `\d+` it would take this GET-only route for
  // `events/(?P<id>\d+)` and refuse to update or delete events (test/clients/wpapi.test.ts).
  typed.get('/events/:id(^[0-9]+).ics', {
    config: { access: 'public' },
    schema: {
      operationId: 'getEventFeed',
      tags: ['calendar'],
      summary: 'One event as iCalendar: a series with its exceptions, an occurrence on its own',
      params: EventIdParamsSchema,
      querystring: ReadEventQuerySchema,
      response: { 200: CalendarTextSchema, ...errors },
    },
    handler: async (request, reply) => {
      const body = await service.eventFeed(request.params.id, request.query, requestContext(request, deps));
      return sendCalendar(request, reply, request.query, body, `event-${request.params.id}.ics`);
    },
  });
}
