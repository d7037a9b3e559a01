import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { parseParameters, type Parameters } from '../../src/platform/http/querystring.ts';

/**
 * The served OpenAPI document as a contract every response of the suite is
 * held to, as a validating proxy (Prism) holds them: the operation answered
 * must list the status, and a JSON body must match its schema. An answer
 * reshaped by `_fields` or `_envelope` is held to the document as served,
 * which tells what they make of an answer; any other to its plain variant,
 * which type generators read (no reshaped alternative, so a field the answer
 * must have cannot go missing). A drift between the server and its document
 * fails CI.
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

/** Which document an answer is held to: as served, or its plain variant (what type generators read). */
type DocumentName = 'openapi' | 'openapi-plain';

interface DocumentedOperation {
  readonly method: string;
  readonly template: string;
  readonly pattern: RegExp;
  readonly pointer: string;
  readonly responses: Readonly<Record<DocumentName, Json>>;
}

function escapePointer(part: string): string {
  return part.replace(/~/g, '~0').replace(/\//g, '~1');
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

  /**
   * `document` as served, telling every answer (what a validating proxy such as Prism reads), and its `plain`
   * variant, only the answers to requests without `_fields` and `_envelope` (what type generators read).
   */
  constructor(
    document: Json,
    private readonly basePath: string,
    plain: Json = document,
  ) {
    this.ajv.addSchema(document, 'openapi');
    this.ajv.addSchema(plain, 'openapi-plain');
    for (const [template, item] of Object.entries<Json>(document.paths ?? {})) {
      for (const method of METHODS) {
        const operation = item[method] as Json | undefined;
        if (operation === undefined) continue;
        const pattern = pathPattern(template, operation.parameters ?? []);
        const pointer = `#/paths/${escapePointer(template)}/${method}`;
        const responses = { openapi: operation.responses ?? {}, 'openapi-plain': plain.paths?.[template]?.[method]?.responses ?? {} };
        this.operations.push({ method: method.toUpperCase(), template, pattern, pointer, responses });
      }
    }
  }

  static async load(baseUrl: string, basePath: string): Promise<Contract> {
    const [document, plain] = await Promise.all(
      ['', '?plain'].map(async (variant) => (await fetch(`${baseUrl}/docs/openapi.json${variant}`)).json() as Promise<Json>),
    );
    return new Contract(document!, basePath, plain);
  }

  private validator(name: DocumentName, pointer: string): ValidateFunction {
    const key = `${name}${pointer}`;
    let validate = this.validators.get(key);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: key });
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
    const envelope =
      status === 200 && query._envelope !== undefined && body !== null && typeof body === 'object' && 'status' in body && 'body' in body
        ? (body as Json)
        : undefined;
    const lookup = target.method === 'HEAD' ? 'GET' : target.method;
    const operation = this.operations.find((candidate) => candidate.method === lookup && candidate.pattern.test(target.path));
    if (operation === undefined) {
      if (BEFORE_ROUTING.has(envelope === undefined ? status : Number(envelope.status))) return;
      throw new Error(`contract: ${target.method} ${target.path} → ${status} answered by an operation the document does not list`);
    }
    if (status === 414 || status === 431) return;
    const json = target.method !== 'HEAD' && contentType.startsWith('application/json');
    // As a validating proxy reads it: an answer reshaped by `_fields` or `_envelope` against the whole document, any
    // other against what type generators read (the same, less what those two make of an answer).
    const reshaped = query._fields !== undefined || query._envelope !== undefined;
    this.match(reshaped ? 'openapi' : 'openapi-plain', operation, lookup, status, json ? body : undefined, target.path);
    // And the answer an envelope carries: a status its operation answers, and without `_fields` the body it documents.
    if (envelope !== undefined) {
      const carried = query._fields === undefined ? envelope.body : undefined;
      this.match('openapi-plain', operation, lookup, Number(envelope.status), carried, `${target.path} (enveloped)`);
    }
  }

  /** The status must be one the operation documents in `name`, and a JSON body must match its schema there. */
  private match(name: DocumentName, operation: DocumentedOperation, method: string, status: number, body: unknown, path: string): void {
    const where = `${method} ${path} → ${status}`;
    const responses = operation.responses[name];
    const declared = responses[String(status)] !== undefined ? String(status) : responses.default !== undefined ? 'default' : undefined;
    if (declared === undefined) {
      throw new Error(
        `contract: ${operation.template} ${method} does not document status ${status} (${where}): ${JSON.stringify(body)?.slice(0, 300)}`,
      );
    }
    if (body === undefined || responses[declared]?.content?.['application/json']?.schema === undefined) return;
    const validate = this.validator(name, `${operation.pointer}/responses/${declared}/content/${escapePointer('application/json')}/schema`);
    if (!validate(body)) {
      const problems = (validate.errors ?? [])
        .slice(0, 5)
        .map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`)
        .join('; ');
      throw new Error(`contract: ${where} body does not match ${operation.template} ${method} ${declared}: ${problems}`);
    }
  }
}
