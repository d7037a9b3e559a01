import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { sendOpenLoop } from '../../bench/open-loop.ts';
import type { LoadVariant } from '../../bench/load.ts';

/** Reads answer at once (a missing one with a 404), writes after WRITE_MS: what the sender must tell apart. */
const WRITE_MS = 40;
let server: Server;
let base: URL;
const arrivals: number[] = [];
const bodies: string[] = [];
before(async () => {
  server = createServer((request, response) => {
    arrivals.push(performance.now());
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      if (request.method === 'GET') return void response.writeHead(request.url === '/missing' ? 404 : 200).end('{}');
      bodies.push(body);
      setTimeout(() => response.writeHead(201).end('{}'), WRITE_MS);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('sends at the rate asked whatever the answers take, times reads and writes apart, and makes each body unique', async () => {
  const variants: LoadVariant[] = [
    ...Array.from({ length: 8 }, (_, index): LoadVariant => ({ method: 'GET', path: `/events/${index}` })),
    { method: 'GET', path: '/missing' },
    { method: 'POST', path: '/events', headers: { 'content-type': 'application/json' }, body: '{"title":"Mixed [<id>]"}' },
  ];
  const started = performance.now();
  const result = await sendOpenLoop(base, variants, 100, 1);

  assert.equal(result.sent, 100);
  assert.equal(result.reads.count, 90);
  assert.equal(result.writes.count, 10);
  assert.equal(result.badResponses, 10, 'the 404s');
  assert.equal(result.socketErrors, 0);
  // Requests leave when due, not all at once: spread over the second, writes waiting or not. Measured from when
  // sending began, since a first request held up by a busy machine would shorten the spread of arrivals alone.
  assert.equal(arrivals.length, 100);
  assert.ok(arrivals.at(-1)! - started >= 900, `the last sent ${(arrivals.at(-1)! - started).toFixed(0)} ms after the start`);
  assert.ok(result.writes.p50Ms >= WRITE_MS, `writes p50 ${result.writes.p50Ms} ms`);
  assert.ok(result.reads.p50Ms < result.writes.p50Ms, `reads p50 ${result.reads.p50Ms} ms`);
  assert.equal(new Set(bodies).size, 10);
  assert.ok(
    bodies.every((body) => /^\{"title":"Mixed [0-9a-f]+-\d+"\}$/.test(body)),
    bodies[0],
  );
});
