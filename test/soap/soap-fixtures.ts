import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { parseXml } from '../../src/platform/xml/xml.ts';
import { NS, WSSE_TYPES } from '../../src/soap/namespaces.ts';
import type { TestServer } from '../helpers/server.ts';

/** `SOAP_SECRET_KEY` of the test servers that enable PasswordDigest. */
export const SECRET_KEY = 'test-soap-secret-key-0123456789abcdef';

export function pingBody(pingInput: string): string {
  return `<p:pingStringInput xmlns:p="${NS.ping}"><pingInput>${pingInput}</pingInput></p:pingStringInput>`;
}

/** A SOAP 1.1 envelope (or another version's, with `namespace`) around a header and a body. */
export function envelope({
  header,
  body = pingBody('hello'),
  namespace = NS.soap11,
}: { header?: string; body?: string; namespace?: string } = {}) {
  const headerXml = header === undefined ? '' : `<soap:Header>${header}</soap:Header>`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<soap:Envelope xmlns:soap="${namespace}">${headerXml}<soap:Body>${body}</soap:Body></soap:Envelope>`;
}

export interface TokenOptions {
  readonly username: string;
  readonly password: string;
  readonly type?: 'text' | 'digest';
  readonly nonce?: Buffer;
  readonly created?: string;
}

/** A `wsse:Security` header block with a UsernameToken; a digest is computed here, independently of the service. */
export function securityHeader({ username, password, type = 'text', nonce, created }: TokenOptions): string {
  const nonceBytes = nonce ?? (type === 'digest' ? randomBytes(16) : undefined);
  const createdText = created ?? (type === 'digest' ? new Date().toISOString() : undefined);
  const passwordValue =
    type === 'digest'
      ? createHash('sha1')
          .update(Buffer.concat([nonceBytes ?? Buffer.alloc(0), Buffer.from(createdText ?? ''), Buffer.from(password)]))
          .digest('base64')
      : password;
  return (
    `<wsse:Security soap:mustUnderstand="1" xmlns:wsse="${NS.wsse}" xmlns:wsu="${NS.wsu}"><wsse:UsernameToken>` +
    `<wsse:Username>${username}</wsse:Username>` +
    `<wsse:Password Type="${type === 'digest' ? WSSE_TYPES.passwordDigest : WSSE_TYPES.passwordText}">${passwordValue}</wsse:Password>` +
    (nonceBytes === undefined ? '' : `<wsse:Nonce>${nonceBytes.toString('base64')}</wsse:Nonce>`) +
    (createdText === undefined ? '' : `<wsu:Created>${createdText}</wsu:Created>`) +
    '</wsse:UsernameToken></wsse:Security>'
  );
}

export interface SoapResponse {
  readonly status: number;
  readonly contentType: string | null;
  readonly retryAfter: string | null;
  readonly text: string;
}

/** POSTs to the endpoint of a server with plain fetch: faults are HTTP 500, which `server.request` treats as a failure. */
export async function postSoap(
  server: { readonly url: string },
  body: string,
  headers: Record<string, string | undefined> = {},
): Promise<SoapResponse> {
  // An `undefined` header value leaves that header out.
  const sent = Object.entries({ 'content-type': 'text/xml; charset=utf-8', soapaction: '"pingOperation"', ...headers });
  const response = await fetch(`${server.url}/soap/PingService`, {
    method: 'POST',
    headers: Object.fromEntries(sent.filter((entry): entry is [string, string] => entry[1] !== undefined)),
    body,
  });
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    retryAfter: response.headers.get('retry-after'),
    text: await response.text(),
  };
}

/** Asserts a SOAP 1.1 fault with that `faultcode`, and returns its `faultstring` as a client reads it (references decoded). */
export function assertFault(response: SoapResponse, faultcode: string, status = 500): string {
  assert.equal(response.status, status, response.text);
  assert.equal(response.contentType, 'text/xml; charset=utf-8');
  assert.match(response.text, new RegExp(`^<\\?xml[^>]*>\\s*<soap:Envelope xmlns:soap="${NS.soap11}"><soap:Body><soap:Fault`));
  assert.equal(/<faultcode>([^<]*)<\/faultcode>/.exec(response.text)?.[1], faultcode, response.text);
  if (faultcode.startsWith('wsse:')) assert.match(response.text, new RegExp(`xmlns:wsse="${NS.wsse}"`));
  // Nothing internal leaks: no stack frames, no file paths.
  assert.doesNotMatch(response.text, /\bat .*:\d+|\/work\/|node_modules|\.ts\b/);
  const faultstring = /<faultstring>([^<]*)<\/faultstring>/.exec(response.text)?.[1] ?? '';
  return parseXml(`<f>${faultstring}</f>`).text;
}

export async function listPings(server: TestServer, query = '') {
  const response = await server.request(`/soap/pings${query}`, { auth: await server.admin() });
  assert.equal(response.status, 200, response.text);
  return response.body as {
    pings: { id: number; received_at: string; ping_input: string; username: string | null; client_address: string }[];
    total: number;
    total_pages: number;
  };
}

/** Runs `send`, which must get a fault, and checks that no ping was stored meanwhile. */
export async function assertFaultStoresNothing(
  server: TestServer,
  send: () => Promise<SoapResponse>,
  faultcode: string,
  status = 500,
): Promise<string> {
  const before = (await listPings(server)).total;
  const faultstring = assertFault(await send(), faultcode, status);
  assert.equal((await listPings(server)).total, before, 'a refused ping was stored');
  return faultstring;
}
