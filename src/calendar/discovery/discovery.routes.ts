import Type from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { buildNamespaceDocument } from './namespace-document.ts';
import type { RouteRegistry } from './route-registry.ts';
import { LanguageQuerySchema } from '../shared/schemas.ts';

export interface DiscoveryOptions {
  readonly namespace: string;
  readonly namespaceUrl: string;
  readonly baseUrl: string;
  readonly routePrefix: string;
  readonly registry: RouteRegistry;
}

const RootQuerySchema = Type.Object({
  ...LanguageQuerySchema.properties,
  namespace: Type.Optional(Type.String({ default: 'calendar/events/v1' })),
  context: Type.Optional(Type.String({ default: 'view' })),
});

type OpenApiDocument = { paths?: Record<string, unknown>; [key: string]: unknown };

/** `/doc`: the namespace's part of the service's OpenAPI document, rooted at the namespace. */
function namespaceOpenApi(whole: OpenApiDocument, prefix: string, namespaceUrl: string): OpenApiDocument {
  const paths: Record<string, unknown> = {};
  for (const [path, item] of Object.entries(whole.paths ?? {})) {
    if (!path.startsWith(prefix)) continue;
    paths[path.slice(prefix.length) || '/'] = item;
  }
  return {
    openapi: '3.1.0',
    info: {
      version: '1.0.0',
      title: 'Almanac calendar events API',
      description: 'Events, venues, organizers, categories and tags, compatible with The Events Calendar REST API v1.',
    },
    servers: [{ url: `${namespaceUrl}/` }],
    components: whole.components ?? {},
    paths,
  };
}

export async function discoveryRoutes(app: FastifyInstance, options: DiscoveryOptions): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  let doc: OpenApiDocument | undefined;

  typed.get('/', {
    config: { access: 'public' },
    schema: {
      tags: ['calendar'],
      summary: 'The namespace index: every route of calendar/events/v1 with its arguments',
      querystring: RootQuerySchema,
    },
    handler: async () =>
      buildNamespaceDocument(options.namespace, options.namespaceUrl, options.baseUrl, options.registry.routes),
  });

  typed.get('/doc', {
    config: { access: 'public' },
    schema: {
      tags: ['calendar'],
      summary: 'The OpenAPI 3.1 document of this namespace',
      querystring: LanguageQuerySchema,
    },
    handler: async () => {
      doc ??= namespaceOpenApi(app.swagger() as OpenApiDocument, options.routePrefix, options.namespaceUrl);
      return doc;
    },
  });
}
