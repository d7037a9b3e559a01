/**
 * A webhook receiver for Almanac (docs/calendar-webhooks.md): verifies each
 * delivery with the Standard Webhooks library, ignores repeats of a message
 * it already took (deliveries are at least once), answers at once, then
 * re-reads what changed through the sync token the notice carries.
 *
 *   ALMANAC_URL=https://calendar.example.org ALMANAC_WEBHOOK_SECRET=whsec_… PORT=3000 \
 *     node --import tsx docs/examples/webhook-receiver.ts
 */
import { createServer, type IncomingMessage } from 'node:http';
import { Webhook } from 'standardwebhooks';

interface Notice {
  readonly type: string; // event.created, venue.deleted, webhook.ping…
  readonly timestamp: string;
  readonly data: { readonly id: number; readonly type: string; readonly sync_token?: string };
}

const almanac = process.env.ALMANAC_URL ?? 'http://127.0.0.1:8080';
const webhook = new Webhook(process.env.ALMANAC_WEBHOOK_SECRET ?? '');
const taken = new Set<string>(); // webhook-id of the messages taken; keep it in your database in production

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const server = createServer(async (request, response) => {
  const body = await bodyOf(request);
  let notice: Notice;
  try {
    // Checks the signature (any of the space-separated ones) and that the timestamp is within 5 minutes.
    notice = webhook.verify(body, request.headers as Record<string, string>) as Notice;
  } catch {
    response.writeHead(401).end();
    return;
  }
  const messageId = String(request.headers['webhook-id']);
  // Answer within Almanac's 10 s timeout; a 2xx ends the retries, a 410 unsubscribes.
  response.writeHead(204).end();
  if (taken.has(messageId)) return;
  taken.add(messageId);
  if (notice.data.sync_token === undefined) {
    console.log(`${notice.type}`);
    return;
  }
  // The notice is thin: read what changed, as anonymous readers see it, from the change it names on.
  const changes = await fetch(`${almanac}/calendar/events/v1/changes?sync_token=${encodeURIComponent(notice.data.sync_token)}`);
  const { changes: entries } = (await changes.json()) as { changes: { type: string; id: number; deleted: boolean }[] };
  const entry = entries.find((change) => change.type === notice.data.type && change.id === notice.data.id);
  console.log(`${notice.type} ${notice.data.id}: ${entry === undefined ? 'changed again since' : entry.deleted ? 'gone' : 'read'}`);
});

server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const address = server.address();
  console.log(`receiver listening on port ${typeof address === 'object' && address !== null ? address.port : '?'}`);
});
