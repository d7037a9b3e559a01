/**
 * The receiver example of docs/calendar-webhooks.md, run as its readers run
 * it: it takes a real delivery, refuses a forged one, and reads the change
 * through the notice's sync token. So the documented example cannot rot.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { makeEvent } from './events.factories.ts';
import { NS } from './venues-organizers.factories.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const EXAMPLE = path.join(ROOT, 'docs/examples/webhook-receiver.ts');

describe('the webhook receiver example', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_POLL_MS: '40' });
    admin = await server.admin();
  });
  after(async () => server.close());

  it('verifies, de-duplicates and re-reads', async (t) => {
    // The secret comes first (made with the subscription), the receiver's address once it listens.
    const made = await server.request(`${NS}/webhooks`, {
      method: 'POST',
      auth: admin,
      body: { url: 'https://hooks.example.com/', active: false },
    });
    assert.equal(made.status, 201, made.text);
    const child = spawn(process.execPath, ['--import', 'tsx', EXAMPLE], {
      cwd: ROOT,
      env: { ...process.env, ALMANAC_URL: server.url, ALMANAC_WEBHOOK_SECRET: made.body.secret, PORT: '0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    t.after(() => child.kill());
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const waitFor = async (pattern: RegExp) => {
      const deadline = Date.now() + 20_000;
      while (!pattern.test(output)) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no ${pattern} in: ${output}`);
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      return pattern.exec(output)!;
    };
    const port = (await waitFor(/receiver listening on port (\d+)/))[1];
    const url = `http://127.0.0.1:${port}/`;
    const enabled = await server.request(`${NS}/webhooks/${made.body.id}`, { method: 'PUT', auth: admin, body: { url, active: true } });
    assert.equal(enabled.status, 200, enabled.text);

    const event = await makeEvent(server, admin, { status: 'publish' });
    await waitFor(new RegExp(`event.created ${event.id}: read`));
    const ping = await server.request(`${NS}/webhooks/${made.body.id}/ping`, { method: 'POST', auth: admin });
    assert.equal(ping.body.response_status, 204);
    await waitFor(/webhook\.ping/);

    const forged = await fetch(url, {
      method: 'POST',
      headers: { 'webhook-id': 'msg_forged', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
      body: JSON.stringify({ type: 'event.deleted', timestamp: new Date().toISOString(), data: { id: event.id, type: 'event' } }),
    });
    assert.equal(forged.status, 401);
    // A replay is the same message: answered, not taken twice.
    const delivered = async () =>
      (await server.request(`${NS}/webhooks/${made.body.id}/deliveries?status=succeeded`, { auth: admin })).body.filter(
        (entry: any) => entry.event === 'event.created',
      );
    const [delivery] = await delivered();
    await server.request(`${NS}/webhooks/${made.body.id}/deliveries/${delivery.id}/replay`, { method: 'POST', auth: admin });
    for (let waited = 0; (await delivered()).length < 2; waited += 30) {
      assert.ok(waited < 20_000, 'the replay was not delivered');
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    assert.equal(output.match(new RegExp(`event.created ${event.id}`, 'g'))?.length, 1, output);
    assert.doesNotMatch(output, /event\.deleted/);
  });
});
