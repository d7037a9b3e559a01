import { XMLParser, XMLValidator } from 'fast-xml-parser';

/**
 * A namespace-resolved XML element: the little of the XML Infoset the
 * surfaces need (SOAP, CalDAV). Comments and processing instructions are dropped.
 */
export interface XmlElement {
  readonly namespace: string;
  readonly localName: string;
  /** The name as written (`soap:Body`), for messages. */
  readonly qualifiedName: string;
  /** Attributes other than namespace declarations. */
  readonly attributes: readonly XmlAttribute[];
  readonly children: readonly XmlElement[];
  /** The decoded character data directly inside the element (text and CDATA, in order). */
  readonly text: string;
}

export interface XmlAttribute {
  readonly namespace: string;
  readonly localName: string;
  readonly value: string;
}

const XML_NAMESPACE = 'http://www.w3.org/XML/1998/namespace';

/** The input is not XML this service will read; the message is safe to show to the client. */
export class XmlError extends Error {
  override readonly name = 'XmlError';
}

// fast-xml-parser is not namespace-aware and expands entities when asked to:
// it only tokenizes here; entities and namespaces are resolved below.
const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  cdataPropName: '#cdata',
  ignoreDeclaration: true,
  ignorePiTags: true,
});

// A markup declaration (`<!DOCTYPE`, `<!ENTITY`, …) is anything after `<!` but a comment or CDATA.
// Refused anywhere, even inside CDATA: a false positive there costs a client nothing it needs.
const MARKUP_DECLARATION = /<!(?!--|\[CDATA\[)/;
// Characters outside XML 1.0's `Char` production.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
const REFERENCE = /&([^;&]*);?/g;
// A Map, not an object literal: `&constructor;` must not find Object.prototype's.
const PREDEFINED: ReadonlyMap<string, string> = new Map([
  ['lt', '<'],
  ['gt', '>'],
  ['amp', '&'],
  ['quot', '"'],
  ['apos', "'"],
]);
const NAME_PART = /^[A-Za-z_\u00C0-\uFFFD][\w.\-\u00B7\u00C0-\uFFFD]*$/;

function isXmlChar(code: number): boolean {
  return (
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}

/** Resolves the five predefined entities and character references; any other reference is an error. */
function decode(raw: string): string {
  return raw.replace(REFERENCE, (match, name: string) => {
    if (!match.endsWith(';')) throw new XmlError('A "&" must start an entity or character reference.');
    const predefined = PREDEFINED.get(name);
    if (predefined !== undefined) return predefined;
    const reference = /^#(?:x([0-9A-Fa-f]{1,6})|([0-9]{1,7}))$/.exec(name);
    if (reference === null) throw new XmlError(`The entity "&${name};" is not defined (DTDs are not accepted).`);
    const code = reference[1] !== undefined ? Number.parseInt(reference[1], 16) : Number(reference[2]);
    if (!isXmlChar(code)) throw new XmlError(`The character reference "&${name};" is not an XML character.`);
    return String.fromCodePoint(code);
  });
}

type OrderedNode = Record<string, unknown>;

function splitName(name: string): { prefix: string; local: string } {
  const parts = name.split(':');
  const [first = '', second] = parts;
  const valid = parts.length <= 2 && parts.every((part) => NAME_PART.test(part));
  if (!valid) throw new XmlError(`"${name}" is not a valid namespaced XML name.`);
  return second === undefined ? { prefix: '', local: first } : { prefix: first, local: second };
}

function resolve(prefix: string, scope: ReadonlyMap<string, string>, name: string): string {
  if (prefix === 'xml') return XML_NAMESPACE;
  const namespace = scope.get(prefix);
  if (namespace === undefined) {
    if (prefix === '') return '';
    throw new XmlError(`The namespace prefix of "${name}" is not declared.`);
  }
  return namespace;
}

/** The element's namespace declarations on top of its parent's. */
function scopeOf(rawAttributes: Readonly<Record<string, string>>, parent: ReadonlyMap<string, string>) {
  let scope = parent;
  for (const [name, raw] of Object.entries(rawAttributes)) {
    if (name !== 'xmlns' && !name.startsWith('xmlns:')) continue;
    const value = decode(raw);
    const prefix = name === 'xmlns' ? '' : name.slice('xmlns:'.length);
    if (prefix !== '' && value === '') throw new XmlError(`The prefix "${prefix}" cannot be undeclared.`);
    if (scope === parent) scope = new Map(parent);
    (scope as Map<string, string>).set(prefix, value);
  }
  return scope;
}

function toElement(node: OrderedNode, parentScope: ReadonlyMap<string, string>): XmlElement {
  const name = Object.keys(node).find((key) => key !== ':@');
  if (name === undefined) throw new XmlError('An element has no name.');
  const rawAttributes = (node[':@'] ?? {}) as Record<string, string>;
  const scope = scopeOf(rawAttributes, parentScope);
  const attributes: XmlAttribute[] = [];
  for (const [attributeName, raw] of Object.entries(rawAttributes)) {
    if (attributeName === 'xmlns' || attributeName.startsWith('xmlns:')) continue;
    if (raw.includes('<')) throw new XmlError(`The attribute "${attributeName}" contains "<".`);
    const { prefix, local } = splitName(attributeName);
    // Unprefixed attributes are in no namespace, whatever the default namespace.
    const namespace = prefix === '' ? '' : resolve(prefix, scope, attributeName);
    attributes.push({ namespace, localName: local, value: decode(raw) });
  }
  const { prefix, local } = splitName(name);
  const children: XmlElement[] = [];
  let text = '';
  for (const child of node[name] as OrderedNode[]) {
    if ('#text' in child) text += decode(String(child['#text']));
    else if ('#cdata' in child) text += (child['#cdata'] as OrderedNode[]).map((part) => String(part['#text'])).join('');
    else children.push(toElement(child, scope));
  }
  return { namespace: resolve(prefix, scope, name), localName: local, qualifiedName: name, attributes, children, text };
}

/**
 * Parses a complete XML document into its root element. Refuses, before any
 * parsing, DTDs and entity declarations (no entity is ever expanded and
 * nothing is ever fetched), then anything not well-formed.
 */
export function parseXml(document: string): XmlElement {
  if (MARKUP_DECLARATION.test(document)) throw new XmlError('DTDs and entity declarations are not accepted.');
  if (NOT_XML_CHAR.test(document)) throw new XmlError('The document contains a character that XML does not allow.');
  const validation = XMLValidator.validate(document);
  if (validation !== true) {
    throw new XmlError(
      `The body is not well-formed XML: ${validation.err.msg} (line ${validation.err.line}, column ${validation.err.col}).`,
    );
  }
  let nodes: OrderedNode[];
  try {
    nodes = parser.parse(document) as OrderedNode[];
  } catch {
    // The parser's own limits (nesting depth, reserved names): its message may name internals.
    throw new XmlError('The body is not XML this service accepts.');
  }
  const elements = nodes.filter((node) => !('#text' in node) || String(node['#text']).trim() !== '');
  const [root] = elements;
  if (elements.length !== 1 || root === undefined || '#text' in root) {
    throw new XmlError('The body must hold exactly one root element and nothing else.');
  }
  return toElement(root, new Map());
}

/** Escapes text for element content and double-quoted attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** The element's child elements with that namespace and local name. */
export function childrenNamed(element: XmlElement, namespace: string, localName: string): XmlElement[] {
  return element.children.filter((child) => child.namespace === namespace && child.localName === localName);
}

export function attributeValue(element: XmlElement, namespace: string, localName: string): string | undefined {
  return element.attributes.find((attribute) => attribute.namespace === namespace && attribute.localName === localName)?.value;
}
