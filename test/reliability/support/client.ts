/** A raw HTTP exchange that never throws on a status (the test helper throws on 5xx; here a 5xx is data). */
export interface RawResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: unknown;
  /** The connection was closed without a response (allowed only where the server refuses oversized headers). */
  readonly closed: boolean;
}

export interface RawRequest {
  readonly method: string;
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
}

export async function send({ method, url, headers = {}, body }: RawRequest): Promise<RawResponse> {
  try {
    const response = await fetch(url, {
      method,
      headers,
      body:
        method === 'GET' || method === 'HEAD' || body === undefined ? undefined : typeof body === 'string' ? body : new Uint8Array(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    let json: unknown;
    if (/json/i.test(response.headers.get('content-type') ?? '')) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    return { status: response.status, headers: response.headers, text, json, closed: false };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    if (cause?.code === 'UND_ERR_SOCKET' || cause?.code === 'ECONNRESET') {
      return { status: 0, headers: new Headers(), text: '', json: undefined, closed: true };
    }
    throw error;
  }
}

/** A SOAP 1.1 fault as docs/soap.md describes it (the binding's HTTP 500 is legitimate for these). */
export function isSoapFault(response: RawResponse): boolean {
  return (
    /^text\/xml/i.test(response.headers.get('content-type') ?? '') &&
    /<([A-Za-z0-9_-]+:)?Envelope[\s>]/.test(response.text) &&
    /<([A-Za-z0-9_-]+:)?Fault[\s>]/.test(response.text) &&
    /<faultcode>[^<]+<\/faultcode>/.test(response.text) &&
    /<faultstring[^>]*>[^<]*<\/faultstring>/.test(response.text)
  );
}
