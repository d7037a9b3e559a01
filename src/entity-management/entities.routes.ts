import { cacheKey } from '../platform/cache/read-cache.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { SwaggerTransform } from '@fastify/swagger';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CachedAnswers } from '../platform/http/cached-answers.ts';
import type { Handler } from '../platform/http/route-handler.ts';
import Type from 'typebox';
import type { EntitiesService } from './entities.service.ts';
import { envelope } from './envelope.ts';
import {
  DeleteEntityQuerySchema,
  EntityBodySchema,
  EnvelopeSchema,
  GetEntityQuerySchema,
  KeyParamsSchema,
  ListEntitiesQuerySchema,
  RECORD_EXAMPLE,
  RecordSchema,
  SECURITY,
  TypeParamsSchema,
  errorResponses,
} from './schemas.ts';

export interface EntitiesRoutesOptions {
  readonly service: EntitiesService;
  readonly answers: CachedAnswers;
  /** Path segments of the types known at start, offered as choices in the docs UI. */
  readonly segments: readonly string[];
}

/** The OpenAPI document shows the parameter names clients use (`entity-type`, `entity-key`) and the type choices. */
function specParamNames(segments: readonly string[]): SwaggerTransform {
  return ({ schema, url }) => {
    const withKey = url.includes(':entityKey');
    const params = Type.Object({
      'entity-type': Type.String({ enum: [...segments], description: 'The entity type (its readable name is accepted too).' }),
      ...(withKey ? { 'entity-key': Type.String({ description: 'The record key.' }) } : {}),
    });
    return {
      url: url.replace(':entityType', '{entity-type}').replace(':entityKey', '{entity-key}'),
      schema: { ...schema, params },
    };
  };
}

const RecordEnvelope = EnvelopeSchema(RecordSchema, {
  messages: [{ level: 'info', code: 'OK', text: '1 record' }],
  payload: RECORD_EXAMPLE,
});
const ListEnvelope = EnvelopeSchema(Type.Array(RecordSchema), {
  messages: [{ level: 'info', code: 'OK', text: '1 of 36 records', meta: { page: 1, per_page: 20, total: 36, total_pages: 2 } }],
  payload: [RECORD_EXAMPLE],
});
const DeletedEnvelope = EnvelopeSchema(Type.Null(), {
  messages: [{ level: 'info', code: 'DELETED', text: 'Record C0001 deleted' }],
  payload: null,
});

/** One route per verb for every entity type; the type is data, resolved per request. */
export async function entitiesRoutes(app: FastifyInstance, options: EntitiesRoutesOptions): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const read = { access: 'entities_read', swaggerTransform: specParamNames(options.segments) } as const;
  const write = { access: 'entities_write', swaggerTransform: specParamNames(options.segments) } as const;
  const { service } = options;
  typed.get('/:entityType', { config: read, schema: listEntitiesSchema, handler: listEntities(options) });
  typed.post('/:entityType', { config: write, schema: createEntitySchema, handler: createEntity(service) });
  typed.put('/:entityType', { config: write, schema: updateEntitySchema, handler: updateEntity(service) });
  typed.delete('/:entityType', { config: write, schema: deleteEntitySchema, handler: deleteEntity(service) });
  typed.get('/:entityType/:entityKey', { config: read, schema: getEntityByIdSchema, handler: getEntityById(options) });
  typed.put('/:entityType/:entityKey', { config: write, schema: updateEntityByKeySchema, handler: updateEntityByKey(service) });
  typed.delete('/:entityType/:entityKey', { config: write, schema: deleteEntityByKeySchema, handler: deleteEntityByKey(service) });
}

const tags = ['entity-management'];

/** A read's answer is a function of its URL, the records and the definitions in use (not of who asks). */
function readKey(request: FastifyRequest, service: EntitiesService): string {
  return cacheKey(request.url, service.definitionsVersion());
}

const listEntitiesSchema = {
  operationId: 'listEntities',
  tags,
  summary: 'List records of a type',
  description:
    'Paged, sorted (`sort`, `-` for descending), projected (`fields`) and filtered: `filter[FieldName]=value` ' +
    '(exact match, repeatable over fields; `filter[key]` too) and `q` (substring of any text field). ' +
    'The total is in the first message’s `meta` and in `X-Total-Count`.',
  security: SECURITY,
  params: TypeParamsSchema,
  querystring: ListEntitiesQuerySchema,
  response: { 200: ListEnvelope, ...errorResponses(400, 401, 403, 404, 429) },
};
function listEntities({ service, answers }: EntitiesRoutesOptions): Handler<typeof listEntitiesSchema> {
  return async (request, reply) =>
    answers.answer(reply, readKey(request, service), async () => {
      const { query } = request;
      const { records, meta } = await service.list(request.params.entityType, {
        page: query.page,
        perPage: query.per_page,
        fields: query.fields,
        sort: query.sort,
        q: query.q,
        filters: Object.entries(query.filter ?? {}),
      });
      return {
        payload: envelope(records, { level: 'info', code: 'OK', text: `${records.length} of ${meta.total} records`, meta }),
        headers: { 'x-total-count': String(meta.total) },
      };
    });
}

const createEntitySchema = {
  operationId: 'createEntity',
  tags,
  summary: 'Create a record (key required)',
  security: SECURITY,
  params: TypeParamsSchema,
  body: EntityBodySchema,
  response: { 201: RecordEnvelope, ...errorResponses(400, 401, 403, 404, 409, 413, 429) },
};
function createEntity(service: EntitiesService): Handler<typeof createEntitySchema> {
  return async (request, reply) => {
    const record = await service.create(request.params.entityType, request.body);
    void reply.code(201);
    return envelope(record, { level: 'info', code: 'CREATED', text: `Record ${String(record.key)} created` });
  };
}

const updateEntitySchema = {
  operationId: 'updateEntity',
  tags,
  summary: 'Update the record whose key is in the body (partial merge)',
  security: SECURITY,
  params: TypeParamsSchema,
  body: EntityBodySchema,
  response: { 200: RecordEnvelope, ...errorResponses(400, 401, 403, 404, 413, 429) },
};
function updateEntity(service: EntitiesService): Handler<typeof updateEntitySchema> {
  return async (request) => {
    const record = await service.update(request.params.entityType, undefined, request.body);
    return envelope(record, { level: 'info', code: 'UPDATED', text: `Record ${String(record.key)} updated` });
  };
}

const deleteEntitySchema = {
  operationId: 'deleteEntity',
  tags,
  summary: 'Delete the record given by the query parameter entity-key',
  security: SECURITY,
  params: TypeParamsSchema,
  querystring: DeleteEntityQuerySchema,
  response: { 200: DeletedEnvelope, ...errorResponses(400, 401, 403, 404, 429) },
};
function deleteEntity(service: EntitiesService): Handler<typeof deleteEntitySchema> {
  return async (request) => {
    const key = request.query['entity-key'];
    await service.delete(request.params.entityType, key);
    return envelope(null, { level: 'info', code: 'DELETED', text: `Record ${key} deleted` });
  };
}

const getEntityByIdSchema = {
  operationId: 'getEntityById',
  tags,
  summary: 'One record by key, optionally restricted to some fields',
  security: SECURITY,
  params: KeyParamsSchema,
  querystring: GetEntityQuerySchema,
  response: { 200: RecordEnvelope, ...errorResponses(400, 401, 403, 404, 429) },
};
function getEntityById({ service, answers }: EntitiesRoutesOptions): Handler<typeof getEntityByIdSchema> {
  return async (request, reply) =>
    answers.answer(reply, readKey(request, service), async () => {
      const record = await service.get(request.params.entityType, request.params.entityKey, request.query.fields);
      return { payload: envelope(record, { level: 'info', code: 'OK', text: '1 record' }) };
    });
}

const updateEntityByKeySchema = {
  operationId: 'updateEntityByKey',
  tags,
  summary: 'Update a record by key (partial merge; a different body key is KEY_MISMATCH)',
  security: SECURITY,
  params: KeyParamsSchema,
  body: EntityBodySchema,
  response: { 200: RecordEnvelope, ...errorResponses(400, 401, 403, 404, 413, 429) },
};
function updateEntityByKey(service: EntitiesService): Handler<typeof updateEntityByKeySchema> {
  return async (request) => {
    const { entityType, entityKey } = request.params;
    const record = await service.update(entityType, entityKey, request.body);
    return envelope(record, { level: 'info', code: 'UPDATED', text: `Record ${entityKey} updated` });
  };
}

const deleteEntityByKeySchema = {
  operationId: 'deleteEntityByKey',
  tags,
  summary: 'Delete a record by key',
  security: SECURITY,
  params: KeyParamsSchema,
  response: { 200: DeletedEnvelope, ...errorResponses(400, 401, 403, 404, 429) },
};
function deleteEntityByKey(service: EntitiesService): Handler<typeof deleteEntityByKeySchema> {
  return async (request) => {
    const { entityType, entityKey } = request.params;
    await service.delete(entityType, entityKey);
    return envelope(null, { level: 'info', code: 'DELETED', text: `Record ${entityKey} deleted` });
  };
}
