import fp from 'fastify-plugin';
import type { FastifyInstance, RouteOptions } from 'fastify';
import Type, { type Static, type TObject, type TSchema } from 'typebox';
import type { Access } from '../auth/access.plugin.ts';
import { BODY_MEDIA_TYPES } from '../http/parameters.plugin.ts';

/**
 * The OpenAPI contract as the server keeps it: what every route can answer
 * besides what it declares, completed from facts the platform knows (its
 * declared access, whether it reads a body), so that a typed client or a
 * contract proxy in strict mode sees every status an operation returns.
 */

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Error statuses the route answers besides those it declares a response for and the platform's. */
    errors?: readonly number[];
  }
}

const ERROR_SCHEMA = Symbol('error schema');
type WithErrorSchema = FastifyInstance & { [ERROR_SCHEMA]?: TSchema };

/**
 * The error body of the routes registered on `app` and its children (each
 * surface renders errors in its own shape). Encapsulated as Fastify's own
 * settings are: a child instance inherits its parent's through its prototype.
 */
export function declareErrorSchema(app: FastifyInstance, schema: TSchema): void {
  (app as WithErrorSchema)[ERROR_SCHEMA] = schema;
}

/** Statuses any route may answer: bad parameters, bad credentials, too many requests or failed logins. */
const ALWAYS = [400, 401, 429] as const;
/** …a route with a capability: the caller lacks it. */
const GUARDED = [403] as const;
/** …a route that reads a body (any method but GET and HEAD): too large, or of a type no parser reads. */
const WITH_BODY = [413, 415] as const;
/**
 * …and writes: a constraint a concurrent change made them break (nothing written), or another process held the
 * SQLite write lock longer than SQLITE_BUSY_WAIT_MS (with Retry-After).
 */
const WRITES = [409, 503] as const;

const ANY_CALLER = [{ basicAuth: [] }, { bearerAuth: [] }, {}];
const AUTHENTICATED = [{ basicAuth: [] }, { bearerAuth: [] }];

type RouteSchema = Record<string, unknown> & { hide?: boolean; operationId?: string; response?: Record<string, unknown> };

function complete(route: RouteOptions, errorSchema: TSchema | undefined): void {
  const schema = route.schema as RouteSchema | undefined;
  if (schema === undefined || schema.hide === true) return;
  const methods = [route.method].flat();
  if (typeof schema.operationId !== 'string') throw new Error(`Route ${methods.join(',')} ${route.url} declares no operationId`);
  const config = route.config as { access?: Access; errors?: readonly number[] } | undefined;
  const access = config?.access ?? 'public';
  const readsBody = methods.some((method) => method !== 'GET' && method !== 'HEAD');
  const statuses = [
    ...ALWAYS,
    ...(access === 'public' ? [] : GUARDED),
    ...(readsBody ? [...WITH_BODY, ...WRITES] : []),
    ...(config?.errors ?? []),
  ];
  const response = { ...schema.response };
  if (errorSchema !== undefined) {
    for (const status of statuses) response[status] ??= errorSchema;
  }
  route.schema = {
    ...schema,
    security: schema.security ?? (access === 'public' ? ANY_CALLER : AUTHENTICATED),
    response,
    ...(schema.body === undefined ? {} : { consumes: schema.consumes ?? [...BODY_MEDIA_TYPES] }),
  } as RouteOptions['schema'];
}

/**
 * Completes every route's schema as it is registered: refuses a route with
 * no `operationId` (as one with no access), applies its security, adds the
 * platform's statuses with the surface's error body, and documents the
 * media types a body may come in.
 */
export const contractPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRoute', function (this: WithErrorSchema, route) {
      complete(route, this[ERROR_SCHEMA]);
    });
  },
  { name: 'almanac-contract' },
);

/**
 * Marks response properties that are always present but cannot be declared
 * required: the serializer emits required properties first, and the wire's
 * key order is the reference's. The OpenAPI document lists them as required.
 */
const PRESENT = 'x-always-present';

/**
 * An object schema serialized in its declared key order: its required
 * properties are marked present instead of required (same static type).
 */
export function InKeyOrder<T extends TObject>(schema: T): T {
  const { required = [], properties, ...rest } = schema as unknown as { required?: string[]; properties: Record<string, object> };
  const marked = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => [name, required.includes(name) ? { ...property, [PRESENT]: true } : property]),
  );
  return Type.Unsafe<Static<T>>({ ...rest, properties: marked }) as unknown as T;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document as served: any shape its generator emits
type Json = Record<string, any>;

const OPERATION_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** Moves `x-always-present` marks into their object's `required`, everywhere in a document. */
function requirePresent(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(requirePresent);
  if (node === null || typeof node !== 'object') return;
  const object = node as Json;
  const properties = object.properties as Json | undefined;
  if (properties !== undefined && typeof properties === 'object') {
    const present = Object.keys(properties).filter((name) => properties[name]?.[PRESENT] === true);
    if (present.length > 0) object.required = [...new Set([...(object.required ?? []), ...present])];
  }
  delete object[PRESENT];
  Object.values(object).forEach(requirePresent);
}

function isObjectSchema(schema: Json | undefined): boolean {
  return (
    schema?.type === 'object' ||
    (schema?.type === undefined && (schema?.properties !== undefined || schema?.additionalProperties !== undefined))
  );
}

/**
 * A query parameter taking one value or a list: in a query string one value
 * is a list of one (`style: form, explode: true`), so the document says list,
 * which clients and the docs UI render as one.
 */
function queryListSchema(schema: Json | undefined): Json | undefined {
  const members = schema?.anyOf as Json[] | undefined;
  if (members?.length !== 2) return undefined;
  const list = members.find((member) => member.type === 'array');
  const one = members.find((member) => member !== list);
  if (list === undefined || one === undefined || JSON.stringify(list.items) !== JSON.stringify(one)) return undefined;
  const { anyOf: _members, ...rest } = schema as Json;
  return { ...rest, ...list };
}

function completeOperation(operation: Json, method: string, usedIds: Set<string>): Json {
  const completed: Json = { ...operation };
  // A route of several methods shares one operation: the first method keeps its id, the others add their name.
  if (typeof completed.operationId === 'string' && usedIds.has(completed.operationId)) {
    completed.operationId = `${completed.operationId}${method[0]?.toUpperCase()}${method.slice(1)}`;
  }
  if (typeof completed.operationId === 'string') usedIds.add(completed.operationId);
  if (Array.isArray(completed.parameters)) {
    completed.parameters = completed.parameters.map((parameter: Json) => ({
      ...parameter,
      ...(parameter.in === 'query' && queryListSchema(parameter.schema) !== undefined ? { schema: queryListSchema(parameter.schema) } : {}),
      // A parameter with a default may be left out: the server fills it in.
      required: parameter.in === 'path' || (parameter.required === true && parameter.schema?.default === undefined),
      ...(parameter.in === 'query' && isObjectSchema(parameter.schema) ? { style: 'deepObject', explode: true } : {}),
    }));
  }
  if (completed.requestBody !== undefined) {
    // No body is `{}` (parameters may come in the query string): a body is needed only to carry required fields.
    const media = Object.values<Json>(completed.requestBody.content ?? {});
    const required = media.some((content) => Array.isArray(content.schema?.required) && content.schema.required.length > 0);
    completed.requestBody = { ...completed.requestBody, required };
  }
  return completed;
}

/** The document as served (`transformObject`): what a route's schema cannot say on its own. */
export function completeDocument<T extends Json>(document: T): T {
  const usedIds = new Set<string>();
  for (const item of Object.values<Json>(document.paths ?? {})) {
    for (const method of Object.keys(item)) {
      if (OPERATION_METHODS.has(method)) item[method] = completeOperation(item[method], method, usedIds);
    }
  }
  requirePresent(document);
  return document;
}
