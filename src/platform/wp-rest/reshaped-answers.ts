/**
 * What WordPress's global parameters make of an answer, told by the OpenAPI
 * document (issue 37): an operation that takes `_envelope` may answer 200
 * with `{body, status, headers}`, and one that takes `_fields` with only the
 * fields named (response-shaping.ts). A validating proxy such as Prism holds
 * every answer to the document, so each JSON success of such an operation is
 * `anyOf: [the answer, the reshaped answer]`, and an operation without a JSON
 * 200 gets one for the envelope. The reshaped answer is an envelope `if` it
 * has the envelope's three keys, `else` the answer with any of its fields.
 *
 * A type cannot depend on the request's arguments: openapi-typescript would
 * type every answer as a union whose fields openapi-fetch cannot read. So the
 * document is served both ways (openapi.ts): with the reshaped answers, and
 * plain, for type generators.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document as served: any shape its generator emits
type Json = Record<string, any>;

const ENVELOPE = 'WpEnvelope';

/** The schema of `_envelope`'s answer (`envelopeOf`), a component of the document. */
const ENVELOPE_SCHEMA = {
  type: 'object',
  description: 'The answer with _envelope, always a 200: its body, its status and its headers (those WordPress names).',
  required: ['body', 'status', 'headers'],
  additionalProperties: false,
  properties: {
    body: { description: "The answer's body, as its status documents it (with _fields, only the fields named)" },
    status: { type: 'integer', description: "The answer's status" },
    headers: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description:
        'Allow, Link, Location, Retry-After, X-WP-Total, X-WP-TotalPages, X-TEC-Total, X-TEC-TotalPages, when the answer has them',
    },
  },
};

const LOCAL_SCHEMA = '#/components/schemas/';

/** An answer of `type` reshaped: an envelope, or else (with `_fields`) `fields`, the answer with any of its fields. */
function reshaped(type: unknown, fields: Json | false): Json {
  return {
    type: type === 'array' ? ['object', 'array'] : 'object',
    description: 'The answer reshaped: with _envelope, in an envelope; with _fields, with only the fields named (of each item, on a list)',
    if: { type: 'object', required: ['body', 'status', 'headers'] },
    then: { $ref: `${LOCAL_SCHEMA}${ENVELOPE}` },
    else: fields,
  };
}

function takes(operation: Json, name: string): boolean {
  return (
    Array.isArray(operation.parameters) &&
    operation.parameters.some((parameter: Json) => parameter.in === 'query' && parameter.name === name)
  );
}

/** The reshaped answers of one document; each distinct answer with any of its fields is one of its components. */
class ReshapedAnswers {
  private readonly named = new Map<string, string>();
  /** The methods of one route share their responses (a PUT and a PATCH): each is described once. */
  private readonly described = new Set<Json>();

  constructor(private readonly components: Json) {}

  describe(operation: Json): void {
    if (!takes(operation, '_envelope') || !takes(operation, '_fields')) return;
    const responses: Json = (operation.responses ??= {});
    if (this.described.has(responses)) return;
    this.described.add(responses);
    for (const [status, response] of Object.entries<Json>(responses)) {
      const media = response.content?.['application/json'];
      if (!/^2\d\d$/.test(status) || media?.schema === undefined) continue;
      const fields = this.component(this.anyFields(media.schema), `${operation.operationId}Fields`, status);
      media.schema = { anyOf: [media.schema, reshaped(media.schema.type, fields)] };
    }
    const ok: Json = (responses['200'] ??= { description: 'The answer, in an envelope (_envelope)' });
    ok.content ??= {};
    ok.content['application/json'] ??= { schema: reshaped('object', false) };
  }

  /** A reference to `schema` among the components: the first operation to have it names it. */
  private component(schema: unknown, name: string, status: string): Json {
    const text = JSON.stringify(schema);
    let named = this.named.get(text);
    if (named === undefined) {
      named = this.components[name] === undefined ? name : `${name}${status}`;
      this.named.set(text, named);
      this.components[named] = schema;
    }
    return { $ref: `${LOCAL_SCHEMA}${named}` };
  }

  /** The answer with any of its fields left out (`_fields`): no `required` at any depth, local references inlined. */
  private anyFields(node: unknown): unknown {
    if (Array.isArray(node)) return node.map((item) => this.anyFields(item));
    if (node === null || typeof node !== 'object') return node;
    const { required: _required, description: _description, ...rest } = node as Json;
    if (typeof rest.$ref === 'string' && rest.$ref.startsWith(LOCAL_SCHEMA)) {
      return this.anyFields(this.components[rest.$ref.slice(LOCAL_SCHEMA.length)]);
    }
    return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, this.anyFields(value)]));
  }
}

/** The document as served, with what `_fields` and `_envelope` answer on every operation that takes them. */
export function describeReshapedAnswers<T extends Json>(document: T): T {
  const served: Json = document;
  const components: Json = ((served.components ??= {}).schemas ??= {});
  const answers = new ReshapedAnswers(components);
  for (const item of Object.values<Json>(served.paths ?? {})) {
    for (const operation of Object.values<Json>(item)) {
      if (operation !== null && typeof operation === 'object' && operation.responses !== undefined) answers.describe(operation);
    }
  }
  components[ENVELOPE] = ENVELOPE_SCHEMA;
  return document;
}
