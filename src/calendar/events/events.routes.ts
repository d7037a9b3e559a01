import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { cacheKey } from '../../platform/cache/read-cache.ts';
import type { Handler } from '../../platform/http/route-handler.ts';
import { isCacheable, requestContext, type CalendarDeps } from '../common/context.ts';
import { sentArguments } from '../common/pagination.ts';
import { WpErrorSchema } from '../common/schemas.ts';
import { sendVersioned } from '../common/versioned.ts';
import type { EventRef } from './events.lookup.ts';
import type { EventsService } from './events.service.ts';
import {
  CreateEventBodySchema,
  DeleteEventQuerySchema,
  EventIdParamsSchema,
  EventListSchema,
  EventSchema,
  EventSlugParamsSchema,
  InstancesQuerySchema,
  ListEventsQuerySchema,
  ReadEventQuerySchema,
  UpdateEventBodySchema,
  type ListEventsQuery,
  type ReadEventQuery,
} from './events.schemas.ts';

const ITEM_WRITE_METHODS = ['POST', 'PUT', 'PATCH'] as const;
const tags = ['calendar'];
const errors = { 400: WpErrorSchema, 401: WpErrorSchema, 403: WpErrorSchema, 404: WpErrorSchema, 410: WpErrorSchema };

/** What the handlers work with: the calendar's dependencies and the events service. */
interface EventRoutesOptions {
  readonly deps: CalendarDeps;
  readonly service: EventsService;
}

/** `/events…` routes: the reference's, by id and by slug, and the additions (docs/calendar-events.md). */
export async function eventsRoutes(app: FastifyInstance, options: EventRoutesOptions): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.get('/events', { config: { access: 'public', collection: 'events' }, schema: listEventsSchema, handler: listEvents(options) });
  typed.post('/events', { config: { access: 'edit' }, schema: createEventSchema, handler: createEvent(options) });
  typed.get('/events/:id(^\\d+$)/instances', {
    config: { access: 'public', collection: 'events' },
    schema: listEventInstancesSchema,
    handler: listEventInstances(options),
  });
  eventRoutes(app, options, BY_ID);
  eventRoutes(app, options, BY_SLUG);
}

/** How the routes of one event name it: by id or by slug. */
interface EventAddress {
  readonly path: string;
  readonly params: typeof EventIdParamsSchema | typeof EventSlugParamsSchema;
  /** Appended to the operation ids: `getEvent`, `getEventBySlug`… */
  readonly suffix: '' | 'BySlug';
  readonly refOf: (request: FastifyRequest) => EventRef;
}

const BY_ID: EventAddress = {
  path: '/events/:id(^\\d+$)',
  params: EventIdParamsSchema,
  suffix: '',
  refOf: (request) => ({ id: (request.params as { id: number }).id }),
};
const BY_SLUG: EventAddress = {
  path: '/events/by-slug/:slug',
  params: EventSlugParamsSchema,
  suffix: 'BySlug',
  refOf: (request) => ({ slug: (request.params as { slug: string }).slug }),
};

/** The routes of one event: read, delete and update. */
function eventRoutes(app: FastifyInstance, options: EventRoutesOptions, address: EventAddress): void {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.get(address.path, { config: { access: 'public' }, schema: getEventSchema(address), handler: getEvent(options, address) });
  typed.delete(address.path, {
    config: { access: 'delete', writesItem: true },
    schema: deleteEventSchema(address),
    handler: deleteEvent(options, address),
  });
  typed.route({
    method: [...ITEM_WRITE_METHODS],
    url: address.path,
    config: { access: 'edit', writesItem: true },
    schema: updateEventSchema(address),
    handler: updateEvent(options, address),
  });
}

// Anonymous answers are cached per calendar version (ADR 22), unless a password makes them depend on more than
// the key. A list depends on the clock ("today", relative dates) to the second, never finer: the second is
// part of its key.
function listKey(request: FastifyRequest, query: ListEventsQuery, now: Date): string | undefined {
  return isCacheable(request, query) ? cacheKey(request.url, Math.floor(now.getTime() / 1000)) : undefined;
}

function itemKey(request: FastifyRequest, query: ReadEventQuery): string | undefined {
  return isCacheable(request, query) ? cacheKey(request.url) : undefined;
}

const listEventsSchema = {
  operationId: 'listEvents',
  tags,
  summary: 'Lists events (by local start date), with filters',
  querystring: ListEventsQuerySchema,
  response: { 200: EventListSchema, ...errors },
};
function listEvents({ deps, service }: EventRoutesOptions): Handler<typeof listEventsSchema> {
  return async (request, reply) => {
    const now = new Date();
    return deps.answers.answer(reply, listKey(request, request.query, now), async () =>
      service.representations.listAnswer(
        reply,
        await service.listEvents(request.query, requestContext(request, deps), now, { sent: sentArguments(request.url) }),
      ),
    );
  };
}

const createEventSchema = {
  operationId: 'createEvent',
  tags,
  summary: 'Creates an event',
  body: CreateEventBodySchema,
  response: { 201: EventSchema, ...errors },
};
function createEvent({ deps, service }: EventRoutesOptions): Handler<typeof createEventSchema> {
  return async (request, reply) =>
    reply.code(201).send(sendVersioned(reply, await service.createEvent(request.body, requestContext(request, deps))));
}

const listEventInstancesSchema = {
  operationId: 'listEventInstances',
  tags,
  summary: "Lists the occurrences of a recurring series (Google Calendar's instances)",
  params: EventIdParamsSchema,
  querystring: InstancesQuerySchema,
  response: { 200: EventListSchema, ...errors },
};
/** Never cached (no key): an answer of its own for each request, its text assembled like a list's. */
function listEventInstances({ deps, service }: EventRoutesOptions): Handler<typeof listEventInstancesSchema> {
  return async (request, reply) =>
    deps.answers.answer(reply, undefined, async () =>
      service.representations.listAnswer(
        reply,
        await service.listInstances(request.params.id, request.query, requestContext(request, deps), sentArguments(request.url)),
      ),
    );
}

function getEventSchema({ params, suffix }: EventAddress) {
  return {
    operationId: `getEvent${suffix}`,
    tags,
    summary: 'Reads an event (with its JSON-LD)',
    params,
    querystring: ReadEventQuerySchema,
    response: { 200: EventSchema, ...errors },
  };
}
function getEvent({ deps, service }: EventRoutesOptions, { refOf }: EventAddress): Handler<ReturnType<typeof getEventSchema>> {
  return async (request, reply) =>
    deps.answers.answer(reply, itemKey(request, request.query), async () => {
      const { item, version } = await service.getEvent(refOf(request), request.query, requestContext(request, deps));
      return { payload: item, itemVersion: version };
    });
}

function deleteEventSchema({ params, suffix }: EventAddress) {
  return {
    operationId: `deleteEvent${suffix}`,
    tags,
    summary: 'Moves an event to the trash, or deletes it with force=true (editors and above)',
    params,
    querystring: DeleteEventQuerySchema,
    // Arguments may come in the body too (`@wordpress/api-fetch` sends them so); the query is merged under it.
    body: DeleteEventQuerySchema,
    response: { 200: EventSchema, ...errors },
  };
}
function deleteEvent({ deps, service }: EventRoutesOptions, { refOf }: EventAddress): Handler<ReturnType<typeof deleteEventSchema>> {
  return async (request, reply) =>
    sendVersioned(reply, await service.deleteEvent(refOf(request), request.body, requestContext(request, deps)));
}

function updateEventSchema({ params, suffix }: EventAddress) {
  return {
    operationId: `updateEvent${suffix}`,
    tags,
    summary: 'Updates an event: only the fields sent change',
    params,
    body: UpdateEventBodySchema,
    response: { 200: EventSchema, ...errors },
  };
}
function updateEvent({ deps, service }: EventRoutesOptions, { refOf }: EventAddress): Handler<ReturnType<typeof updateEventSchema>> {
  return async (request, reply) =>
    sendVersioned(reply, await service.updateEvent(refOf(request), request.body, requestContext(request, deps)));
}
