import type { RegisteredRoute } from './route-registry.ts';
import { toWpRoutePattern } from './route-registry.ts';

type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; required?: string[] };

const ARG_KEYWORDS = ['type', 'description', 'default', 'items', 'format', 'enum', 'minimum', 'maximum', 'anyOf'];

function argsOf(schema: JsonSchema | undefined): Record<string, Record<string, unknown>> {
  const args: Record<string, Record<string, unknown>> = {};
  const required = new Set(schema?.required ?? []);
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    const arg: Record<string, unknown> = {};
    for (const keyword of ARG_KEYWORDS) {
      if (property[keyword] !== undefined) arg[keyword] = property[keyword];
    }
    arg.required = required.has(name);
    args[name] = arg;
  }
  return args;
}

interface Endpoint {
  methods: string[];
  args: Record<string, Record<string, unknown>>;
}

interface RouteEntry {
  namespace: string;
  methods: string[];
  endpoints: Endpoint[];
  _links?: { self: { href: string }[] };
}

/**
 * The namespace index (calendar-reference.md §11.2), built from the routes
 * registered under the namespace, so it grows as routes are added.
 */
export function buildNamespaceDocument(namespace: string, namespaceUrl: string, baseUrl: string, routes: readonly RegisteredRoute[]) {
  const entries: Record<string, RouteEntry> = {};
  for (const route of routes) {
    const pattern = toWpRoutePattern(route.path);
    const key = `/${namespace}${pattern}`;
    const entry = (entries[key] ??= { namespace, methods: [], endpoints: [] });
    const schema = route.schema as Record<string, JsonSchema | undefined> | undefined;
    const args = { ...argsOf(schema?.querystring), ...argsOf(schema?.body) };
    entry.methods.push(...route.methods);
    entry.endpoints.push({ methods: [...route.methods], args });
    if (!pattern.includes('(?P<')) entry._links = { self: [{ href: `${namespaceUrl}${route.path}` }] };
  }
  return { namespace, routes: entries, _links: { up: [{ href: `${baseUrl}/` }] } };
}
