/**
 * What `/changes` tells a caller of the changes it cannot see (issue 36): nothing. Its tokens are opaque,
 * its pages are the same whether or not hidden writes happened meanwhile, and an item that left the
 * caller's lists is named once, not again on each later change the caller cannot see (a series).
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from './events.factories.ts';
import { CHANGES, SyncClient } from './sync.client.ts';
import { makeOrganizer, makeVenue, NS, ORGANIZERS, VENUES } from './venues-organizers.factories.ts';
import { eventually, Receiver } from './webhook.receiver.ts';

/** One sync read page by page as a client does: the entries of each page, and every token it was given. */
interface PagedSync {
  readonly pages: any[][];
  readonly tokens: string[];
  readonly next: string;
}

describe('sync tells nothing of what the caller cannot see', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  const write = async (path: string, method: string, body?: unknown) => {
    const response = await server.request(path, { method, auth: admin, ...(body === undefined ? {} : { body }) });
    assert.ok(response.status < 300, response.text);
    return response.body;
  };
  const fresh = async (auth?: Credentials): Promise<string> => {
    const response = await server.request(CHANGES, auth === undefined ? {} : { auth });
    assert.equal(response.status, 200, response.text);
    return response.body.next_sync_token;
  };
  const readSync = async (token: string, perPage: number, auth?: Credentials): Promise<PagedSync> => {
    const pages: any[][] = [];
    const tokens: string[] = [];
    let response = await server.request(`${CHANGES}?sync_token=${token}&per_page=${perPage}`, auth === undefined ? {} : { auth });
    for (;;) {
      assert.equal(response.status, 200, response.text);
      pages.push(response.body.changes);
      if (response.body.next_sync_token !== undefined) {
        tokens.push(response.body.next_sync_token);
        return { pages, tokens, next: response.body.next_sync_token };
      }
      tokens.push(response.body.next_page_token);
      response = await server.request(
        `${CHANGES}?page_token=${response.body.next_page_token}&per_page=${perPage}`,
        auth === undefined ? {} : { auth },
      );
    }
  };
  const revision = async () =>
    Number(
      (await server.server.store.db.selectFrom('revisions').select('value').where('name', '=', 'calendar').executeTakeFirstOrThrow()).value,
    );
  const draft = (title = 'Hidden draft') => makeEvent(server, admin, { status: 'draft', title });

  it('issues tokens whose bytes hold no id, no revision and nothing readable', async () => {
    const start = await fresh();
    const drafts = [await draft('Secret one'), await draft('Secret two')];
    const shown = [await makeEvent(server, admin, { status: 'publish' }), await makeEvent(server, admin, { status: 'publish' })];
    await write(`${EVENTS}/${drafts[0].id}`, 'POST', { title: 'Secret one, edited' });
    const { tokens } = await readSync(start, 1);
    tokens.push(await fresh());
    const secrets = [...[...drafts, ...shown].map((event) => event.id), await revision()];
    for (const token of [start, ...tokens]) {
      for (const part of token.split('.')) {
        const bytes = Buffer.from(part, 'base64url').toString('latin1');
        assert.throws(() => JSON.parse(bytes), `${token}: no JSON inside`);
        for (const secret of secrets) assert.doesNotMatch(bytes, new RegExp(`[\\[,]${secret}[,\\]]`), `${token}: names ${secret}`);
        assert.doesNotMatch(bytes, /Secret/);
      }
    }
  });

  it('fills every page before the last with entries the caller sees, however many hidden changes lie between', async () => {
    const anonymous = await fresh();
    const author = await server.createUser('author');
    const own = await fresh(author);
    const shown = [];
    for (const hidden of [5, 3, 0, 4]) {
      for (let index = 0; index < hidden; index += 1) await draft();
      await makeVenue(server, admin, { status: 'draft' });
      shown.push((await makeEvent(server, admin, { status: 'publish' })).id);
    }
    for (let index = 0; index < 4; index += 1) await draft();
    const sync = await readSync(anonymous, 2);
    assert.deepEqual(
      sync.pages.map((page) => page.map((entry: any) => entry.id)),
      [shown.slice(0, 2), shown.slice(2)],
      'two full pages, the second the last',
    );
    // An author sees its own drafts too, and no one else's.
    const mine = await makeEvent(server, author, { status: 'draft' });
    await draft();
    const authorSync = await readSync(own, 3, author);
    assert.deepEqual(
      authorSync.pages.map((page) => page.map((entry: any) => entry.id)),
      [shown.slice(0, 3), [shown[3], mine.id]],
    );
  });

  it('sends one tombstone for an event made a series, none for its later edits, and its occurrences as they change', async () => {
    const event = await makeEvent(server, admin, {
      status: 'publish',
      title: 'Weekly class',
      start_date: '2031-05-05 18:00',
      end_date: '2031-05-05 19:00',
    });
    const clients = [new SyncClient(server), new SyncClient(server, admin)];
    for (const client of clients) await client.start();
    await write(`${EVENTS}/${event.id}`, 'POST', { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] });
    const occurrences = (await server.request(`${EVENTS}/${event.id}/instances`)).body.events.map((item: any) => item.id);
    assert.equal(occurrences.length, 3);
    for (const client of clients) {
      const entries = await client.sync();
      assert.deepEqual(
        entries.filter((entry) => entry.id === event.id),
        [{ id: event.id, type: 'event', deleted: true }],
        'the event left the lists once',
      );
      assert.deepEqual(
        entries
          .filter((entry) => !entry.deleted)
          .map((entry) => entry.id)
          .sort(),
        [...occurrences].sort(),
      );
    }
    for (const title of ['Weekly class (room 2)', 'Weekly class (room 3)', 'Weekly class, moved']) {
      await write(`${EVENTS}/${event.id}`, 'POST', { title });
    }
    for (const client of clients) {
      const entries = await client.sync(2);
      assert.deepEqual(
        entries.filter((entry) => entry.id === event.id),
        [],
        'the series is not named again',
      );
      assert.deepEqual(entries.map((entry) => entry.id).sort(), [...occurrences].sort());
      for (const entry of entries) assert.equal(entry.item.title, 'Weekly class, moved');
    }
  });

  it('sends an event again when what it embeds changes for the caller, not when a draft venue or organizer does', async () => {
    const draftVenue = await makeVenue(server, admin, { status: 'draft' });
    const draftOrganizer = await makeOrganizer(server, admin, { status: 'draft' });
    const publicVenue = await makeVenue(server, admin, { status: 'publish' });
    const atDraft = await makeEvent(server, admin, { status: 'publish', venue: draftVenue.id, organizer: [draftOrganizer.id] });
    const atPublic = await makeEvent(server, admin, { status: 'publish', venue: publicVenue.id });
    const [anonymous, editor] = [await fresh(), await fresh(admin)];
    await write(`${VENUES}/${draftVenue.id}`, 'POST', { venue: 'Renamed in private' });
    await write(`${ORGANIZERS}/${draftOrganizer.id}`, 'POST', { organizer: 'Edited in private' });
    const entries = async (token: string, auth?: Credentials) => (await readSync(token, 50, auth)).pages.flat();
    const events = (list: any[]) => list.filter((entry) => entry.type === 'event').map((entry) => entry.id);
    assert.deepEqual(events(await entries(anonymous)), [], 'anonymous readers hear of nothing');
    assert.ok(events(await entries(editor, admin)).includes(atDraft.id), 'editors, whose lists show the draft venue, hear of the event');

    const afterDrafts = await fresh();
    await write(`${VENUES}/${publicVenue.id}`, 'POST', { venue: 'Renamed in public' });
    const publicChange = await entries(afterDrafts);
    assert.deepEqual(events(publicChange), [atPublic.id]);
    assert.equal(publicChange.find((entry) => entry.id === atPublic.id)?.item.venue.venue, 'Renamed in public');

    const beforePublishing = await fresh();
    await write(`${VENUES}/${draftVenue.id}`, 'POST', { status: 'publish' });
    assert.deepEqual(events(await entries(beforePublishing)), [atDraft.id], 'a venue published shows in its events');
  });

  it('answers truncated, edited, unsigned, older-format, foreign and misplaced tokens with their 4xx', async () => {
    const sync = await fresh();
    await makeEvent(server, admin, { status: 'publish' });
    await makeEvent(server, admin, { status: 'publish' });
    const first = await server.request(`${CHANGES}?sync_token=${sync}&per_page=1`);
    const page = first.body.next_page_token as string;
    assert.ok(page);
    const middle = Math.floor(sync.length / 2);
    const edited = `${sync.slice(0, middle)}${sync[middle] === 'A' ? 'B' : 'A'}${sync.slice(middle + 1)}`;
    // A token as this server signed them before they were encrypted.
    const { token_key: key } = await server.server.store.db.selectFrom('calendar_change_log').select('token_key').executeTakeFirstOrThrow();
    const body = Buffer.from(JSON.stringify([1, 0, Math.floor(Date.now() / 1000), 31, 'en', 0])).toString('base64url');
    const signed = `${body}.${createHmac('sha256', key).update(body).digest().subarray(0, 16).toString('base64url')}`;
    for (const bad of [sync.slice(0, -3), sync.slice(3), edited, signed, 'not-a-token', `${sync}.x`, `${page}A`]) {
      const response = await server.request(`${CHANGES}?sync_token=${bad}`);
      assert.equal(response.status, 410, bad);
      assert.equal(response.body.code, 'rest_sync_token_expired');
    }
    const misplaced = [
      { query: `sync_token=${page}`, auth: undefined },
      { query: `page_token=${sync}`, auth: undefined },
      { query: `sync_token=${sync}`, auth: admin },
      { query: `page_token=${page}`, auth: admin },
      { query: `sync_token=${sync}&page_token=${page}`, auth: undefined },
    ];
    for (const { query, auth } of misplaced) {
      const response = await server.request(`${CHANGES}?${query}`, auth === undefined ? {} : { auth });
      assert.equal(response.status, 400, query);
      assert.equal(response.body.code, 'rest_invalid_param');
    }
  });

  it('issues a new fresh token on every request, alike whatever was written meanwhile', async () => {
    const quiet = [await fresh(), await fresh()];
    await draft('Moved the revision');
    const afterDraft = await fresh();
    assert.equal(new Set([...quiet, afterDraft]).size, 3, 'never the same bytes twice');
    assert.deepEqual(
      [...quiet, afterDraft].map((token) => token.length),
      [quiet[0]!.length, quiet[0]!.length, quiet[0]!.length],
    );
  });

  describe('the same pages with and without hidden writes', () => {
    // Writes anonymous callers see, to the events of one run, and the syncs that read them.
    const visible = fc.oneof(
      { weight: 3, arbitrary: fc.record({ op: fc.constant('create' as const) }) },
      { weight: 2, arbitrary: fc.record({ op: fc.constant('rename' as const), pick: fc.nat() }) },
      { weight: 2, arbitrary: fc.record({ op: fc.constant('unpublish' as const), pick: fc.nat() }) },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('republish' as const), pick: fc.nat() }) },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('trash' as const), pick: fc.nat() }) },
      { weight: 2, arbitrary: fc.record({ op: fc.constant('sync' as const), perPage: fc.integer({ min: 1, max: 3 }) }) },
    );
    // Writes they never see: drafts made, edited and deleted, and edits of unpublished events that leave them as they were.
    const hidden = fc.oneof(
      fc.record({ op: fc.constant('draft' as const) }),
      fc.record({ op: fc.constant('draft-venue' as const) }),
      fc.record({ op: fc.constant('edit-draft' as const), pick: fc.nat() }),
      fc.record({ op: fc.constant('delete-draft' as const), pick: fc.nat() }),
      fc.record({ op: fc.constant('touch-unpublished' as const), pick: fc.nat() }),
    );
    type Visible = typeof visible extends fc.Arbitrary<infer T> ? T : never;
    type Hidden = typeof hidden extends fc.Arbitrary<infer T> ? T : never;

    /** What one run of writes looks like to an anonymous client: each sync's pages, entries named by the run's labels. */
    async function run(steps: readonly Visible[], hiddenBefore: readonly (readonly Hidden[])[]): Promise<string[][][]> {
      const labels = new Map<number, string>();
      const titles = new Map<number, string>();
      const shown: number[] = [];
      const unpublished: number[] = [];
      const drafts: number[] = [];
      let token = await fresh();
      const seen: string[][][] = [];
      const among = (list: number[], pick: number) => (list.length === 0 ? undefined : list[pick % list.length]);
      const label = (entry: any) =>
        `${entry.deleted ? '-' : '+'}${labels.get(entry.id) ?? `unknown ${entry.type} ${entry.id}`}${entry.deleted ? '' : `:${entry.item.title}`}`;

      const hide = async (step: Hidden) => {
        switch (step.op) {
          case 'draft':
            drafts.push((await draft()).id);
            return;
          case 'draft-venue':
            await makeVenue(server, admin, { status: 'draft' });
            return;
          case 'edit-draft': {
            const id = among(drafts, step.pick);
            if (id !== undefined) await write(`${EVENTS}/${id}`, 'POST', { title: `Draft edited ${Date.now()}` });
            return;
          }
          case 'delete-draft': {
            const id = among(drafts, step.pick);
            if (id === undefined) return;
            await write(`${EVENTS}/${id}?force=true`, 'DELETE');
            drafts.splice(drafts.indexOf(id), 1);
            return;
          }
          case 'touch-unpublished': {
            const id = among(unpublished, step.pick);
            if (id === undefined) return;
            await write(`${EVENTS}/${id}`, 'POST', { title: 'Being rewritten' });
            await write(`${EVENTS}/${id}`, 'POST', { title: titles.get(id) });
          }
        }
      };

      for (const [index, step] of steps.entries()) {
        for (const write of hiddenBefore[index] ?? []) await hide(write);
        switch (step.op) {
          case 'create': {
            const event = await makeEvent(server, admin, { status: 'publish', title: `Shown ${index}` });
            labels.set(event.id, `e${labels.size}`);
            titles.set(event.id, `Shown ${index}`);
            shown.push(event.id);
            break;
          }
          case 'rename': {
            const id = among(shown, step.pick);
            if (id === undefined) break;
            titles.set(id, `Renamed ${index}`);
            await write(`${EVENTS}/${id}`, 'POST', { title: titles.get(id) });
            break;
          }
          case 'unpublish':
          case 'republish': {
            const [from, to] = step.op === 'unpublish' ? [shown, unpublished] : [unpublished, shown];
            const id = among(from, step.pick);
            if (id === undefined) break;
            await write(`${EVENTS}/${id}`, 'POST', { status: step.op === 'unpublish' ? 'draft' : 'publish' });
            from.splice(from.indexOf(id), 1);
            to.push(id);
            break;
          }
          case 'trash': {
            const id = among(shown, step.pick);
            if (id === undefined) break;
            await write(`${EVENTS}/${id}`, 'DELETE');
            shown.splice(shown.indexOf(id), 1);
            break;
          }
          case 'sync': {
            const sync = await readSync(token, step.perPage);
            token = sync.next;
            seen.push(sync.pages.map((entries) => entries.map(label)));
          }
        }
      }
      for (const write of hiddenBefore[steps.length] ?? []) await hide(write);
      seen.push((await readSync(token, 2)).pages.map((entries) => entries.map(label)));
      return seen;
    }

    it('gives an anonymous client the same pages and entries whether or not hidden writes are interleaved', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc
            .array(visible, { minLength: 4, maxLength: 18 })
            .chain((steps) =>
              fc.tuple(
                fc.constant(steps),
                fc.array(fc.array(hidden, { maxLength: 3 }), { minLength: steps.length + 1, maxLength: steps.length + 1 }),
              ),
            ),
          async ([steps, hiddenBefore]) => {
            const plain = await run(steps, []);
            const withHidden = await run(steps, hiddenBefore);
            assert.deepEqual(withHidden, plain);
          },
        ),
        { numRuns: Number(process.env.SYNC_HIDDEN_RUNS ?? 12) },
      );
    });
  });
  describe('webhook notices', () => {
    it('carry a sync token that reads a removal, though the item changed again before the notice was sent', async () => {
      const hooks = await startTestServer({ WEBHOOK_POLL_MS: '40', WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
      const receiver = await Receiver.start();
      try {
        const owner = await hooks.admin();
        const subscribed = await hooks.request(`${NS}/webhooks`, { method: 'POST', auth: owner, body: { url: receiver.url } });
        assert.equal(subscribed.status, 201, subscribed.text);
        const event = await makeEvent(hooks, owner, { status: 'publish' });
        const notices = (type: string) =>
          receiver.received.filter((entry) => entry.body?.data?.id === event.id && entry.body.type === type);
        await eventually(() => (notices('event.created').length > 0 ? true : undefined), 'the publication');
        // Unpublished, then changed as a draft, before the dispatcher reads the log: its row is at the second change.
        await hooks.server.store.db.transaction().execute(async (trx) => {
          await sql`update events set status = 'draft' where id = ${event.id}`.execute(trx);
          await sql`update events set modified = '2031-01-01 00:00:00' where id = ${event.id}`.execute(trx);
        });
        const [removal] = await eventually(
          () => (notices('event.deleted').length > 0 ? notices('event.deleted') : undefined),
          'the removal',
        );
        const sync = await hooks.request(`${CHANGES}?sync_token=${removal!.body.data.sync_token}`);
        assert.deepEqual(sync.body.changes, [{ id: event.id, type: 'event', deleted: true }]);
      } finally {
        await hooks.close();
        await receiver.close();
      }
    });
  });
});
