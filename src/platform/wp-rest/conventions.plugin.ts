import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply } from 'fastify';
import Type from 'typebox';
import { AppError } from '../errors.ts';
import { versionOfEtag } from '../http/entity-tags.ts';
import { envelopeOf, fieldTree, pickAnswerFields } from './response-shaping.ts';
import type { WpRouteTable } from './route-table.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** On an archive route, the key of its list of items (`_fields` applies to each item). */
    collection?: string;
  }
}

export interface WpRestOptions {
  readonly table: WpRouteTable;
  /** `BASE_URL`, the REST API root. */
  readonly baseUrl: string;
}

/** WordPress's global parameters, accepted by every route of the WordPress-shaped part of the API. */
const GLOBAL_QUERY = {
  _fields: Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String())], {
      description:
        'Only these fields (comma-separated or repeated; a.b for a nested field), of the item or of each item of a list; ' +
        'a list keeps its links and totals. Fields not named are absent.',
    }),
  ),
  _envelope: Type.Optional(
    Type.String({ description: 'Present: the answer is a 200 whose body is {body, status, headers} (for clients that cannot read them).' }),
  ),
};

interface GlobalQuery {
  _fields?: string | string[];
  _envelope?: string;
  _jsonp?: unknown;
}

type JsonObject = Record<string, unknown> & { properties?: Record<string, unknown> };

function appendLink(reply: FastifyReply, link: string): void {
  const existing = reply.getHeader('link');
  void reply.header('link', existing === undefined ? link : `${[existing].flat().join(', ')}, ${link}`);
}

function isJson(reply: FastifyReply): boolean {
  return String(reply.getHeader('content-type') ?? '').startsWith('application/json');
}

/** `_fields` and `_envelope` applied to a JSON answer. */
function shape(query: GlobalQuery, reply: FastifyReply, payload: unknown, collection: string | undefined): unknown {
  const text = Buffer.isBuffer(payload) ? payload.toString('utf8') : typeof payload === 'string' ? payload : undefined;
  if (text === undefined || text === '' || !isJson(reply)) return payload;
  let body: unknown = JSON.parse(text);
  if (query._fields !== undefined && reply.statusCode < 400) {
    const fields = [query._fields].flat().flatMap((list) => list.split(','));
    body = pickAnswerFields(body, fieldTree(fields), collection);
  }
  if (query._envelope !== undefined) {
    body = envelopeOf(body, reply.statusCode, reply.getHeaders());
    void reply.code(200);
  }
  return JSON.stringify(body);
}

/**
 * A reshaped answer is other bytes: a tag the route gave the whole answer is dropped, so that the answer is
 * tagged as sent (conditional-get.ts), and keeps the item version it named.
 */
function retag(reply: FastifyReply): void {
  const tagged = reply.getHeader('etag');
  if (typeof tagged !== 'string') return;
  void reply.removeHeader('etag');
  if (reply.itemVersion === null) reply.itemVersion = versionOfEtag(tagged) ?? null;
}

/**
 * The conventions of WordPress's REST server for the routes registered
 * beside it (the API index and the calendar namespace): every route is
 * recorded in the route table and takes `_fields` and `_envelope`; every
 * answer links to the API root (`rel="https://api.w.org/"`, discovery);
 * `_jsonp` is refused as on a site with JSONP disabled.
 */
export const wpRestConventions = fp<WpRestOptions>(
  async (app: FastifyInstance, { table, baseUrl }) => {
    const apiLink = `<${baseUrl}/>; rel="https://api.w.org/"`;

    app.addHook('onRoute', (route) => {
      table.add(route);
      const schema = (route.schema ?? {}) as Record<string, unknown>;
      const query = schema.querystring as JsonObject | undefined;
      route.schema = { ...schema, querystring: { type: 'object', ...query, properties: { ...query?.properties, ...GLOBAL_QUERY } } };
    });

    app.addHook('onRequest', (request, _reply, done) => {
      const query = request.query as GlobalQuery;
      if (query._jsonp === undefined) return done();
      done(new AppError(400, 'rest_callback_disabled', 'JSONP support is disabled on this site.'));
    });

    app.addHook('onSend', (request, reply, payload, done) => {
      const query = request.query as GlobalQuery;
      // A HEAD answer has no body to reshape: its status and headers stay the answer's own.
      const asIs = (query._fields === undefined && query._envelope === undefined) || request.method === 'HEAD';
      if (!asIs) retag(reply);
      const shaped = asIs ? payload : shape(query, reply, payload, request.routeOptions.config.collection);
      // After the envelope: it carries the answer's own headers, not the site's.
      appendLink(reply, apiLink);
      done(null, shaped);
    });
  },
  { name: 'almanac-wp-rest' },
);
