/**
 * What `/changes` tells a caller of the changes it cannot see (issue 36): nothing. Its tokens are opaque,
 * its pages are the same whether or not hidden writes happened meanwhile, and an item that left the
 * caller's lists is named once, not again on each later change the caller cannot see (a series).
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from './events.factories.ts';
import { CHANGES } from './sync.client.ts';

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
});
