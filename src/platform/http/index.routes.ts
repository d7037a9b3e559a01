import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { Config } from '../../config/config.ts';
import { RouteDescriptionSchema, type WpRouteTable } from '../wp-rest/route-table.ts';

const LinksSchema = Type.Record(Type.String(), Type.Array(Type.Object({ href: Type.String() })));

const IndexSchema = Type.Object({
  name: Type.String(),
  description: Type.String(),
  url: Type.String(),
  home: Type.String(),
  namespaces: Type.Array(Type.String()),
  authentication: Type.Object({}, { additionalProperties: true }),
  routes: Type.Record(Type.String(), RouteDescriptionSchema),
  _links: LinksSchema,
});

export interface IndexOptions {
  readonly config: Config;
  readonly namespaces: readonly string[];
  /** Every WordPress-shaped route, for `routes` (what `wpapi`'s `discover()` builds its client from). */
  readonly table: WpRouteTable;
}

/** `GET /`: the WordPress-style API index. */
export async function indexRoutes(app: FastifyInstance, { config, namespaces, table }: IndexOptions) {
  app.get('/', {
    config: { access: 'public' },
    schema: {
      operationId: 'getIndex',
      tags: ['platform'],
      summary: 'The API index: namespaces, routes and links',
      response: { 200: IndexSchema },
    },
    handler: async () => ({
      name: 'Almanac',
      description: 'An open calendar-events service: events, venues, organizers, categories and tags.',
      url: config.baseUrl,
      home: config.baseUrl,
      namespaces,
      authentication: { basic: { realm: 'almanac' }, bearer: {} },
      routes: table.describeAll(),
      _links: {
        help: [{ href: `${config.baseUrl}/docs` }],
        ...Object.fromEntries(namespaces.map((namespace) => [namespace, [{ href: `${config.baseUrl}/${namespace}` }]])),
      },
    }),
  });
}
