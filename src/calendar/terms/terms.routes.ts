import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
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

/** The archive, create, read, update and delete routes of one taxonomy. */
function taxonomyRoutes(info: TaxonomyInfo) {
  return async function routes(app: FastifyInstance, { deps, service }: { deps: CalendarDeps; service: TermsService }): Promise<void> {
    const typed = app.withTypeProvider<TypeBoxTypeProvider>();
    const ctxOf = (request: FastifyRequest) => requestContext(request, deps);
    const collection = `/${info.collection}`;
    const item = `/${info.collection}/:id(^\\d+$)`;
    // Operation ids name the methods of generated clients: `listCategories`, `getTag`…
    const one = `${info.singular[0]?.toUpperCase()}${info.singular.slice(1)}`;
    const many = `${info.collection[0]?.toUpperCase()}${info.collection.slice(1)}`;
    const termSchema = info.hierarchical ? CategorySchema : TagSchema;
    const tags = ['calendar', info.collection];
    const manage = info.manageCapability;

    /**
     * Unknown ids in the path or in `parent` are argument errors: a subscriber deleting a missing term gets 400.
     * With If-Match a missing term is a 412, decided as every precondition after authorization (changes.preconditions.ts).
     */
    const checkReferences = async (request: FastifyRequest): Promise<void> => {
      const { id } = request.params as { id?: string };
      const parent = parsePositiveInt(fieldOf(request.body, 'parent'));
      await service.assertReferences(id === undefined || sendsIfMatch(request) ? undefined : Number(id), parent);
    };

    typed.get(collection, {
      config: { access: 'public', collection: info.collection },
      schema: {
        operationId: `list${many}`,
        tags,
        summary: `List event ${info.collection}`,
        querystring: listQuerySchema(info),
        response: { 200: info.hierarchical ? CategoryListSchema : TagListSchema },
      },
      handler: async (request, reply) => {
        const { list, links, total, totalPages } = await service.list(
          request.query as ListTermsQuery,
          ctxOf(request),
          sentArguments(request.url),
        );
        void reply.headers(archiveHeaders(total, totalPages, links));
        return list;
      },
    });

    typed.post(collection, {
      config: { access: manage, resolveFirst: checkReferences },
      schema: {
        operationId: `create${one}`,
        tags,
        summary: `Create an event ${info.singular}`,
        querystring: LanguageQuerySchema,
        body: createBodySchema(info),
        response: { 201: termSchema },
      },
      handler: async (request, reply) => {
        const { location, ...term } = await service.create(request.body, ctxOf(request));
        return reply.code(201).header('location', location).send(sendVersioned(reply, term));
      },
    });

    typed.get(item, {
      config: { access: 'public' },
      schema: {
        operationId: `get${one}`,
        tags,
        summary: `Get an event ${info.singular}`,
        params: TermIdParamsSchema,
        querystring: LanguageQuerySchema,
        response: { 200: termSchema },
      },
      handler: async (request, reply) => sendVersioned(reply, await service.get(request.params.id, ctxOf(request))),
    });

    typed.route({
      method: ['POST', 'PUT', 'PATCH'],
      url: item,
      config: { access: manage, resolveFirst: checkReferences, writesItem: true },
      schema: {
        operationId: `update${one}`,
        tags,
        summary: `Update an event ${info.singular} (only the fields sent change)`,
        params: TermIdParamsSchema,
        querystring: LanguageQuerySchema,
        body: updateBodySchema(info),
        response: { 200: termSchema },
      },
      handler: async (request, reply) => sendVersioned(reply, await service.update(request.params.id, request.body ?? {}, ctxOf(request))),
    });

    typed.delete(item, {
      config: { access: manage, resolveFirst: checkReferences, writesItem: true },
      schema: {
        operationId: `delete${one}`,
        tags,
        summary: `Delete an event ${info.singular} permanently (answers with the term as it was)`,
        params: TermIdParamsSchema,
        querystring: LanguageQuerySchema,
        response: { 200: termSchema },
      },
      handler: async (request, reply) => sendVersioned(reply, await service.delete(request.params.id, ctxOf(request))),
    });
  };
}

export const categoryRoutes = taxonomyRoutes(CATEGORIES);
export const tagRoutes = taxonomyRoutes(TAGS);
