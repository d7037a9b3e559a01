import Type, { type Static } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { RouteDescriptionSchema, type WpRouteTable } from '../../platform/wp-rest/route-table.ts';
import { LanguageQuerySchema } from '../common/schemas.ts';

export interface DiscoveryOptions {
  readonly namespace: string;
  readonly namespaceUrl: string;
  readonly baseUrl: string;
  readonly table: WpRouteTable;
}

const RootQuerySchema = Type.Object({
  ...LanguageQuerySchema.properties,
  namespace: Type.Optional(Type.String({ default: 'calendar/events/v1' })),
  context: Type.Optional(Type.String({ default: 'view' })),
});

const NamespaceIndexSchema = Type.Object({
  namespace: Type.String(),
  routes: Type.Record(Type.String(), RouteDescriptionSchema),
  _links: Type.Object({ up: Type.Array(Type.Object({ href: Type.String() })) }),
});

const Free = (description: string) => Type.Object({}, { additionalProperties: true, description });
const OpenApiDocumentSchema = Type.Object(
  {
    openapi: Type.String(),
    info: Free('Title, version, description'),
    servers: Type.Array(Free('A server')),
    components: Free('Schemas and security schemes'),
    paths: Free('The operations'),
  },
  { additionalProperties: true },
);

type OpenApiDocument = Static<typeof OpenApiDocumentSchema>;

/**
 * `/doc`: the namespace's part of the service's OpenAPI document, rooted at
 * the namespace (the whole document's paths are relative to `BASE_URL`). Its
 * server is the REST root as the reference gives it, with a trailing slash
 * (docs/wordpress-conventions.md).
 */
function namespaceOpenApi(whole: Partial<OpenApiDocument>, namespace: string, namespaceUrl: string): OpenApiDocument {
  const prefix = `/${namespace}`;
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

const DocQuerySchema = Type.Object({
  ...LanguageQuerySchema.properties,
  plain: Type.Optional(
    Type.String({
      description:
        'Present: only the answers to requests without _fields and _envelope (what a type generator reads); ' +
        'absent: every answer, those they reshape too (what a validating proxy reads)',
    }),
  ),
});

export async function discoveryRoutes(app: FastifyInstance, options: DiscoveryOptions): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const docs = new Map<boolean, OpenApiDocument>();

  typed.get('/', {
    config: { access: 'public' },
    schema: {
      operationId: 'getCalendarIndex',
      tags: ['calendar'],
      summary: 'The namespace index: every route of calendar/events/v1 with its arguments',
      querystring: RootQuerySchema,
      response: { 200: NamespaceIndexSchema },
    },
    // The namespace index, WordPress-shaped, built from the routes registered, so it grows with them.
    handler: async () => ({
      namespace: options.namespace,
      routes: options.table.describeAll(options.namespace),
      _links: { up: [{ href: `${options.baseUrl}/` }] },
    }),
  });

  typed.get('/doc', {
    config: { access: 'public' },
    schema: {
      operationId: 'getCalendarOpenApi',
      tags: ['calendar'],
      summary: 'The OpenAPI 3.1 document of this namespace',
      querystring: DocQuerySchema,
      response: { 200: OpenApiDocumentSchema },
    },
    handler: async (request) => {
      const plain = request.query.plain !== undefined;
      let doc = docs.get(plain);
      if (doc === undefined) {
        doc = namespaceOpenApi(app.openApiDocument(plain) as OpenApiDocument, options.namespace, options.namespaceUrl);
        docs.set(plain, doc);
      }
      return doc;
    },
  });
}
