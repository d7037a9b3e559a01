import { SoapErrors } from './faults.ts';
import { NS, WSSE_TYPES } from './namespaces.ts';
import { attributeValue, childrenNamed, type XmlElement } from '../platform/xml/xml.ts';

/** A WS-Security UsernameToken (UsernameToken Profile 1.0), as sent. */
export interface UsernameToken {
  readonly username: string;
  readonly passwordType: 'text' | 'digest';
  /** The clear password, or the Base64 digest. */
  readonly password: string;
  /** The decoded nonce bytes. */
  readonly nonce: Buffer | undefined;
  /** `wsu:Created` exactly as written: the digest covers these characters. */
  readonly created: string | undefined;
}

// 16 bytes is what the profile recommends and clients send; the cap keeps the replay store small.
const MAX_NONCE_BYTES = 64;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function isSecurityHeader(block: XmlElement): boolean {
  return block.namespace === NS.wsse && block.localName === 'Security';
}

/** The single child with that name, or undefined; a repeated one makes the token invalid. */
function single(parent: XmlElement, namespace: string, localName: string): XmlElement | undefined {
  const found = childrenNamed(parent, namespace, localName);
  if (found.length > 1) throw SoapErrors.failedAuthentication(`The UsernameToken has more than one ${localName}.`);
  return found[0];
}

function passwordTypeOf(password: XmlElement): UsernameToken['passwordType'] {
  const type = attributeValue(password, '', 'Type');
  if (type === undefined || type === WSSE_TYPES.passwordText) return 'text';
  if (type === WSSE_TYPES.passwordDigest) return 'digest';
  throw SoapErrors.failedAuthentication('The password Type is neither PasswordText nor PasswordDigest.');
}

function nonceOf(nonce: XmlElement | undefined): Buffer | undefined {
  if (nonce === undefined) return undefined;
  const encoding = attributeValue(nonce, '', 'EncodingType');
  if (encoding !== undefined && encoding !== WSSE_TYPES.base64Binary) {
    throw SoapErrors.failedAuthentication('The Nonce must be Base64Binary.');
  }
  const text = nonce.text.replace(/\s+/g, '');
  const bytes = Buffer.from(text, 'base64');
  if (!BASE64.test(text) || bytes.length === 0 || bytes.length > MAX_NONCE_BYTES) {
    throw SoapErrors.failedAuthentication(`The Nonce must be 1 to ${MAX_NONCE_BYTES} bytes of Base64.`);
  }
  return bytes;
}

/**
 * The UsernameToken of the `wsse:Security` header blocks addressed to this
 * service, or undefined when they carry none. A token that cannot be read
 * is a FailedAuthentication: its sender meant to authenticate.
 */
export function readUsernameToken(securityHeaders: readonly XmlElement[]): UsernameToken | undefined {
  const tokens = securityHeaders.flatMap((header) => childrenNamed(header, NS.wsse, 'UsernameToken'));
  if (securityHeaders.length > 1 || tokens.length > 1) {
    throw SoapErrors.failedAuthentication('Send one wsse:Security header with at most one UsernameToken.');
  }
  const [token] = tokens;
  if (token === undefined) return undefined;
  const username = single(token, NS.wsse, 'Username')?.text.trim() ?? '';
  const password = single(token, NS.wsse, 'Password');
  if (username === '' || password === undefined) {
    throw SoapErrors.failedAuthentication('The UsernameToken needs a Username and a Password.');
  }
  const passwordType = passwordTypeOf(password);
  return {
    username,
    passwordType,
    // A digest is Base64, where whitespace is not significant; a clear password is taken as written.
    password: passwordType === 'digest' ? password.text.trim() : password.text,
    nonce: nonceOf(single(token, NS.wsse, 'Nonce')),
    created: single(token, NS.wsu, 'Created')?.text.trim(),
  };
}
