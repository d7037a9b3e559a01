import { cacheKey } from '../../platform/cache/read-cache.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { EventIdParamsSchema, ReadEventQuerySchema } from '../events/events.schemas.ts';
import { FeedQuerySchema, refusePages, type FeedQuery } from './ical.schemas.ts';
import { nowIn } from '../common/dates.ts';
import { isCacheable, requestContext, settingsOf, type CalendarDeps } from '../common/context.ts';
import { WpErrorSchema } from '../common/schemas.ts';
import type { IcalService } from './ical.service.ts';

const CALENDAR_TYPE = 'text/calendar; charset=utf-8';

/** The answer of a feed in the OpenAPI document: an iCalendar text, not JSON. */
const CalendarTextSchema = {
  description: 'An iCalendar object (RFC 5545, RFC 7986)',
  headers: {
    etag: Type.String({ description: 'A strong validator of the body: send it back in If-None-Match to get a 304' }),
    'cache-control': Type.String({
      description: 'public, max-age=HTTP_CACHE_MAX_AGE_SECONDS for anonymous callers; private, no-store with credentials or a password',
    }),
  },
  content: { 'text/calendar': { schema: Type.String({ description: 'VCALENDAR text, CRLF lines folded at 75 octets' }) } },
};
// What can change an anonymous feed without a write: its window starts today, and a date argument may be
// relative ("now", "+1 week"), so it is cached for the day, or for the second as lists are.
const DATE_ARGUMENTS = ['start_date', 'end_date', 'starts_before', 'starts_after', 'ends_before', 'ends_after'] as const;

/** `/events.ics` and `/events/{id}.ics` (issue 22; docs/calendar-ical.md). */
export async function icalRoutes(app: FastifyInstance, { deps, service }: { deps: CalendarDeps; service: IcalService }): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const errors = { 400: WpErrorSchema, 401: WpErrorSchema, 403: WpErrorSchema, 404: WpErrorSchema, 410: WpErrorSchema };
  // Pollers ask for the same feeds again and again: anonymous ones are cached per calendar version (ADR 22).
  const { answers } = deps;
  const listKey = (request: FastifyRequest, query: FeedQuery, now: Date) => {
    if (!isCacheable(request, query)) return undefined;
    const relative = DATE_ARGUMENTS.some((name) => query[name] !== undefined);
    const clock = relative
      ? String(Math.floor(now.getTime() / 1000))
      : nowIn(settingsOf(request, deps.config).timezone, now).local.slice(0, 10);
    return cacheKey(request.url, clock);
  };
  // The ETag, and the 304 to a poller that has the feed, are the calendar's for every read (conditional-get.ts);
  // what HTTP caches may keep, the platform's (cache-control.ts).
  const sendCalendar = (reply: FastifyReply, key: string | undefined, filename: string, feed: () => Promise<string>) => {
    void reply.header('content-disposition', `inline; filename="${filename}"`);
    return answers.answer(reply, key, async () => ({ payload: await feed(), type: CALENDAR_TYPE }));
  };

  typed.get('/events.ics', {
    config: { access: 'public' },
    schema: {
      operationId: 'getEventsFeed',
      tags: ['calendar'],
      summary: 'The events of /events as an iCalendar feed to subscribe to (same filters; at most ICAL_MAX_EVENTS)',
      querystring: FeedQuerySchema,
      response: { 200: CalendarTextSchema, ...errors },
    },
    handler: async (request, reply) => {
      refusePages(request.query);
      const now = new Date();
      return sendCalendar(reply, listKey(request, request.query, now), 'events.ics', () =>
        service.listFeed(request.query, requestContext(request, deps), now),
      );
    },
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
      const key = isCacheable(request, request.query) ? cacheKey(request.url) : undefined;
      return sendCalendar(reply, key, `event-${request.params.id}.ics`, () =>
        service.eventFeed(request.params.id, request.query, requestContext(request, deps)),
      );
    },
  });
}
