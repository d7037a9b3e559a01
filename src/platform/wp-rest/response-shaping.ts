/**
 * WordPress's global response parameters: `_fields` (only the fields named)
 * and `_envelope` (status and headers in the body, always a 200).
 */

/** `a.b.c` names nested field `c`; a name whose parent is already whole adds nothing. */
export type FieldTree = Map<string, FieldTree | true>;

export function fieldTree(fields: readonly string[]): FieldTree {
  const tree: FieldTree = new Map();
  for (const field of fields) {
    const parts = field.split('.').map((part) => part.trim());
    let node = tree;
    for (const [index, part] of parts.entries()) {
      if (part === '') break;
      const existing = node.get(part);
      if (existing === true) break;
      if (index === parts.length - 1) {
        node.set(part, true);
        break;
      }
      const child: FieldTree = existing ?? new Map();
      node.set(part, child);
      node = child;
    }
  }
  return tree;
}

/**
 * The value with only the named fields, keys in their original order. A
 * nested name reaches into an object, or into each object of an array.
 */
export function pickFields(value: unknown, tree: FieldTree): unknown {
  if (Array.isArray(value)) return value.map((item) => pickFields(item, tree));
  if (value === null || typeof value !== 'object') return value;
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const wanted = tree.get(key);
    if (wanted === true) result[key] = item;
    else if (wanted !== undefined) result[key] = pickFields(item, wanted);
  }
  return result;
}

/**
 * `_fields` on an answer: on an archive (`collection` names its list), the
 * fields of each item, the envelope's own keys (links, totals) preserved.
 */
export function pickAnswerFields(body: unknown, tree: FieldTree, collection: string | undefined): unknown {
  if (collection === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) return pickFields(body, tree);
  const archive = body as Record<string, unknown>;
  return { ...archive, [collection]: pickFields(archive[collection], tree) };
}

/** Headers an envelope carries, under the names WordPress gives them. */
const ENVELOPE_HEADERS: Readonly<Record<string, string>> = {
  allow: 'Allow',
  link: 'Link',
  location: 'Location',
  'retry-after': 'Retry-After',
  'x-wp-total': 'X-WP-Total',
  'x-wp-totalpages': 'X-WP-TotalPages',
  'x-tec-total': 'X-TEC-Total',
  'x-tec-totalpages': 'X-TEC-TotalPages',
};

export interface Envelope {
  body: unknown;
  status: number;
  headers: Record<string, string>;
}

export function envelopeOf(body: unknown, status: number, headers: Readonly<Record<string, unknown>>): Envelope {
  const wpHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const wpName = ENVELOPE_HEADERS[name.toLowerCase()];
    if (wpName !== undefined && value !== undefined) wpHeaders[wpName] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return { body, status, headers: wpHeaders };
}
