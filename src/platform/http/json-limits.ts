/**
 * Limits on JSON bodies, beside `PARAMETER_LIMITS` for query strings and
 * form bodies. `JSON.parse` copes with any nesting, but the code that walks
 * a body afterwards (ajv, TypeBox's `Value`, the services) recurses, and a
 * body of a few thousand brackets would overflow its stack: a 500.
 */
export const JSON_LIMITS = {
  /** Arrays and objects inside one another: `{"organizer":[{"id":1}]}` is 3. */
  depth: 32,
} as const;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** Where the string that opens at `quote` ends: its closing quote, one not escaped by an odd run of backslashes. */
function stringEnd(text: string, quote: number): number {
  let at = text.indexOf('"', quote + 1);
  while (at !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return text.length;
}

/**
 * How deeply arrays and objects nest in JSON text, counted on its brackets
 * outside strings, in one loop (no recursion, so counting cannot overflow
 * whatever the text). Counting stops as soon as the depth passes `stopAbove`.
 * Text that is not JSON gets some number; the parser refuses it anyway.
 */
export function jsonNestingDepth(text: string, stopAbove = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  for (let at = 0; at < text.length; at += 1) {
    switch (text.charCodeAt(at)) {
      case QUOTE:
        at = stringEnd(text, at);
        break;
      case OPEN_BRACKET:
      case OPEN_BRACE:
        depth += 1;
        if (depth > deepest) {
          deepest = depth;
          if (deepest > stopAbove) return deepest;
        }
        break;
      case CLOSE_BRACKET:
      case CLOSE_BRACE:
        depth -= 1;
        break;
      default:
        break;
    }
  }
  return deepest;
}

interface Container {
  readonly value: object;
  readonly parent?: Container;
  readonly key?: string;
}

function keysTo(container: Container, key: string): string[] {
  const keys = [key];
  for (let at: Container | undefined = container; at?.key !== undefined; at = at.parent) keys.unshift(at.key);
  return keys;
}

/**
 * The keys leading to a number that is not finite in a parsed JSON value, if
 * any: `JSON.parse('1e309')` is Infinity, which every later step mistakes
 * (ajv skips `minimum` for it, `JSON.stringify` writes it as null, a
 * database index keeps it as Inf). `[]` when the value itself is one.
 * Walked with an explicit stack, like the depth count.
 */
export function nonFinitePath(value: unknown): string[] | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : [];
  if (value === null || typeof value !== 'object') return undefined;
  const pending: Container[] = [{ value }];
  for (let container = pending.pop(); container !== undefined; container = pending.pop()) {
    const object = container.value as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      const item = object[key];
      if (typeof item === 'number') {
        if (!Number.isFinite(item)) return keysTo(container, key);
      } else if (item !== null && typeof item === 'object') {
        pending.push({ value: item, parent: container, key });
      }
    }
  }
  return undefined;
}
