import type { RouteOptions } from 'fastify';
import Type, { type Static } from 'typebox';
import type { Access } from '../auth/access.plugin.ts';
import type { CapabilityRegistry, Role } from '../auth/capabilities.ts';

/**
 * The routes of the WordPress-shaped part of the API, described as
 * WordPress describes them: the `routes` of the root index, a namespace
 * index, and the answer to `OPTIONS` on a route.
 */

type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; required?: string[] };
type RouteSchema = Record<string, unknown> & { querystring?: JsonSchema; body?: JsonSchema; params?: JsonSchema; operationId?: string };

/** JSON-schema keywords WordPress copies into an argument's description in its route indexes (plus `required`). */
const ARG_KEYWORDS = ['type', 'description', 'default', 'items', 'format', 'enum', 'minimum', 'maximum', 'anyOf'];

const ArgSchema = Type.Object(
  { required: Type.Boolean() },
  { additionalProperties: true, description: 'An argument: its JSON-schema keywords' },
);

/** A route as WordPress describes it (the indexes' entries, and `OPTIONS`). */
export const RouteDescriptionSchema = Type.Object(
  {
    namespace: Type.String(),
    methods: Type.Array(Type.String()),
    endpoints: Type.Array(Type.Object({ methods: Type.Array(Type.String()), args: Type.Record(Type.String(), ArgSchema) })),
    _links: Type.Optional(Type.Object({ self: Type.Array(Type.Object({ href: Type.String() })) })),
  },
  { $id: 'WpRouteDescription' },
);
export type RouteEntry = Static<typeof RouteDescriptionSchema>;
type RouteArgs = RouteEntry['endpoints'][number]['args'];

function argsOf(schema: JsonSchema | undefined): RouteArgs {
  const args: RouteArgs = {};
  const required = new Set(schema?.required ?? []);
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    const keywords: Record<string, unknown> = {};
    for (const keyword of ARG_KEYWORDS) {
      if (property[keyword] !== undefined) keywords[keyword] = property[keyword];
    }
    args[name] = { ...keywords, required: required.has(name) };
  }
  return args;
}

/** Fastify path → WordPress route regex (`/events/:id(^\\d+$)` → `/events/(?P<id>\d+)`). */
export function toWpRoutePattern(path: string): string {
  return path.replace(/:(\w+)\(\^?(.+?)\$?\)/g, '(?P<$1>$2)').replace(/:(\w+)/g, '(?P<$1>[^/]+)');
}

export interface Endpoint {
  readonly methods: readonly string[];
  readonly args: RouteArgs;
  /** Who may call it, as the route declares. */
  readonly access: Access;
  readonly operationId: string | undefined;
}

/** One route (a path and its endpoints), in the order registered. */
export interface WpRoute {
  /** The WordPress route key: the path under the API root as a regex (`/calendar/events/v1/events/(?P<id>\d+)`). */
  readonly key: string;
  /** The Fastify path under the API root (`/calendar/events/v1/events/:id(^\\d+$)`), `/` for the root. */
  readonly path: string;
  readonly namespace: string;
  /** The path parameters' schema, as the route declares it. */
  readonly params: JsonSchema | undefined;
  readonly endpoints: Endpoint[];
}

/** Collects the routes registered under the API root (from an `onRoute` hook), grouped by path. */
export class WpRouteTable {
  private readonly byPath = new Map<string, WpRoute>();

  constructor(
    /** The path part of `BASE_URL` (`''` or `/prefix`). */
    private readonly basePath: string,
    private readonly baseUrl: string,
    private readonly namespaces: readonly string[],
    private readonly capabilities: CapabilityRegistry,
  ) {}

  get routes(): readonly WpRoute[] {
    return [...this.byPath.values()];
  }

  /** Records a route; its arguments are read now, before later hooks add the global ones (`_fields`…). */
  add(route: RouteOptions): void {
    const methods = [route.method].flat().filter((method) => method !== 'HEAD' && method !== 'OPTIONS');
    if (methods.length === 0 || !route.url.startsWith(this.basePath)) return;
    const path = route.url.slice(this.basePath.length).replace(/(.)\/$/, '$1') || '/';
    const schema = route.schema as RouteSchema | undefined;
    const args = { ...argsOf(schema?.querystring), ...argsOf(schema?.body) };
    const access = (route.config as { access?: Access } | undefined)?.access ?? 'public';
    const operationId = schema?.operationId;
    let entry = this.byPath.get(path);
    if (entry === undefined) {
      const namespace = this.namespaces.find((name) => path === `/${name}` || path.startsWith(`/${name}/`)) ?? '';
      entry = { key: toWpRoutePattern(path), path, namespace, params: schema?.params, endpoints: [] };
      this.byPath.set(path, entry);
    }
    entry.endpoints.push({ methods, args, access, operationId });
  }

  /** A route as the indexes and `OPTIONS` show it; only routes without parameters link to themselves. */
  describe(route: WpRoute): RouteEntry {
    const entry: RouteEntry = {
      namespace: route.namespace,
      methods: route.endpoints.flatMap((endpoint) => endpoint.methods),
      endpoints: route.endpoints.map((endpoint) => ({ methods: [...endpoint.methods], args: endpoint.args })),
    };
    if (!route.key.includes('(?P<')) entry._links = { self: [{ href: `${this.baseUrl}${route.path === '/' ? '/' : route.path}` }] };
    return entry;
  }

  /** The `routes` object of an index: every route, or those of one namespace. */
  describeAll(namespace?: string): Record<string, RouteEntry> {
    const entries: Record<string, RouteEntry> = {};
    for (const route of this.byPath.values()) {
      if (namespace === undefined || route.namespace === namespace) entries[route.key] = this.describe(route);
    }
    return entries;
  }

  /** The methods of a route a caller with this role may call (WordPress's `Allow` header). */
  allowedMethods(route: WpRoute, role: Role | null): string[] {
    return route.endpoints
      .filter((endpoint) => endpoint.access === 'public' || this.capabilities.can(role, endpoint.access))
      .flatMap((endpoint) => endpoint.methods);
  }
}
