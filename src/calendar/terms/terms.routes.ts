import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Handler } from '../../platform/http/route-handler.ts';
import { requestContext, type CalendarDeps } from '../common/context.ts';
import { archiveHeaders, sentArguments } from '../common/pagination.ts';
import { LanguageQuerySchema } from '../common/schemas.ts';
import { fieldOf, parsePositiveInt } from '../common/wire.ts';
import {
  CategoryListSchema,
  CategorySchema,
  createBodySchema,
  listQuerySchema,
  TagListSchema,
  TagSchema,
  TermIdParamsSchema,
  updateBodySchema,
  type ListTermsQuery,
} from './terms.schemas.ts';
import type { TermsService } from './terms.service.ts';
import { sendsIfMatch } from '../changes/changes.preconditions.ts';
import { sendVersioned } from '../common/versioned.ts';
import { CATEGORIES, TAGS, type TaxonomyInfo } from './terms.taxonomy.ts';

/** What the handlers work with: the calendar's dependencies and the taxonomy's service. */
interface TermRoutesOptions {
  readonly deps: CalendarDeps;
  readonly service: TermsService;
}

/** What a taxonomy's operations are declared from: the taxonomy, its term schema and the names the operations take. */
interface TaxonomyOperations {
  readonly info: TaxonomyInfo;
  readonly termSchema: typeof CategorySchema | typeof TagSchema;
  readonly tags: string[];
  /** Operation ids name the methods of generated clients: `listCategories`, `getTag`… */
  readonly one: string;
  readonly many: string;
}

/** The archive, create, read, update and delete routes of one taxonomy. */
function taxonomyRoutes(info: TaxonomyInfo) {
  const one = `${info.singular[0]?.toUpperCase()}${info.singular.slice(1)}`;
  const many = `${info.collection[0]?.toUpperCase()}${info.collection.slice(1)}`;
  const termSchema = info.hierarchical ? CategorySchema : TagSchema;
  const operations: TaxonomyOperations = { info, termSchema, tags: ['calendar', info.collection], one, many };
  return async function routes(app: FastifyInstance, options: TermRoutesOptions): Promise<void> {
    const typed = app.withTypeProvider<TypeBoxTypeProvider>();
    const collection = `/${info.collection}`;
    const item = `/${info.collection}/:id(^\\d+$)`;
    const manage = info.manageCapability;
    const resolveFirst = checkReferencesOf(options.service);
    typed.get(collection, {
      config: { access: 'public', collection: info.collection },
      schema: listSchema(operations),
      handler: listTerms(options),
    });
    typed.post(collection, { config: { access: manage, resolveFirst }, schema: createSchema(operations), handler: createTerm(options) });
    typed.get(item, { config: { access: 'public' }, schema: getSchema(operations), handler: getTerm(options) });
    typed.route({
      method: ['POST', 'PUT', 'PATCH'],
      url: item,
      config: { access: manage, resolveFirst, writesItem: true },
      schema: updateSchema(operations),
      handler: updateTerm(options),
    });
    typed.delete(item, {
      config: { access: manage, resolveFirst, writesItem: true },
      schema: deleteSchema(operations),
      handler: deleteTerm(options),
    });
  };
}

/**
 * Unknown ids in the path or in `parent` are argument errors: a subscriber deleting a missing term gets 400.
 * With If-Match a missing term is a 412, decided as every precondition after authorization (changes.preconditions.ts).
 */
function checkReferencesOf(service: TermsService) {
  return async (request: FastifyRequest): Promise<void> => {
    const { id } = request.params as { id?: string };
    const parent = parsePositiveInt(fieldOf(request.body, 'parent'));
    await service.assertReferences(id === undefined || sendsIfMatch(request) ? undefined : Number(id), parent);
  };
}

function listSchema({ info, tags, many }: TaxonomyOperations) {
  return {
    operationId: `list${many}`,
    tags,
    summary: `List event ${info.collection}`,
    querystring: listQuerySchema(info),
    response: { 200: info.hierarchical ? CategoryListSchema : TagListSchema },
  };
}
function listTerms({ deps, service }: TermRoutesOptions): Handler<ReturnType<typeof listSchema>> {
  return async (request, reply) => {
    const { list, links, total, totalPages } = await service.list(
      request.query as ListTermsQuery,
      requestContext(request, deps),
      sentArguments(request.url),
    );
    void reply.headers(archiveHeaders(total, totalPages, links));
    return list;
  };
}

function createSchema({ info, termSchema, tags, one }: TaxonomyOperations) {
  return {
    operationId: `create${one}`,
    tags,
    summary: `Create an event ${info.singular}`,
    querystring: LanguageQuerySchema,
    body: createBodySchema(info),
    response: { 201: termSchema },
  };
}
function createTerm({ deps, service }: TermRoutesOptions): Handler<ReturnType<typeof createSchema>> {
  return async (request, reply) => {
    const { location, ...term } = await service.create(request.body, requestContext(request, deps));
    return reply.code(201).header('location', location).send(sendVersioned(reply, term));
  };
}

function getSchema({ info, termSchema, tags, one }: TaxonomyOperations) {
  return {
    operationId: `get${one}`,
    tags,
    summary: `Get an event ${info.singular}`,
    params: TermIdParamsSchema,
    querystring: LanguageQuerySchema,
    response: { 200: termSchema },
  };
}
function getTerm({ deps, service }: TermRoutesOptions): Handler<ReturnType<typeof getSchema>> {
  return async (request, reply) => sendVersioned(reply, await service.get(request.params.id, requestContext(request, deps)));
}

function updateSchema({ info, termSchema, tags, one }: TaxonomyOperations) {
  return {
    operationId: `update${one}`,
    tags,
    summary: `Update an event ${info.singular} (only the fields sent change)`,
    params: TermIdParamsSchema,
    querystring: LanguageQuerySchema,
    body: updateBodySchema(info),
    response: { 200: termSchema },
  };
}
function updateTerm({ deps, service }: TermRoutesOptions): Handler<ReturnType<typeof updateSchema>> {
  return async (request, reply) =>
    sendVersioned(reply, await service.update(request.params.id, request.body ?? {}, requestContext(request, deps)));
}

function deleteSchema({ info, termSchema, tags, one }: TaxonomyOperations) {
  return {
    operationId: `delete${one}`,
    tags,
    summary: `Delete an event ${info.singular} permanently (answers with the term as it was)`,
    params: TermIdParamsSchema,
    querystring: LanguageQuerySchema,
    response: { 200: termSchema },
  };
}
function deleteTerm({ deps, service }: TermRoutesOptions): Handler<ReturnType<typeof deleteSchema>> {
  return async (request, reply) => sendVersioned(reply, await service.delete(request.params.id, requestContext(request, deps)));
}

export const categoryRoutes = taxonomyRoutes(CATEGORIES);
export const tagRoutes = taxonomyRoutes(TAGS);
