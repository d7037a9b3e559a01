import { SaxesParser, type SaxesTagNS } from 'saxes';

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

const XMLNS_NAMESPACE = 'http://www.w3.org/2000/xmlns/';

/** The input is not XML this service will read; the message is safe to show to the client. */
export class XmlError extends Error {
  override readonly name = 'XmlError';
}

// A markup declaration (`<!DOCTYPE`, `<!ENTITY`, …) is anything after `<!` but a comment or CDATA.
// Refused anywhere, even inside CDATA: a false positive there costs a client nothing it needs.
const MARKUP_DECLARATION = /<!(?!--|\[CDATA\[)/;
// Characters outside XML 1.0's `Char` production.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
/** Deeper than any message of SOAP or WebDAV nests, shallow enough for code that walks the tree recursively. */
const MAX_DEPTH = 256;

/** An element whose end tag is still to come. */
interface Open {
  readonly tag: SaxesTagNS;
  readonly children: XmlElement[];
  text: string;
}

function toElement({ tag, children, text }: Open): XmlElement {
  const attributes: XmlAttribute[] = [];
  for (const attribute of Object.values(tag.attributes)) {
    if (attribute.uri !== XMLNS_NAMESPACE)
      attributes.push({ namespace: attribute.uri, localName: attribute.local, value: attribute.value });
  }
  return { namespace: tag.uri, localName: tag.local, qualifiedName: tag.name, attributes, children, text };
}

// Markup whose text may hold a bare `&` (comments, CDATA, processing instructions, to their end or the document's),
// or an `&` that begins no reference: saxes reads such an `&` as an entity name running to the next `;`, and then
// blames what it swallowed (`<a>AT&T</a>`: "unclosed tag").
const STRAY_AMPERSAND = /<!--[\s\S]*?(?:-->|$)|<!\[CDATA\[[\s\S]*?(?:\]\]>|$)|<\?[\s\S]*?(?:\?>|$)|&(?![^\s&;<>"']+;)/g;

/** Where the first `&` outside comments, CDATA and processing instructions begins no reference, if one does. */
function strayAmpersand(document: string): { line: number; column: number } | undefined {
  for (const match of document.matchAll(STRAY_AMPERSAND)) {
    if (match[0] !== '&') continue;
    const before = document.slice(0, match.index);
    const lineStart = before.lastIndexOf('\n') + 1;
    return { line: before.split('\n').length, column: match.index - lineStart + 1 };
  }
  return undefined;
}

/** saxes' message (`line:column: what`) as the client reads it, or the stray `&` that misled it. */
function notWellFormed(error: Error, document: string): XmlError {
  const located = /^(\d+):(\d+): (.*?)\.?$/s.exec(error.message);
  const [, line, column, what] = located ?? [];
  const stray = strayAmpersand(document);
  if (
    stray !== undefined &&
    (located === null || stray.line < Number(line) || (stray.line === Number(line) && stray.column <= Number(column)))
  ) {
    return new XmlError(
      `The body is not well-formed XML: an "&" begins no entity or character reference; write it as &amp; (line ${stray.line}, column ${stray.column}).`,
    );
  }
  const where = located === null ? '' : ` (line ${line}, column ${column})`;
  return new XmlError(`The body is not well-formed XML: ${what ?? error.message}${where}.`);
}

/**
 * Parses a complete XML document into its root element, in one pass of a
 * strict, namespace-aware parser (saxes) that resolves only the predefined
 * entities and character references. Refuses, before any parsing, DTDs and
 * entity declarations (no entity is ever expanded and nothing is ever
 * fetched), then anything not well-formed or nested deeper than 256 elements.
 */
export function parseXml(document: string): XmlElement {
  if (MARKUP_DECLARATION.test(document)) throw new XmlError('DTDs and entity declarations are not accepted.');
  if (NOT_XML_CHAR.test(document)) throw new XmlError('The document contains a character that XML does not allow.');
  // XML 1.0 whatever the declaration says: 1.1 would let references to control characters and prefix undeclarations through.
  const parser = new SaxesParser({ xmlns: true, position: true, defaultXMLVersion: '1.0', forceXMLVersion: true });
  const open: Open[] = [];
  let root: XmlElement | undefined;
  parser.on('error', (error) => {
    throw notWellFormed(error, document);
  });
  parser.on('opentag', (tag) => {
    if (open.length === MAX_DEPTH) throw new XmlError(`The body nests elements more than ${MAX_DEPTH} deep.`);
    open.push({ tag, children: [], text: '' });
  });
  // Outside the root, saxes refuses all but white space.
  const addText = (text: string) => {
    const parent = open.at(-1);
    if (parent !== undefined) parent.text += text;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    const element = toElement(open.pop() as Open);
    const parent = open.at(-1);
    if (parent === undefined) root = element;
    else parent.children.push(element);
  });
  parser.write(document).close();
  // saxes refuses a document without a root first: this only tells the compiler.
  if (root === undefined) throw new XmlError('The body must hold exactly one root element and nothing else.');
  return root;
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
