import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { parseParameters, type Parameters } from '../../src/platform/http/querystring.ts';

/**
 * The served OpenAPI document as a contract every response of the suite is
 * held to: the operation answered must list the status, and a JSON body must
 * match its schema. A drift between the server and its document fails CI.
 */

type Json = Record<string, any>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;
/** Not in the document: the docs UI and its assets, and the SOAP endpoint (its contract is the WSDL). */
const UNDOCUMENTED = [/^\/docs(\/|$)/, /^\/soap\/PingService\/?$/i];
/**
 * Refusals before any route: a malformed request, bad credentials, a lockout, a body over the size limit (read
 * before an unknown path is answered); Node's own for an oversized request line or headers.
 */
const BEFORE_ROUTING = new Set([400, 401, 404, 413, 414, 429, 431]);

interface DocumentedOperation {
  readonly method: string;
  readonly template: string;
  readonly pattern: RegExp;
  readonly pointer: string;
  readonly responses: Json;
}

function escapePointer(part: string): string {
  return part.replace(/~/g, '~0').replace(/\//g, '~1');
}

function withoutRequired(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutRequired);
  if (node === null || typeof node !== 'object') return node;
  const result: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key !== 'required' || !Array.isArray(value)) result[key] = withoutRequired(value);
  }
  return result;
}

/**
 * A path template as the router matches it: an integer parameter (an id) only matches digits, another
 * parameter a segment — empty too unless it ends the path (find-my-way routes `/actions//run` to
 * `/actions/:code/run`, and `/venues/by-slug/` nowhere).
 */
function pathPattern(template: string, parameters: readonly Json[]): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  const source = escaped.replace(/\{([^}]+)\}/g, (whole, name: string, offset: number) => {
    const parameter = parameters.find((candidate) => candidate.in === 'path' && candidate.name === name);
    if (parameter?.schema?.type === 'integer') return '\\d+';
    return offset + whole.length < escaped.length ? '[^/]*' : '[^/]+';
  });
  return new RegExp(`^${source}/?$`);
}

/** Where a request lands, as the server routes it: `rest_route` on the root, a POST's method override. */
function effectiveTarget(
  method: string,
  url: URL,
  query: Parameters,
  headers: Readonly<Record<string, string>>,
  basePath: string,
): { method: string; path: string } {
  let path = url.pathname.slice(basePath.length) || '/';
  const route = query.rest_route;
  if (typeof route === 'string' && (path === '/' || path === '/index.php')) path = route.startsWith('/') ? route : `/${route}`;
  const asked = query._method ?? Object.entries(headers).find(([name]) => name.toLowerCase() === 'x-http-method-override')?.[1];
  const override = typeof asked === 'string' ? asked : undefined;
  const upper = method.toUpperCase();
  return { method: upper === 'POST' && override !== undefined ? override.toUpperCase() : upper, path };
}

export class Contract {
  private readonly ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  private readonly operations: DocumentedOperation[] = [];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(
    document: Json,
    private readonly basePath: string,
  ) {
    this.ajv.addSchema(document, 'openapi');
    // With `_fields` an answer holds only the fields named: checked against the document without `required`.
    this.ajv.addSchema(withoutRequired(document) as Json, 'openapi-fields');
    for (const [template, item] of Object.entries<Json>(document.paths ?? {})) {
      for (const method of METHODS) {
        const operation = item[method] as Json | undefined;
        if (operation === undefined) continue;
        const pattern = pathPattern(template, operation.parameters ?? []);
        const pointer = `#/paths/${escapePointer(template)}/${method}`;
        this.operations.push({ method: method.toUpperCase(), template, pattern, pointer, responses: operation.responses ?? {} });
      }
    }
  }

  static async load(baseUrl: string, basePath: string): Promise<Contract> {
    const response = await fetch(`${baseUrl}/docs/openapi.json`);
    return new Contract((await response.json()) as Json, basePath);
  }

  private validator(pointer: string, relaxRequired: boolean): ValidateFunction {
    const key = `${relaxRequired ? 'relaxed' : 'strict'} ${pointer}`;
    let validate = this.validators.get(key);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: `${relaxRequired ? 'openapi-fields' : 'openapi'}${pointer}` });
      this.validators.set(key, validate);
    }
    return validate;
  }

  /** Throws an Error naming the mismatch when a response breaks the document. */
  check(method: string, url: URL, headers: Readonly<Record<string, string>>, status: number, contentType: string, body: unknown): void {
    let query: Parameters;
    try {
      query = parseParameters(url.search.slice(1));
    } catch {
      query = {};
    }
    const target = effectiveTarget(method, url, query, headers, this.basePath);
    if (UNDOCUMENTED.some((pattern) => pattern.test(target.path))) return;
    // A CORS preflight is answered before routing, by the CORS rules (`CORS_ORIGINS`), on any path.
    const preflight =
      target.method === 'OPTIONS' && Object.keys(headers).some((name) => name.toLowerCase() === 'access-control-request-method');
    if (preflight && status === 204) return;
    // `_envelope`: a 200 whose body carries the answer's status and body.
    const enveloped =
      status === 200 && query._envelope !== undefined && body !== null && typeof body === 'object' && 'status' in body && 'body' in body;
    const answeredStatus = enveloped ? Number((body as Json).status) : status;
    const answered = enveloped ? (body as Json).body : body;
    const lookup = target.method === 'HEAD' ? 'GET' : target.method;
    const operation = this.operations.find((candidate) => candidate.method === lookup && candidate.pattern.test(target.path));
    const where = `${target.method} ${target.path} → ${answeredStatus}`;
    if (operation === undefined) {
      if (BEFORE_ROUTING.has(answeredStatus)) return;
      throw new Error(`contract: ${where} answered by an operation the document does not list`);
    }
    if (answeredStatus === 414 || answeredStatus === 431) return;
    const declared =
      operation.responses[String(answeredStatus)] !== undefined
        ? String(answeredStatus)
        : operation.responses.default !== undefined
          ? 'default'
          : undefined;
    if (declared === undefined) {
      throw new Error(
        `contract: ${operation.template} ${lookup} does not document status ${answeredStatus} (${where}): ${JSON.stringify(answered)?.slice(0, 300)}`,
      );
    }
    if (target.method === 'HEAD' || !contentType.startsWith('application/json') || answered === undefined) return;
    const media = operation.responses[declared]?.content?.['application/json'];
    if (media?.schema === undefined) return;
    const pointer = `${operation.pointer}/responses/${declared}/content/${escapePointer('application/json')}/schema`;
    const validate = this.validator(pointer, query._fields !== undefined);
    if (!validate(answered)) {
      const problems = (validate.errors ?? [])
        .slice(0, 5)
        .map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`)
        .join('; ');
      throw new Error(`contract: ${where} body does not match ${operation.template} ${lookup} ${declared}: ${problems}`);
    }
  }
}
