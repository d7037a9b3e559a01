import { SoapErrors } from './faults.ts';
import { NS } from './namespaces.ts';
import { attributeValue, type XmlElement } from '../platform/xml/xml.ts';

/** A SOAP 1.1 envelope: the header blocks addressed to this service, and the Body. */
export interface Envelope {
  readonly headerBlocks: readonly XmlElement[];
  readonly body: XmlElement;
}

const ACTOR_NEXT = 'http://schemas.xmlsoap.org/soap/actor/next';

function isSoap(element: XmlElement, localName: string): boolean {
  return element.namespace === NS.soap11 && element.localName === localName;
}

function assertNoText(element: XmlElement): void {
  if (element.text.trim() !== '') throw SoapErrors.client(`${element.qualifiedName} must hold elements only, not text.`);
}

/** SOAP 1.1 §4.2.2: a block with another actor is for another node, even when it must be understood. */
function isForThisNode(block: XmlElement): boolean {
  const actor = attributeValue(block, NS.soap11, 'actor');
  return actor === undefined || actor === ACTOR_NEXT;
}

function mustBeUnderstood(block: XmlElement): boolean {
  const value = attributeValue(block, NS.soap11, 'mustUnderstand')?.trim();
  if (value === undefined || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  throw SoapErrors.client(`mustUnderstand on ${block.qualifiedName} must be 0 or 1.`);
}

/**
 * Checks the envelope's shape (SOAP 1.1 and WS-I Basic Profile: an optional
 * Header, then exactly one Body, nothing after it) and its header blocks:
 * one marked `mustUnderstand` that `understands` rejects is a MustUnderstand fault.
 */
export function readEnvelope(root: XmlElement, understands: (block: XmlElement) => boolean): Envelope {
  if (root.localName !== 'Envelope') throw SoapErrors.client('The body is not a SOAP envelope.');
  // SOAP 1.1 §4.4.1: an Envelope in any other namespace (SOAP 1.2's included) is a version mismatch.
  if (root.namespace !== NS.soap11) throw SoapErrors.versionMismatch();
  assertNoText(root);

  const [first] = root.children;
  const header = first !== undefined && isSoap(first, 'Header') ? first : undefined;
  const [body, ...extra] = root.children.slice(header === undefined ? 0 : 1);
  if (body === undefined || !isSoap(body, 'Body')) throw SoapErrors.client('The envelope has no soap:Body where one belongs.');
  if (extra.length > 0) throw SoapErrors.client('Nothing may follow soap:Body in the envelope.');
  assertNoText(body);

  const headerBlocks = header === undefined ? [] : header.children.filter(isForThisNode);
  if (header !== undefined) assertNoText(header);
  for (const block of headerBlocks) {
    if (mustBeUnderstood(block) && !understands(block)) throw SoapErrors.mustUnderstand(block.qualifiedName);
  }
  return { headerBlocks, body };
}
