import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  ContextConfigDefault,
  FastifySchema,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
} from 'fastify';

/**
 * A route's handler written apart from its registration, typed by the route's TypeBox schema as a handler written
 * inline is: its request's params, query and body, and what it may answer. A registration function then only
 * declares its routes (method, URL, config, schema) and names each one's handler. `Route` types what a generic
 * schema cannot (a route registered as `app.route<Route>`).
 */
export type Handler<Schema extends FastifySchema, Route extends RouteGenericInterface = RouteGenericInterface> = RouteHandlerMethod<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  Route,
  ContextConfigDefault,
  Schema,
  TypeBoxTypeProvider
>;
