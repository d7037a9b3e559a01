import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { Config } from '../../config/config.ts';
import { RouteDescriptionSchema, type WpRouteTable } from '../wp-rest/route-table.ts';
import { addVary } from './cache-control.ts';

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

/** Where a browser opening the site's root is sent: the calendar people read (docs/calendar-pages.md). */
const PAGES_HOME = '/events/';

/**
 * Whether an Accept header prefers a web page to JSON: a browser's does
 * (`text/html,…,*\/*;q=0.8`); none, `*\/*` or `application/json` (API clients,
 * wpapi's discovery) does not. JSON is listed first, so a tie keeps the index.
 */
function prefersPage(accept: string | undefined): boolean {
  return accept !== undefined && negotiate(accept, ['application/json', 'text/html']) === 'text/html';
}

/**
 * Whether a URL names one of WordPress's own API arguments (`rest_route`, `_envelope`, `_fields`, `_embed`…):
 * whoever sends one asks for the API, even from a browser's address bar. Read on the URL as sent, before
 * `rest_route` is taken out of it (request-target.ts).
 */
function namesApiArgument(url: string): boolean {
  const queryAt = url.indexOf('?');
  if (queryAt === -1) return false;
  return [...new URLSearchParams(url.slice(queryAt + 1)).keys()].some((key) => key === 'rest_route' || key.startsWith('_'));
}

/** `GET /`: the WordPress-style API index, or for a browser a redirect to the calendar's pages. */
export async function indexRoutes(app: FastifyInstance, { config, namespaces, table }: IndexOptions) {
  const index = () => ({
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
  });

  app.get('/', {
    config: { access: 'public' },
    schema: {
      operationId: 'getIndex',
      tags: ['platform'],
      summary: 'The API index: namespaces, routes and links',
      description: `A request whose Accept prefers text/html to JSON (a browser's) and that names no API argument (\`rest_route\`, \`_envelope\`, \`_fields\`…) is sent to the calendar's pages (\`${PAGES_HOME}\`) with a 303; every other gets the index.`,
      response: {
        200: IndexSchema,
        303: { description: "See Other: the calendar's pages, at Location (no body)", type: 'null' },
      },
    },
    handler: async (request, reply) => {
      // One URL, two answers: caches must key them by Accept.
      addVary(reply, 'Accept');
      // 303, not 301 or 308: the index has not moved, so nothing may remember this answer for a later API request.
      if (prefersPage(request.headers.accept) && !namesApiArgument(request.originalUrl)) {
        return reply.redirect(`${config.basePath}${PAGES_HOME}`, 303);
      }
      return index();
    },
  });
}
