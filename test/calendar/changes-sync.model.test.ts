/**
 * The sync contract as a property (issue 23): whatever the writes — create,
 * update, link, trash, delete, unpublish, publish, of every item type, series
 * included — a client that applies the pages of `/changes` holds exactly
 * what the lists show its caller. Anonymous, Italian and editor clients
 * sync at random moments with random page sizes; one more starts halfway,
 * from a token and the lists.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS } from './events.factories.ts';
import { listedState, SyncClient, type Mirror } from './sync.client.ts';
import { NS, ORGANIZERS, VENUES } from './venues-organizers.factories.ts';

type Kind = 'event' | 'venue' | 'organizer' | 'category' | 'tag';
const PATHS: Record<Kind, string> = {
  event: EVENTS,
  venue: VENUES,
  organizer: ORGANIZERS,
  category: `${NS}/categories`,
  tag: `${NS}/tags`,
};
const POST_STATUSES = ['publish', 'draft', 'private', 'pending'] as const;

const pick = fc.nat({ max: 1000 });
const postKind = fc.constantFrom<Kind>('event', 'venue', 'organizer');
const anyKind = fc.constantFrom<Kind>('event', 'venue', 'organizer', 'category', 'tag');

// Weighted towards what meets: links, and changes to what events embed.
const operation = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('create' as const),
      kind: anyKind,
      status: fc.constantFrom(...POST_STATUSES),
      protected: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('series' as const), count: fc.integer({ min: 2, max: 4 }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('rename' as const), kind: anyKind, pick, language: fc.constantFrom('en', 'it') }) },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('status' as const), kind: postKind, pick, status: fc.constantFrom(...POST_STATUSES) }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('detail' as const), kind: fc.constantFrom<Kind>('venue', 'organizer'), pick }) },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('link' as const),
      pick,
      to: fc.constantFrom<Kind>('venue', 'organizer', 'category', 'tag'),
      other: pick,
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('hide' as const), pick, hidden: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('trash' as const), kind: postKind, pick }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), kind: anyKind, pick }) },
  {
    weight: 3,
    arbitrary: fc.record({ op: fc.constant('sync' as const), client: fc.nat({ max: 2 }), perPage: fc.integer({ min: 1, max: 6 }) }),
  },
);

type Step = typeof operation extends fc.Arbitrary<infer T> ? T : never;

describe('sync reproduces the lists', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  const known: Record<Kind, number[]> = { event: [], venue: [], organizer: [], category: [], tag: [] };
  let serial = 0;

  const send = async (path: string, method: string, body?: unknown) => {
    const response = await server.request(path, { method, auth: admin, ...(body === undefined ? {} : { body }) });
    // A write the model aims at an item gone meanwhile may be refused; never with a 5xx.
    assert.ok(response.status < 500, response.text);
    return response;
  };
  // One of the last few of a kind: writes in a run meet the same items (and the runs before share the server).
  const chosen = (kind: Kind, index: number) => known[kind].at(-1 - (index % Math.min(known[kind].length, 2)));
  const nameField: Record<Kind, string> = { event: 'title', venue: 'venue', organizer: 'organizer', category: 'name', tag: 'name' };

  async function apply(step: Step, clients: SyncClient[]): Promise<void> {
    serial += 1;
    switch (step.op) {
      case 'create': {
        const post = step.kind === 'event' || step.kind === 'venue' || step.kind === 'organizer';
        const dates = step.kind === 'event' ? { start_date: '2027-03-01 10:00:00', end_date: '2027-03-01 12:00:00' } : {};
        const body = {
          [nameField[step.kind]]: `${step.kind} ${serial}`,
          ...dates,
          ...(post ? { status: step.status, description: `About ${serial}` } : {}),
          ...(post && step.protected ? { password: 'pw' } : {}),
        };
        const response = await send(PATHS[step.kind], 'POST', body);
        if (response.status === 201) known[step.kind].push(response.body.id);
        return;
      }
      case 'series': {
        const response = await send(EVENTS, 'POST', {
          title: `series ${serial}`,
          status: 'publish',
          start_date: '2027-04-01 09:00:00',
          end_date: '2027-04-01 10:00:00',
          recurrence: [`RRULE:FREQ=DAILY;COUNT=${step.count}`],
        });
        if (response.status === 201) known.event.push(response.body.id);
        const instances = await server.request(`${EVENTS}/${response.body.id}/instances`, { auth: admin });
        for (const event of instances.body.events ?? []) known.event.push(event.id);
        return;
      }
      case 'rename': {
        const id = chosen(step.kind, step.pick);
        if (id !== undefined)
          await send(`${PATHS[step.kind]}/${id}`, 'POST', {
            [nameField[step.kind]]: `renamed ${serial}`,
            translation_language: step.language,
          });
        return;
      }
      case 'detail': {
        const id = chosen(step.kind, step.pick);
        const detail = step.kind === 'venue' ? { address: `${serial} Main Street` } : { phone: `+39 ${serial}` };
        if (id !== undefined) await send(`${PATHS[step.kind]}/${id}`, 'POST', detail);
        return;
      }
      case 'status': {
        const id = chosen(step.kind, step.pick);
        if (id !== undefined) await send(`${PATHS[step.kind]}/${id}`, 'POST', { status: step.status });
        return;
      }
      case 'link': {
        const id = chosen('event', step.pick);
        const other = chosen(step.to, step.other);
        if (id === undefined || other === undefined) return;
        const field = { venue: 'venue', organizer: 'organizer', category: 'categories', tag: 'tags' }[step.to as 'venue'];
        await send(`${EVENTS}/${id}`, 'POST', { [field]: step.to === 'venue' ? other : [other] });
        return;
      }
      case 'hide': {
        const id = chosen('event', step.pick);
        if (id !== undefined) await send(`${EVENTS}/${id}`, 'POST', { hide_from_event_listings: step.hidden });
        return;
      }
      case 'trash': {
        const id = chosen(step.kind, step.pick);
        if (id !== undefined) await send(`${PATHS[step.kind]}/${id}`, 'DELETE');
        return;
      }
      case 'delete': {
        const id = chosen(step.kind, step.pick);
        if (id !== undefined && (await send(`${PATHS[step.kind]}/${id}?force=true`, 'DELETE')).status === 200) {
          known[step.kind] = known[step.kind].filter((other) => other !== id);
        }
        return;
      }
      case 'sync':
        await clients[step.client]!.sync(step.perPage);
    }
  }

  const sameState = (mirror: Mirror, listed: Mirror, who: string) => {
    assert.deepEqual([...mirror.keys()].sort(), [...listed.keys()].sort(), `${who}: the same items`);
    for (const [key, item] of listed) assert.deepEqual(mirror.get(key), item, `${who}: ${key} as listed`);
  };

  it('after any writes, every client holds what its lists show', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 8, maxLength: 30, size: 'max' }), async (steps) => {
        const clients = [
          new SyncClient(server),
          new SyncClient(server, undefined, 'translation_language=it'),
          new SyncClient(server, admin),
        ];
        await clients[0]!.start({ load: true });
        await clients[1]!.start({ load: true, language: 'it' });
        await clients[2]!.start({ load: true });
        const half = Math.floor(steps.length / 2);
        for (const step of steps.slice(0, half)) await apply(step, clients);
        const late = new SyncClient(server);
        await late.start({ load: true });
        for (const step of steps.slice(half)) await apply(step, clients);
        for (const client of [...clients, late]) await client.sync(4);
        sameState(clients[0]!.mirror, await listedState(server), 'anonymous');
        sameState(clients[1]!.mirror, await listedState(server, undefined, 'it'), 'anonymous, Italian');
        sameState(clients[2]!.mirror, await listedState(server, admin), 'administrator');
        sameState(late.mirror, await listedState(server), 'anonymous, started halfway');
      }),
      { numRuns: Number(process.env.SYNC_MODEL_RUNS ?? 15) },
    );
  });
});
