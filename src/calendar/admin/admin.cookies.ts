import type { FastifyReply, FastifyRequest } from 'fastify';

/** The cookies of a request, by name (the first of a repeated name wins, as browsers send the most specific path first). */
export function cookiesOf(request: FastifyRequest): ReadonlyMap<string, string> {
  const cookies = new Map<string, string>();
  for (const pair of (request.headers.cookie ?? '').split(';')) {
    const equals = pair.indexOf('=');
    if (equals <= 0) continue;
    const name = pair.slice(0, equals).trim();
    if (cookies.has(name)) continue;
    try {
      cookies.set(name, decodeURIComponent(pair.slice(equals + 1).trim()));
    } catch {
      // A value that is not percent-encoding is not one of ours.
    }
  }
  return cookies;
}

export interface CookieOptions {
  readonly path: string;
  readonly secure: boolean;
  /** Seconds; absent: for the browser's session; 0: remove it. */
  readonly maxAge?: number;
}

/** Adds a Set-Cookie: HttpOnly and SameSite=Lax always, Secure on https. */
export function setCookie(reply: FastifyReply, name: string, value: string, { path, secure, maxAge }: CookieOptions): void {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${path}`, 'HttpOnly', 'SameSite=Lax'];
  if (secure) parts.push('Secure');
  if (maxAge !== undefined) parts.push(`Max-Age=${maxAge}`);
  const previous = reply.getHeader('set-cookie');
  const list = previous === undefined ? [] : [previous].flat().map(String);
  void reply.header('set-cookie', [...list, parts.join('; ')]);
}
