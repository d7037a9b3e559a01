import assert from 'node:assert/strict';
import { parseXml, type XmlElement } from '../../src/platform/xml/xml.ts';
import type { Credentials, TestServer } from '../helpers/server.ts';

/** CalDAV as clients speak it, through the real server: requests with WebDAV methods, multistatus answers read back. */

export const DAV = 'DAV:';
export const CALDAV = 'urn:ietf:params:xml:ns:caldav';
export const CS = 'http://calendarserver.org/ns/';
export const APPLE = 'http://apple.com/ns/ical/';

export interface DavAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The XML body, when it is XML. */
  readonly xml?: XmlElement;
}

export interface DavOptions {
  readonly body?: string;
  readonly depth?: string;
  /** A full Authorization header, Credentials (Basic with the password), or null for none. */
  readonly auth?: string | Credentials | null;
  readonly headers?: Record<string, string>;
}

export async function dav(server: { url: string }, method: string, path: string, options: DavOptions = {}): Promise<DavAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.depth !== undefined) headers.depth = options.depth;
  if (options.body !== undefined) headers['content-type'] ??= 'application/xml; charset=utf-8';
  const auth = options.auth;
  if (auth !== undefined && auth !== null) headers.authorization = typeof auth === 'string' ? auth : auth.basic;
  const response = await fetch(`${server.url}${path}`, { method, headers, body: options.body, redirect: 'manual' });
  const text = await response.text();
  assert.ok(response.status < 500, `${method} ${path} → ${response.status}: ${text.slice(0, 300)}`);
  const xml = (response.headers.get('content-type') ?? '').includes('xml') && text !== '' ? parseXml(text) : undefined;
  return { status: response.status, headers: response.headers, text, xml };
}

export const key = (namespace: string, localName: string) => `{${namespace}}${localName}`;

function children(element: XmlElement, namespace: string, localName: string): XmlElement[] {
  return element.children.filter((child) => child.namespace === namespace && child.localName === localName);
}

export interface Member {
  readonly href: string;
  /** A response's own status (a 404 of a sync or a multiget). */
  readonly status?: string;
  /** The properties found (200 propstat), by Clark name. */
  readonly props: Map<string, XmlElement>;
  /** The properties not found (404 propstat). */
  readonly missing: string[];
}

export function members(answer: DavAnswer): Member[] {
  assert.equal(answer.status, 207, answer.text);
  const root = answer.xml!;
  assert.equal(key(root.namespace, root.localName), key(DAV, 'multistatus'));
  return children(root, DAV, 'response').map((response) => {
    const props = new Map<string, XmlElement>();
    const missing: string[] = [];
    for (const propstat of children(response, DAV, 'propstat')) {
      const ok = children(propstat, DAV, 'status')[0]!.text.includes(' 200 ');
      for (const prop of children(propstat, DAV, 'prop')[0]!.children) {
        if (ok) props.set(key(prop.namespace, prop.localName), prop);
        else missing.push(key(prop.namespace, prop.localName));
      }
    }
    return { href: children(response, DAV, 'href')[0]!.text, status: children(response, DAV, 'status')[0]?.text, props, missing };
  });
}

/** The text of a property, or of the href inside it. */
export function valueOf(member: Member, name: string): string | undefined {
  const prop = member.props.get(name);
  if (prop === undefined) return undefined;
  const href = children(prop, DAV, 'href')[0];
  return href === undefined ? prop.text : href.text;
}

/** The sync-token that ends a sync-collection answer. */
export function syncTokenOf(answer: DavAnswer): string {
  return children(answer.xml!, DAV, 'sync-token')[0]!.text;
}

/** The precondition a DAV:error names (Clark notation), and its message. */
export function davError(answer: DavAnswer): { condition?: string; message: string } {
  const root = answer.xml!;
  assert.equal(key(root.namespace, root.localName), key(DAV, 'error'), answer.text);
  const named = root.children.find((child) => child.localName !== 'message');
  const message = root.children.find((child) => child.localName === 'message')?.text ?? '';
  return { condition: named === undefined ? undefined : key(named.namespace, named.localName), message };
}

export const propfind = (...props: string[]) =>
  `<?xml version="1.0"?><d:propfind xmlns:d="DAV:" xmlns:c="${CALDAV}" xmlns:cs="${CS}" xmlns:ical="${APPLE}"><d:prop>${props.join('')}</d:prop></d:propfind>`;

export const calendarQuery = (filter: string, props = '<d:getetag/>') =>
  `<c:calendar-query xmlns:d="DAV:" xmlns:c="${CALDAV}"><d:prop>${props}</d:prop><c:filter><c:comp-filter name="VCALENDAR">${filter}</c:comp-filter></c:filter></c:calendar-query>`;

export const multiget = (hrefs: readonly string[]) =>
  `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="${CALDAV}"><d:prop><d:getetag/><c:calendar-data/></d:prop>${hrefs.map((href) => `<d:href>${href}</d:href>`).join('')}</c:calendar-multiget>`;

export const syncCollection = (token: string) =>
  `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>`;

/** Creates an event through the API and returns its representation. */
export async function apiEvent(server: TestServer, auth: Credentials, fields: Record<string, unknown>): Promise<any> {
  const response = await server.request('/calendar/events/v1/events', { method: 'POST', auth, body: fields });
  assert.equal(response.status, 201, response.text);
  return response.body;
}
