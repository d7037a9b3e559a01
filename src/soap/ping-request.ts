import { readEnvelope } from './envelope.ts';
import { SoapErrors } from './faults.ts';
import { NS } from './namespaces.ts';
import { isSecurityHeader, readUsernameToken, type UsernameToken } from './username-token.ts';
import { parseXml, XmlError, type XmlElement } from '../platform/xml/xml.ts';

export const SOAP_ACTION = 'pingOperation';

/** A `pingOperation` call, read and checked; nothing about it is verified or stored yet. */
export interface PingRequest {
  readonly pingInput: string;
  readonly token: UsernameToken | undefined;
}

/** The SOAPAction header, when present, names the operation (quoted or not) or is empty. */
export function assertSoapAction(header: string | string[] | undefined): void {
  if (header === undefined) return;
  const action = (Array.isArray(header) ? header.join(',') : header).trim().replace(/^"(.*)"$/, '$1');
  if (action !== '' && action !== SOAP_ACTION) {
    throw SoapErrors.client(`Unknown SOAPAction "${action}": this service has one operation, ${SOAP_ACTION}.`);
  }
}

function pingInputOf(body: XmlElement): string {
  const [entry, ...others] = body.children;
  if (entry === undefined) throw SoapErrors.client('The soap:Body is empty: it must hold pingStringInput.');
  if (others.length > 0) throw SoapErrors.client('The soap:Body must hold exactly one element, pingStringInput.');
  if (entry.namespace !== NS.ping || entry.localName !== 'pingStringInput') {
    throw SoapErrors.client(`Unknown element {${entry.namespace}}${entry.localName} in the body: send pingStringInput in ${NS.ping}.`);
  }
  // The schema has no elementFormDefault, so pingInput is unqualified; a qualified one is accepted too.
  const unexpected = entry.children.find(
    (child) => child.localName !== 'pingInput' || (child.namespace !== '' && child.namespace !== NS.ping),
  );
  if (unexpected !== undefined) throw SoapErrors.client(`Unexpected element ${unexpected.qualifiedName} in pingStringInput.`);
  const [pingInput, ...repeated] = entry.children;
  if (pingInput === undefined) throw SoapErrors.client('pingStringInput has no pingInput.');
  if (repeated.length > 0) throw SoapErrors.client('pingStringInput must hold one pingInput.');
  if (pingInput.children.length > 0) throw SoapErrors.client('pingInput must be a string, not elements.');
  return pingInput.text;
}

/** Reads a `pingOperation` envelope from the raw body; every defect is a SOAP fault. */
export function readPingRequest(body: unknown): PingRequest {
  if (typeof body !== 'string' || body.trim() === '') {
    throw SoapErrors.client('The request body is empty: POST a SOAP 1.1 envelope as text/xml.');
  }
  let root: XmlElement;
  try {
    root = parseXml(body);
  } catch (error) {
    if (error instanceof XmlError) throw SoapErrors.client(error.message);
    throw error;
  }
  const envelope = readEnvelope(root, isSecurityHeader);
  // The body is checked before the token is read: a malformed call is a Client fault whoever sends it.
  const pingInput = pingInputOf(envelope.body);
  return { pingInput, token: readUsernameToken(envelope.headerBlocks.filter(isSecurityHeader)) };
}
