/**
 * The running server's OpenAPI document, read as a list of operations, so
 * that the reliability tests cover every surface as soon as it registers
 * its routes (nothing here knows the routes in advance).
 */

export type JsonSchema = Record<string, any>;

export interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly required: boolean;
  readonly schema: JsonSchema;
}

export interface Operation {
  readonly method: string;
  /** OpenAPI path template, e.g. `/calendar/events/v1/events/{id}`. */
  readonly path: string;
  readonly operationId: string | undefined;
  readonly parameters: readonly Parameter[];
  /** Request body schemas by media type. */
  readonly bodies: Readonly<Record<string, JsonSchema>>;
  /** Declared response schemas: status (or `default`, `2XX`) → media type → schema. */
  readonly responses: Readonly<Record<string, Readonly<Record<string, JsonSchema>>>>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

/** Follows a local `#/...` reference (one level at a time, until a non-reference). */
export function deref(document: JsonSchema, node: JsonSchema | undefined): JsonSchema | undefined {
  let current = node;
  for (let hops = 0; current !== undefined && typeof current.$ref === 'string' && hops < 20; hops += 1) {
    const ref: string = current.$ref;
    if (!ref.startsWith('#/')) return current;
    current = ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<JsonSchema | undefined>((value, key) => value?.[key], document);
  }
  return current;
}

export function operationsOf(document: JsonSchema): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<JsonSchema>(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation: JsonSchema | undefined = item[method];
      if (operation === undefined) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])]
        .map((parameter: JsonSchema) => deref(document, parameter) ?? {})
        .map((parameter: JsonSchema) => ({
          name: String(parameter.name),
          in: parameter.in,
          required: parameter.required === true,
          schema: deref(document, parameter.schema) ?? {},
        }));
      const bodies: Record<string, JsonSchema> = {};
      const body = deref(document, operation.requestBody);
      for (const [mediaType, content] of Object.entries<JsonSchema>(body?.content ?? {})) {
        bodies[mediaType] = deref(document, content.schema) ?? {};
      }
      const responses: Record<string, Record<string, JsonSchema>> = {};
      for (const [status, response] of Object.entries<JsonSchema>(operation.responses ?? {})) {
        const resolved = deref(document, response);
        const byType: Record<string, JsonSchema> = {};
        for (const [mediaType, content] of Object.entries<JsonSchema>(resolved?.content ?? {})) {
          if (content.schema !== undefined) byType[mediaType] = content.schema;
        }
        responses[status] = byType;
      }
      operations.push({ method: method.toUpperCase(), path, operationId: operation.operationId, parameters, bodies, responses });
    }
  }
  return operations;
}

/** The surfaces the reliability tests know how to exercise, detected from the document. */
export interface Surfaces {
  readonly events: boolean;
  readonly venues: boolean;
  readonly organizers: boolean;
  readonly categories: boolean;
  readonly tags: boolean;
  readonly entities: boolean;
  readonly actions: boolean;
  readonly soapPings: boolean;
}

export function surfacesOf(operations: readonly Operation[], calendarPrefix: string): Surfaces {
  const has = (method: string, path: string) => operations.some((op) => op.method === method && op.path === path);
  const calendar = (resource: string) =>
    has('POST', `${calendarPrefix}/${resource}`) && operations.some((op) => op.path.startsWith(`${calendarPrefix}/${resource}/{`));
  return {
    events: calendar('events'),
    venues: calendar('venues'),
    organizers: calendar('organizers'),
    categories: calendar('categories'),
    tags: calendar('tags'),
    entities: operations.some((op) => op.method === 'POST' && /\/entity-management\/\{[^}]+\}$/.test(op.path)),
    actions: operations.some((op) => op.path.endsWith('/actions')),
    soapPings: has('GET', '/soap/pings'),
  };
}

/** Percent-encodes any string, lone surrogates included (they travel as U+FFFD, as a browser would send them). */
export function encodeSegment(value: string): string {
  return [...Buffer.from(value, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9_.~-]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

/** Fills a path template; values are URL-encoded. */
export function fillPath(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{([^}]+)\}/g, (_whole, name: string) => encodeSegment(values[name] ?? '1'));
}
