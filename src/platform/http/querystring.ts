import { parse as parseFlat } from 'fast-querystring';
import qs from 'qs';
import { ValidationError } from './classify-error.ts';

/**
 * Query strings and form bodies as PHP and jQuery clients build them, read
 * as WordPress reads them: `a[]=1&a[]=2` and `a[0]=x&a[1]=y` are arrays (in
 * index order), `a[k]=v` objects, repeated keys arrays. Text over a limit is
 * refused by name, never cut short.
 */
export const PARAMETER_LIMITS = {
  /** Bracket levels below a top-level name: `organizer[0][organizer]` is 2. */
  depth: 4,
  /** PHP's `max_input_vars`. */
  parameters: 1000,
  /** Items of one array, and the largest index + 1. */
  arrayItems: 1000,
} as const;

export type Parameters = Record<string, unknown>;

/**
 * qs drops every `__proto__` name: keys spelling it are renamed to this
 * (a noncharacter no client sends) while parsing and back afterwards, so that
 * `__proto__` stays an ordinary, refused-by-name parameter on null-prototype
 * objects.
 */
const PROTO = '__proto__';
const PROTO_STANDIN = '\uFDD0proto\uFDD0';
/** Set by the key decoder when it renamed one, during one (synchronous) `qs.parse`. */
let renamedProto = false;

const QS_OPTIONS: qs.IParseOptions & { strictDepth: boolean; throwOnLimitExceeded: boolean } = {
  depth: PARAMETER_LIMITS.depth,
  strictDepth: true,
  parameterLimit: PARAMETER_LIMITS.parameters,
  arrayLimit: PARAMETER_LIMITS.arrayItems,
  throwOnLimitExceeded: true,
  plainObjects: true,
  duplicates: 'combine',
  decoder: (text, decode, charset, type) => {
    const decoded = decode(text, decode, charset) as string;
    if (type !== 'key' || !decoded.includes(PROTO)) return decoded;
    renamedProto = true;
    return decoded.replaceAll(PROTO, PROTO_STANDIN);
  },
};

function restoreProto(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(restoreProto);
  if (value === null || typeof value !== 'object') return value;
  const result: Parameters = Object.create(null) as Parameters;
  for (const [key, item] of Object.entries(value)) result[key.replaceAll(PROTO_STANDIN, PROTO)] = restoreProto(item);
  return result;
}

/** Text that needs qs: brackets (plain or percent-encoded), or enough parameters to reach the limit. */
function needsStructure(text: string): boolean {
  if (text.includes('[') || /%5b/i.test(text)) return true;
  let separators = 0;
  for (let at = text.indexOf('&'); at !== -1; at = text.indexOf('&', at + 1)) {
    separators += 1;
    if (separators >= PARAMETER_LIMITS.parameters) return true;
  }
  return false;
}

/**
 * Flat text, the common case, through fast-querystring (Fastify's own, several
 * times faster): the same result qs gives, `__proto__` preserved as a key.
 */
function parseFlatText(text: string): Parameters {
  const parsed = parseFlat(text) as Record<string, string | string[]>;
  const result: Parameters = Object.create(null) as Parameters;
  for (const key in parsed) {
    if (key !== '') result[key] = parsed[key];
  }
  return result;
}

/** The top-level name of one `name[...]=value` part, for naming it in a refusal. */
function topLevelName(part: string): string {
  const key = part.split('=', 1)[0] ?? '';
  let decoded: string;
  try {
    decoded = decodeURIComponent(key.replaceAll('+', ' '));
  } catch {
    decoded = key;
  }
  return decoded.split('[', 1)[0] || decoded;
}

/** The top-level names of the parameters a query string or form body sends (`venue[0]=2` sends `venue`), in order, once each. */
export function parameterNames(text: string): string[] {
  return [
    ...new Set(
      text
        .split('&')
        .filter((part) => part !== '')
        .map(topLevelName),
    ),
  ];
}

/** Which parameter broke which limit, once qs has refused the text. */
function limitProblem(text: string, error: unknown): ValidationError {
  const message = error instanceof Error ? error.message : '';
  if (message.startsWith('Parameter limit')) {
    return new ValidationError({ parameters: `More than ${PARAMETER_LIMITS.parameters} parameters.` }, []);
  }
  for (const part of text.split('&')) {
    try {
      qs.parse(part, QS_OPTIONS);
    } catch (partError) {
      const reason =
        partError instanceof Error && partError.message.startsWith('Input depth')
          ? `Nested deeper than ${PARAMETER_LIMITS.depth} levels.`
          : `An array index of ${PARAMETER_LIMITS.arrayItems} or more, or more than ${PARAMETER_LIMITS.arrayItems} items.`;
      return new ValidationError({ [topLevelName(part)]: reason }, []);
    }
  }
  return new ValidationError({ parameters: `More than ${PARAMETER_LIMITS.arrayItems} items in one array.` }, []);
}

/**
 * Parameters from a query string or form body; throws the 400
 * `ValidationError` naming the parameter over a limit. Objects have no
 * prototype, so any name is just a key.
 */
export function parseParameters(text: string): Parameters {
  if (!needsStructure(text)) return parseFlatText(text);
  let parsed: unknown;
  renamedProto = false;
  try {
    parsed = qs.parse(text, QS_OPTIONS);
  } catch (error) {
    throw limitProblem(text, error);
  }
  return (renamedProto ? restoreProto(parsed) : parsed) as Parameters;
}

const UNREADABLE = Symbol('unreadable query');

/**
 * The router's query-string parser, which must not throw (it runs inside the
 * route lookup): text over a limit yields an empty query carrying the
 * refusal, which `unreadableQuery` hands to the request's first hook.
 */
export function parseQuerystring(text: string): Parameters {
  try {
    return parseParameters(text);
  } catch (error) {
    const query: Parameters = Object.create(null) as Parameters;
    Object.defineProperty(query, UNREADABLE, { value: error, enumerable: false });
    return query;
  }
}

/** The refusal `parseQuerystring` attached to a query, if any. */
export function unreadableQuery(query: unknown): ValidationError | undefined {
  return typeof query === 'object' && query !== null ? (query as { [UNREADABLE]?: ValidationError })[UNREADABLE] : undefined;
}
