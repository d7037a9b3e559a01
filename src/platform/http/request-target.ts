import type { IncomingMessage } from 'node:http';
import { ValidationError } from './classify-error.ts';

/**
 * Where WordPress clients aim a request besides its URL and method:
 * - `?rest_route=/calendar/events/v1/events/66` on the site root, as sites
 *   without pretty permalinks are called;
 * - `_method=DELETE` in the query, or `X-HTTP-Method-Override: DELETE`, on a
 *   POST (`@wordpress/api-fetch` sends every PUT, PATCH and DELETE so).
 * Runs before routing (Fastify's `rewriteUrl`), on the raw request.
 */

/** What a POST may turn into. A GET never changes method: a link must not be able to delete. */
const OVERRIDES = new Set(['PUT', 'PATCH', 'DELETE']);
const REFUSAL = Symbol('refused request target');

type Marked = IncomingMessage & { [REFUSAL]?: ValidationError };

function decodeKey(part: string): string {
  const key = part.split('=', 1)[0] ?? '';
  try {
    return decodeURIComponent(key.replaceAll('+', ' '));
  } catch {
    return key;
  }
}

function decodeValue(part: string): string {
  const at = part.indexOf('=');
  const value = at === -1 ? '' : part.slice(at + 1);
  try {
    return decodeURIComponent(value.replaceAll('+', ' '));
  } catch {
    return value;
  }
}

/** `rest_route`'s value as a path the router decodes back to it. */
function routePath(route: string): string {
  const absolute = route.startsWith('/') ? route : `/${route}`;
  try {
    return encodeURI(absolute).replaceAll('?', '%3F').replaceAll('#', '%23');
  } catch {
    // A lone surrogate: a path no route has.
    return '/%00';
  }
}

function overrideMethod(req: Marked, asked: string, name: string): void {
  const method = asked.trim().toUpperCase();
  if (method === req.method) return;
  if (req.method !== 'POST') {
    req[REFUSAL] = new ValidationError({ [name]: 'Only a POST request may override its method.' }, []);
  } else if (!OVERRIDES.has(method)) {
    req[REFUSAL] = new ValidationError({ [name]: 'The method must be PUT, PATCH or DELETE.' }, []);
  } else {
    req.method = method;
  }
}

/** Fastify's `rewriteUrl`: the URL to route, after taking `rest_route` and the method override out of the request. */
export function requestTarget(basePath: string): (req: IncomingMessage) => string {
  const roots = new Set([basePath === '' ? '/' : basePath, `${basePath}/`, `${basePath}/index.php`]);
  return (req: Marked) => {
    const url = req.url ?? '/';
    const header = req.headers['x-http-method-override'];
    const queryAt = url.indexOf('?');
    const query = queryAt === -1 ? '' : url.slice(queryAt + 1);
    const mentions = query.includes('_method') || query.includes('rest_route');
    if (header === undefined && !mentions) return url;

    const parts = query === '' ? [] : query.split('&');
    const method = parts.find((part) => decodeKey(part) === '_method');
    if (method !== undefined) overrideMethod(req, decodeValue(method), '_method');
    else if (typeof header === 'string') overrideMethod(req, header, 'X-HTTP-Method-Override');

    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    const route = parts.find((part) => decodeKey(part) === 'rest_route');
    if (route === undefined || !roots.has(path)) return url;
    const rest = parts.filter((part) => decodeKey(part) !== 'rest_route').join('&');
    return `${basePath}${routePath(decodeValue(route))}${rest === '' ? '' : `?${rest}`}`;
  };
}

/** The 400 `requestTarget` decided on (a method override it refused), for the request's first hook. */
export function refusedTarget(req: IncomingMessage): ValidationError | undefined {
  return (req as Marked)[REFUSAL];
}
