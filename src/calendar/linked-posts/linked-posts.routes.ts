import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest, FastifySchema } from 'fastify';
import type { Handler } from '../../platform/http/route-handler.ts';
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

/** What the handlers work with: the calendar's dependencies and the service of venues and organizers. */
interface LinkedPostRoutesOptions {
  readonly deps: CalendarDeps;
  readonly service: LinkedPostsService;
}

/** What a kind's operations are declared from: the kind, its schemas and the names the operations take. */
interface KindOperations {
  readonly kind: LinkedPostKind;
  readonly schemas: { readonly item: TObject; readonly createBody: TObject; readonly updateBody: TObject };
  readonly tags: string[];
  /** Operation ids name the methods of generated clients: `listVenues`, `getVenueBySlug`… */
  readonly one: string;
  readonly many: string;
}

/** How the routes of one venue or organizer name it: by id or by slug. */
interface Address {
  readonly path: string;
  readonly params: typeof IdParamsSchema | typeof SlugParamsSchema;
  readonly by: 'id' | 'slug';
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
  const one = `${kind.type[0]?.toUpperCase()}${kind.type.slice(1)}`;
  const many = `${kind.plural[0]?.toUpperCase()}${kind.plural.slice(1)}`;
  const operations: KindOperations = { kind, schemas, tags: [kind.plural], one, many };
  return async function routes(fastify: FastifyInstance, options: LinkedPostRoutesOptions): Promise<void> {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const base = `/${kind.plural}`;
    app.get(base, {
      config: { access: 'public', collection: kind.plural },
      schema: listSchema(operations),
      handler: listLinkedPosts(kind, options),
    });
    itemRoutes(fastify, operations, options, { path: `${base}/:id(^\\d+$)`, params: IdParamsSchema, by: 'id' });
    app.post<WriteRoute>(base, { config: { access: 'edit' }, schema: createSchema(operations), handler: createLinkedPost(options) });
    itemRoutes(fastify, operations, options, { path: `${base}/by-slug/:slug`, params: SlugParamsSchema, by: 'slug' });
  };
}

/** The routes of one venue or organizer: read, update and delete. */
function itemRoutes(fastify: FastifyInstance, operations: KindOperations, options: LinkedPostRoutesOptions, address: Address): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const resolveFirst = resolveFirstOf(options.service);
  app.get(address.path, { config: { access: 'public' }, schema: getSchema(operations, address), handler: getLinkedPost(options) });
  app.route<WriteRoute>({
    method: ['POST', 'PUT', 'PATCH'],
    url: address.path,
    config: { access: 'edit', resolveFirst, writesItem: true },
    schema: updateSchema(operations, address),
    handler: updateLinkedPost(options),
  });
  app.delete(address.path, {
    config: { access: 'delete', resolveFirst, writesItem: true },
    schema: deleteSchema(operations, address),
    handler: deleteLinkedPost(options),
  });
}

/**
 * An unknown id or slug is an argument error, reported before authorization as the reference does; with
 * If-Match it is a 412, decided as every precondition after authorization (changes.preconditions.ts).
 */
function resolveFirstOf(service: LinkedPostsService) {
  return async (request: FastifyRequest) => {
    if (!sendsIfMatch(request)) await service.resolve(targetOf(request.params as Params));
  };
}

function suffixOf({ by }: Address): string {
  return by === 'id' ? '' : 'BySlug';
}

function listSchema({ kind, schemas, tags, many }: KindOperations) {
  return {
    operationId: `list${many}`,
    tags,
    summary: `List ${kind.plural}`,
    querystring: listQuerySchema(kind),
    response: { 200: envelopeSchema(kind.plural, schemas.item), 400: WpErrorSchema, 404: WpErrorSchema },
  };
}
function listLinkedPosts(kind: LinkedPostKind, { deps, service }: LinkedPostRoutesOptions): Handler<ReturnType<typeof listSchema>> {
  const archiveUrl = `${deps.config.baseUrl}/${NAMESPACE}/${kind.plural}/`;
  return async (request, reply) => {
    const result = await service.list(request.query, requestContext(request, deps), archiveUrl, sentArguments(request.url));
    const { items, total, totalPages, ...links } = result;
    void reply.headers(archiveHeaders(total, totalPages, links));
    return { [kind.plural]: items, ...links, total, total_pages: totalPages };
  };
}

function createSchema({ kind, schemas, tags, one }: KindOperations) {
  return {
    operationId: `create${one}`,
    tags,
    summary: `Create a ${kind.type} (always a new one)`,
    body: schemas.createBody,
    response: { 201: schemas.item, 400: WpErrorSchema, 401: WpErrorSchema, 403: WpErrorSchema },
  };
}
function createLinkedPost({ deps, service }: LinkedPostRoutesOptions): Handler<FastifySchema, WriteRoute> {
  return async (request, reply) =>
    reply.code(201).send(sendVersioned(reply, await service.create(request.body, requestContext(request, deps))));
}

function getSchema({ kind, schemas, tags, one }: KindOperations, address: Address) {
  return {
    operationId: `get${one}${suffixOf(address)}`,
    tags,
    summary: `Get a ${kind.type} by ${address.by}`,
    params: address.params,
    querystring: ReadQuerySchema,
    response: { 200: schemas.item, 400: WpErrorSchema, 403: WpErrorSchema, 429: WpErrorSchema },
  };
}
function getLinkedPost({ deps, service }: LinkedPostRoutesOptions): Handler<ReturnType<typeof getSchema>> {
  return async (request, reply) =>
    sendVersioned(reply, await service.get(targetOf(request.params), request.query, requestContext(request, deps)));
}

function updateSchema({ kind, schemas, tags, one }: KindOperations, address: Address) {
  return {
    operationId: `update${one}${suffixOf(address)}`,
    tags,
    summary: `Update a ${kind.type} by ${address.by} (only the fields sent change)`,
    params: address.params,
    body: schemas.updateBody,
    response: { 200: schemas.item, 400: WpErrorSchema, 401: WpErrorSchema, 403: WpErrorSchema },
  };
}
function updateLinkedPost({ deps, service }: LinkedPostRoutesOptions): Handler<FastifySchema, WriteRoute> {
  return async (request, reply) =>
    sendVersioned(reply, await service.update(targetOf(request.params), request.body, requestContext(request, deps)));
}

function deleteSchema({ kind, schemas, tags, one }: KindOperations, address: Address) {
  return {
    operationId: `delete${one}${suffixOf(address)}`,
    tags,
    summary: `Trash a ${kind.type} by ${address.by} (force=true deletes it permanently)`,
    params: address.params,
    querystring: DeleteQuerySchema,
    // Arguments may come in the body too; the query is merged under it.
    body: DeleteQuerySchema,
    response: { 200: schemas.item, 400: WpErrorSchema, 401: WpErrorSchema, 403: WpErrorSchema, 410: WpErrorSchema },
  };
}
function deleteLinkedPost({ deps, service }: LinkedPostRoutesOptions): Handler<ReturnType<typeof deleteSchema>> {
  return async (request, reply) =>
    sendVersioned(
      reply,
      await service.delete(targetOf(request.params), parseWpBoolean(request.body.force) === true, requestContext(request, deps)),
    );
}
