import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/config.ts';

/** `GET /`: the WordPress-style API index. */
export async function indexRoutes(app: FastifyInstance, { config, namespaces }: { config: Config; namespaces: readonly string[] }) {
  app.get('/', {
    config: { access: 'public' },
    schema: { tags: ['platform'], summary: 'The API index: namespaces and links' },
    handler: async () => ({
      name: 'Almanac',
      description: 'An open calendar-events service: events, venues, organizers, categories and tags.',
      url: config.baseUrl,
      home: config.baseUrl,
      namespaces,
      authentication: { basic: { realm: 'almanac' }, bearer: {} },
      _links: {
        help: [{ href: `${config.baseUrl}/docs` }],
        ...Object.fromEntries(namespaces.map((namespace) => [namespace, [{ href: `${config.baseUrl}/${namespace}` }]])),
      },
    }),
  });
}
