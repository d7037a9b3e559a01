import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { cacheKey } from '../../platform/cache/read-cache.ts';
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

/** `/events…` routes: the reference's, by id and by slug, and the additions (docs/calendar-events.md). */
export async function eventsRoutes(app: FastifyInstance, { deps, service }: { deps: CalendarDeps; service: EventsService }): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const caller = (request: FastifyRequest) => requestContext(request, deps);
  const errors = { 400: WpErrorSchema, 401: WpErrorSchema, 403: WpErrorSchema, 404: WpErrorSchema, 410: WpErrorSchema };
  // Anonymous answers are cached per calendar version (ADR 22), unless a password makes them depend on more than
  // the key. A list depends on the clock ("today", relative dates) to the second, never finer: the second is
  // part of its key.
  const { answers } = deps;
  const listKey = (request: FastifyRequest, query: ListEventsQuery, now: Date) =>
    isCacheable(request, query) ? cacheKey(request.url, Math.floor(now.getTime() / 1000)) : undefined;
  const itemKey = (request: FastifyRequest, query: ReadEventQuery) => (isCacheable(request, query) ? cacheKey(request.url) : undefined);
  const listAnswer = service.representations.listAnswer.bind(service.representations);

  typed.get('/events', {
    config: { access: 'public', collection: 'events' },
    schema: {
      operationId: 'listEvents',
      tags: ['calendar'],
      summary: 'Lists events (by local start date), with filters',
      querystring: ListEventsQuerySchema,
      response: { 200: EventListSchema, ...errors },
    },
    handler: async (request, reply) => {
      const now = new Date();
      return answers.answer(reply, listKey(request, request.query, now), async () =>
        listAnswer(reply, await service.listEvents(request.query, caller(request), now, { sent: sentArguments(request.url) })),
      );
    },
  });

  typed.post('/events', {
    config: { access: 'edit' },
    schema: {
      operationId: 'createEvent',
      tags: ['calendar'],
      summary: 'Creates an event',
      body: CreateEventBodySchema,
      response: { 201: EventSchema, ...errors },
    },
    handler: async (request, reply) => reply.code(201).send(sendVersioned(reply, await service.createEvent(request.body, caller(request)))),
  });

  const itemRoutes = (
    path: string,
    params: typeof EventIdParamsSchema | typeof EventSlugParamsSchema,
    refOf: (request: FastifyRequest) => EventRef,
    suffix: '' | 'BySlug',
  ) => {
    typed.get(path, {
      config: { access: 'public' },
      schema: {
        operationId: `getEvent${suffix}`,
        tags: ['calendar'],
        summary: 'Reads an event (with its JSON-LD)',
        params,
        querystring: ReadEventQuerySchema,
        response: { 200: EventSchema, ...errors },
      },
      handler: async (request, reply) =>
        answers.answer(reply, itemKey(request, request.query), async () => {
          const { item, version } = await service.getEvent(refOf(request), request.query, caller(request));
          return { payload: item, itemVersion: version };
        }),
    });

    typed.delete(path, {
      config: { access: 'delete', writesItem: true },
      schema: {
        operationId: `deleteEvent${suffix}`,
        tags: ['calendar'],
        summary: 'Moves an event to the trash, or deletes it with force=true (editors and above)',
        params,
        querystring: DeleteEventQuerySchema,
        // Arguments may come in the body too (`@wordpress/api-fetch` sends them so); the query is merged under it.
        body: DeleteEventQuerySchema,
        response: { 200: EventSchema, ...errors },
      },
      handler: async (request, reply) => sendVersioned(reply, await service.deleteEvent(refOf(request), request.body, caller(request))),
    });

    typed.route({
      method: [...ITEM_WRITE_METHODS],
      url: path,
      config: { access: 'edit', writesItem: true },
      schema: {
        operationId: `updateEvent${suffix}`,
        tags: ['calendar'],
        summary: 'Updates an event: only the fields sent change',
        params,
        body: UpdateEventBodySchema,
        response: { 200: EventSchema, ...errors },
      },
      handler: async (request, reply) => sendVersioned(reply, await service.updateEvent(refOf(request), request.body, caller(request))),
    });
  };

  typed.get('/events/:id(^\\d+$)/instances', {
    config: { access: 'public', collection: 'events' },
    schema: {
      operationId: 'listEventInstances',
      tags: ['calendar'],
      summary: "Lists the occurrences of a recurring series (Google Calendar's instances)",
      params: EventIdParamsSchema,
      querystring: InstancesQuerySchema,
      response: { 200: EventListSchema, ...errors },
    },
    // Never cached (no key): an answer of its own for each request, its text assembled like a list's.
    handler: async (request, reply) =>
      answers.answer(reply, undefined, async () =>
        listAnswer(reply, await service.listInstances(request.params.id, request.query, caller(request), sentArguments(request.url))),
      ),
  });

  itemRoutes('/events/:id(^\\d+$)', EventIdParamsSchema, (request) => ({ id: (request.params as { id: number }).id }), '');
  itemRoutes('/events/by-slug/:slug', EventSlugParamsSchema, (request) => ({ slug: (request.params as { slug: string }).slug }), 'BySlug');
}
