import { escapeXml } from '../../platform/xml/xml.ts';

/**
 * What CalDAV answers in XML (RFC 4918 multistatus, RFC 6578's sync-token,
 * RFC 4918 §16 error bodies), with properties named in Clark notation
 * (`{DAV:}getetag`) and their values already XML.
 */

export const NS = {
  dav: 'DAV:',
  caldav: 'urn:ietf:params:xml:ns:caldav',
  /** getctag. */
  calendarServer: 'http://calendarserver.org/ns/',
  /** calendar-color. */
  apple: 'http://apple.com/ns/ical/',
  /** What a DAV:error says in words. */
  almanac: 'urn:x-almanac:caldav',
} as const;

const PREFIXES: ReadonlyMap<string, string> = new Map([
  [NS.dav, 'd'],
  [NS.caldav, 'c'],
  [NS.calendarServer, 'cs'],
  [NS.apple, 'ical'],
  [NS.almanac, 'a'],
]);
const DECLARATIONS = [...PREFIXES].map(([uri, prefix]) => `xmlns:${prefix}="${uri}"`).join(' ');

/** A property or element name in Clark notation. */
export const clark = (namespace: string, localName: string) => `{${namespace}}${localName}`;

function split(name: string): { namespace: string; localName: string } {
  const end = name.indexOf('}');
  return { namespace: name.slice(1, end), localName: name.slice(end + 1) };
}

/** An element of that Clark name around `inner` (XML), empty when `inner` is. */
export function element(name: string, inner = ''): string {
  const { namespace, localName } = split(name);
  const prefix = PREFIXES.get(namespace);
  const open = prefix === undefined ? `${localName} xmlns="${escapeXml(namespace)}"` : `${prefix}:${localName}`;
  const close = prefix === undefined ? localName : `${prefix}:${localName}`;
  return inner === '' ? `<${open}/>` : `<${open}>${inner}</${close}>`;
}

export const href = (path: string) => element(clark(NS.dav, 'href'), escapeXml(path));
/** Text content; a CR as a reference, which XML readers would otherwise turn into LF (iCalendar's lines end with CRLF). */
export const text = (value: string) => escapeXml(value).replace(/\r/g, '&#13;');

/** One member of a multistatus: its properties (found, as XML, and missing), or a status alone (a 404). */
export interface DavResponse {
  readonly href: string;
  readonly found?: ReadonlyMap<string, string>;
  readonly missing?: readonly string[];
  readonly status?: number;
}

const REASONS: Readonly<Record<number, string>> = { 200: 'OK', 403: 'Forbidden', 404: 'Not Found' };
const statusLine = (status: number) => element(clark(NS.dav, 'status'), `HTTP/1.1 ${status} ${REASONS[status] ?? ''}`.trim());

function propstat(props: string, status: number): string {
  return element(clark(NS.dav, 'propstat'), element(clark(NS.dav, 'prop'), props) + statusLine(status));
}

function responseXml(response: DavResponse): string {
  const parts = [href(response.href)];
  if (response.status !== undefined) parts.push(statusLine(response.status));
  const found = [...(response.found ?? [])];
  if (found.length > 0) parts.push(propstat(found.map(([name, value]) => element(name, value)).join(''), 200));
  const missing = response.missing ?? [];
  if (missing.length > 0) parts.push(propstat(missing.map((name) => element(name)).join(''), 404));
  return element(clark(NS.dav, 'response'), parts.join(''));
}

/** A 207 body; `syncToken` ends the answer to a sync-collection report. */
export function multistatus(responses: readonly DavResponse[], syncToken?: string): string {
  const token = syncToken === undefined ? '' : element(clark(NS.dav, 'sync-token'), escapeXml(syncToken));
  return `<?xml version="1.0" encoding="utf-8"?>\n<d:multistatus ${DECLARATIONS}>${responses.map(responseXml).join('')}${token}</d:multistatus>\n`;
}

/** An error body (RFC 4918 §16): the precondition that failed, if any (with the resource it names), and the message. */
export function errorXml(message: string, condition?: string, conditionHref?: string): string {
  const named = condition === undefined ? '' : element(condition, conditionHref === undefined ? '' : href(conditionHref));
  return `<?xml version="1.0" encoding="utf-8"?>\n<d:error ${DECLARATIONS}>${named}${element(clark(NS.almanac, 'message'), escapeXml(message))}</d:error>\n`;
}
