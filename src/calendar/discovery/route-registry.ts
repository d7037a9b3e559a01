import type { RouteOptions } from 'fastify';

/** A calendar route as the discovery document and `/doc` describe it. */
export interface RegisteredRoute {
  /** Path relative to the namespace root, in Fastify syntax (`/events/:id(^\\d+$)`). */
  readonly path: string;
  readonly methods: readonly string[];
  readonly schema: RouteOptions['schema'];
}

/** Fastify path → WordPress route regex (`/events/:id(^\\d+$)` → `/events/(?P<id>\d+)`). */
export function toWpRoutePattern(path: string): string {
  return path
    .replace(/:(\w+)\(\^?(.+?)\$?\)/g, '(?P<$1>$2)')
    .replace(/:(\w+)/g, '(?P<$1>[^/]+)');
}

/** Collects the routes of one namespace in registration order. */
export class RouteRegistry {
  readonly routes: RegisteredRoute[] = [];

  constructor(private readonly prefix: string) {}

  add(route: RouteOptions): void {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter(
      (method) => method !== 'HEAD' && method !== 'OPTIONS',
    );
    if (methods.length === 0 || !route.url.startsWith(this.prefix)) return;
    const path = route.url.slice(this.prefix.length).replace(/\/$/, '');
    this.routes.push({ path, methods, schema: route.schema });
  }
}
