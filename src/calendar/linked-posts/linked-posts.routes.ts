import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Static, TObject } from 'typebox';
import { NAMESPACE, requestContext, type CalendarDeps } from '../common/context.ts';
import { WpErrorSchema } from '../common/schemas.ts';
import { archiveHeaders, sentArguments } from '../common/pagination.ts';
import { parseWpBoolean } from '../common/wire.ts';
import type { LinkedPostKind } from './linked-posts.kind.ts';
import {
  DeleteQuerySchema,
  envelopeSchema,
  IdParamsSchema,
  listQuerySchema,
  ReadQuerySchema,
  SlugParamsSchema,
} from './linked-posts.schemas.ts';
import { LinkedPostsService, type Target } from './linked-posts.service.ts';
import { sendsIfMatch } from '../changes/changes.preconditions.ts';
import { sendVersioned } from '../common/versioned.ts';
import type { PostWriteInput } from './linked-posts.writes.ts';

/** A body schema whose every accepted value is a `PostWriteInput`, checked when a kind's routes are built (else `never`). */
type WritesPosts<T extends TObject> = Static<T> extends PostWriteInput ? T : never;

export interface LinkedPostSchemas<Create extends TObject, Update extends TObject> {
  readonly item: TObject;
  readonly createBody: Create & WritesPosts<Create>;
  readonly updateBody: Update & WritesPosts<Update>;
}

/** What the write routes receive: their body schema validated it, and `WritesPosts` proved it a `PostWriteInput`. */
type WriteRoute = { Body: PostWriteInput; Params: Params };

type Params = { id?: unknown; slug?: unknown };

function targetOf(params: Params): Target {
  return params.slug !== undefined ? { slug: String(params.slug) } : { id: Number(params.id) };
}

/**
 * The routes of venues or organizers: archive, single by id
 * and by slug (read, update, delete) and create, registered in the
 * reference's order.
 */
export function linkedPostRoutes<Create extends TObject, Update extends TObject>(
  kind: LinkedPostKind,
  schemas: LinkedPostSchemas<Create, Update>,
) {
  const label = kind.type;
  return async function routes(
    fastify: FastifyInstance,
    { deps, service }: { deps: CalendarDeps; service: LinkedPostsService },
  ): Promise<void> {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const base = `/${kind.plural}`;
    const tags = [kind.plural];
    // Operation ids name the methods of generated clients: `listVenues`, `getVenueBySlug`…
    const one = `${label[0]?.toUpperCase()}${label.slice(1)}`;
    const many = `${kind.plural[0]?.toUpperCase()}${kind.plural.slice(1)}`;
    const ctxOf = (request: FastifyRequest) => requestContext(request, deps);
    const archiveUrl = `${deps.config.baseUrl}/${NAMESPACE}${base}/`;

    // An unknown id or slug is an argument error, reported before authorization as the reference does; with
    // If-Match it is a 412, decided as every precondition after authorization (changes.preconditions.ts).
    const resolveFirst = async (request: FastifyRequest) => {
      if (!sendsIfMatch(request)) await service.resolve(targetOf(request.params as Params));
    };

    app.get(base, {
      config: { access: 'public', collection: kind.plural },
      schema: {
        operationId: `list${many}`,
        tags,
        summary: `List ${kind.plural}`,
        querystring: listQuerySchema(kind),
        response: { 200: envelopeSchema(kind.plural, schemas.item), 400: WpErrorSchema, 404: WpErrorSchema },
      },
      handler: async (request, reply) => {
        const result = await service.list(request.query, ctxOf(request), archiveUrl, sentArguments(request.url));
        const { items, total, totalPages, ...links } = result;
        void reply.headers(archiveHeaders(total, totalPages, links));
        return { [kind.plural]: items, ...links, total, total_pages: totalPages };
      },
    });

    const itemRoutes = (path: string, params: typeof IdParamsSchema | typeof SlugParamsSchema, by: string) => {
      const suffix = by === 'id' ? '' : 'BySlug';
      app.get(path, {
        config: { access: 'public' },
        schema: {
          operationId: `get${one}${suffix}`,
          tags,
          summary: `Get a ${label} by ${by}`,
          params,
          querystring: ReadQuerySchema,
          response: { 200: schemas.item, 400: WpErrorSchema, 403: WpErrorSchema, 429: WpErrorSchema },
        },
        handler: async (request, reply) => sendVersioned(reply, await service.get(targetOf(request.params), request.query, ctxOf(request))),
      });

      app.route<WriteRoute>({
        method: ['POST', 'PUT', 'PATCH'],
        url: path,
        config: { access: 'edit', resolveFirst, writesItem: true },
        schema: {
          operationId: `update${one}${suffix}`,
          tags,
          summary: `Update a ${label} by ${by} (only the fields sent change)`,
          params,
          body: schemas.updateBody,
          response: { 200: schemas.item, 400: WpErrorSchema, 401: WpErrorSchema, 403: WpErrorSchema },
        },
        handler: async (request, reply) =>
          sendVersioned(reply, await service.update(targetOf(request.params), request.body, ctxOf(request))),
      });

      app.delete(path, {
        config: { access: 'delete', resolveFirst, writesItem: true },
        schema: {
          operationId: `delete${one}${suffix}`,
          tags,
          summary: `Trash a ${label} by ${by} (force=true deletes it permanently)`,
          params,
          querystring: DeleteQuerySchema,
          // Arguments may come in the body too; the query is merged under it.
          body: DeleteQuerySchema,
          response: { 200: schemas.item, 400: WpErrorSchema, 401: WpErrorSchema, 403: WpErrorSchema, 410: WpErrorSchema },
        },
        handler: async (request, reply) =>
          sendVersioned(reply, await service.delete(targetOf(request.params), parseWpBoolean(request.body.force) === true, ctxOf(request))),
      });
    };

    itemRoutes(`${base}/:id(^\\d+$)`, IdParamsSchema, 'id');
    app.post<WriteRoute>(base, {
      config: { access: 'edit' },
      schema: {
        operationId: `create${one}`,
        tags,
        summary: `Create a ${label} (always a new one)`,
        body: schemas.createBody,
        response: { 201: schemas.item, 400: WpErrorSchema, 401: WpErrorSchema, 403: WpErrorSchema },
      },
      handler: async (request, reply) => {
        return reply.code(201).send(sendVersioned(reply, await service.create(request.body, ctxOf(request))));
      },
    });
    itemRoutes(`${base}/by-slug/:slug`, SlugParamsSchema, 'slug');
  };
}
