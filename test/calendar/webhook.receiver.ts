import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request a receiver got. */
export interface Received {
  readonly headers: IncomingMessage['headers'];
  readonly text: string;
  readonly body: any;
  readonly at: number;
  /** The status it answered. */
  status: number;
}

/** What a receiver answers a request with: a status, or `'hang'` (never answers). */
export type Answer = number | 'hang' | { status: number; headers?: Record<string, string>; body?: string };

/**
 * A webhook receiver as an integration runs one: a real HTTP server on
 * 127.0.0.1 that records every request and answers as the test scripts
 * (200 by default).
 */
export class Receiver {
  readonly received: Received[] = [];
  private readonly server: Server;
  private readonly hanging = new Set<ServerResponse>();
  /** Answers for the next requests, in order; then `otherwise`. */
  readonly script: Answer[] = [];
  otherwise: Answer = 200;
  /** Answers what the script does not, from the request (when it returns something). */
  decide: ((entry: Received) => Answer | undefined) | undefined;

  private constructor() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        const entry: Received = { headers: request.headers, text, body, at: Date.now(), status: 0 };
        const answer = this.script.shift() ?? this.decide?.(entry) ?? this.otherwise;
        this.received.push(entry);
        if (answer === 'hang') {
          this.hanging.add(response);
          return;
        }
        const { status, headers, body: answerBody } = typeof answer === 'number' ? { status: answer, headers: {}, body: 'ok' } : answer;
        entry.status = status;
        response.writeHead(status, headers).end(answerBody ?? '');
      });
    });
  }

  static async start(): Promise<Receiver> {
    const receiver = new Receiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  /** Waits until `count` requests arrived (or fails after `timeoutMs`). */
  async waitFor(count: number, timeoutMs = 15_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} requests, got ${this.received.length}: ${this.describe()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.received;
  }

  /** Events received, as `type id` lines. */
  events(): string[] {
    return this.received.map((entry) => `${entry.body?.type} ${entry.body?.data?.id}`);
  }

  describe(): string {
    return JSON.stringify(this.events());
  }

  /** Drops the requests it holds without an answer, as a receiver that crashed would. */
  release(): void {
    for (const response of this.hanging) response.destroy();
    this.hanging.clear();
  }

  async close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** Verifies a request with the Standard Webhooks reference library; throws when it does not verify. */
export function verifyWithReference(secret: string, entry: Received): unknown {
  return new Webhook(secret).verify(entry.text, {
    'webhook-id': String(entry.headers['webhook-id']),
    'webhook-timestamp': String(entry.headers['webhook-timestamp']),
    'webhook-signature': String(entry.headers['webhook-signature']),
  });
}

/** The same check written from the specification: HMAC-SHA256 of `id.timestamp.body`, keyed by the base64 after `whsec_`. */
export function signedBy(secret: string, entry: Received): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const content = `${String(entry.headers['webhook-id'])}.${String(entry.headers['webhook-timestamp'])}.${entry.text}`;
  const expected = createHmac('sha256', key).update(content).digest();
  return String(entry.headers['webhook-signature'])
    .split(' ')
    .some((signature) => {
      const [version, value] = signature.split(',');
      const given = Buffer.from(value ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check` gives something (polling), or fails naming `what`. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(30);
  }
}
