import assert from 'node:assert/strict';
import type { Credentials, TestServer } from '../helpers/server.ts';

export const CHANGES = '/calendar/events/v1/changes';

/** What the lists show a caller, by `type:id`: the state a mirror must reproduce. */
export type Mirror = Map<string, any>;

const LISTS = [
  // Every event, whatever its dates: modified_after drops the default window.
  { type: 'event', path: '/calendar/events/v1/events?modified_after=1970-01-01T00:00:00Z', key: 'events' },
  { type: 'venue', path: '/calendar/events/v1/venues?', key: 'venues' },
  { type: 'organizer', path: '/calendar/events/v1/organizers?', key: 'organizers' },
  { type: 'category', path: '/calendar/events/v1/categories?hide_empty=false', key: 'categories' },
  { type: 'tag', path: '/calendar/events/v1/tags?hide_empty=false', key: 'tags' },
] as const;

/**
 * What events embed of a term includes its `count`, which moves with every
 * other event of the term: a sync sends the term, not each event that shows
 * it (docs/calendar-changes.md).
 */
export function comparable(type: string, item: any): any {
  if (type !== 'event') return item;
  const terms = (list: any[] | undefined) => list?.map(({ count: _count, ...term }) => term);
  return { ...item, categories: terms(item.categories), tags: terms(item.tags) };
}

/** The state every list shows `auth` (anonymous when undefined), page after page. */
export async function listedState(server: TestServer, auth?: Credentials, language?: string): Promise<Mirror> {
  const state: Mirror = new Map();
  for (const list of LISTS) {
    for (let page = 1; ; page += 1) {
      const lang = language === undefined ? '' : `&translation_language=${language}`;
      const response = await server.request(`${list.path}&per_page=50&page=${page}${lang}`, auth === undefined ? {} : { auth });
      if (response.status === 404 || (response.status === 200 && response.body[list.key].length === 0)) break;
      assert.equal(response.status, 200, response.text);
      for (const item of response.body[list.key]) state.set(`${list.type}:${item.id}`, comparable(list.type, item));
      if (page >= Number(response.headers.get('x-wp-totalpages') ?? 1)) break;
    }
  }
  return state;
}

/** A client that keeps a copy of the calendar by `/changes`, as docs/calendar-changes.md tells one to. */
export class SyncClient {
  readonly mirror: Mirror = new Map();
  /** Every entry received, in order. */
  readonly received: any[] = [];
  token: string | undefined;

  constructor(
    private readonly server: TestServer,
    private readonly auth?: Credentials,
    private readonly filters = '',
  ) {}

  private async get(path: string): Promise<any> {
    const response = await this.server.request(path, this.auth === undefined ? {} : { auth: this.auth });
    assert.equal(response.status, 200, response.text);
    return response.body;
  }

  /** A token first, then the lists: what changes after the token comes again with the next sync. */
  async start(options: { load?: boolean; language?: string } = {}): Promise<void> {
    const body = await this.get(`${CHANGES}?${this.filters}`);
    assert.deepEqual(body.changes, []);
    this.token = body.next_sync_token;
    if (options.load === true)
      for (const [key, item] of await listedState(this.server, this.auth, options.language)) this.mirror.set(key, item);
  }

  /** Reads every page of one sync and applies it; returns the entries. */
  async sync(perPage = 50): Promise<any[]> {
    assert.ok(this.token !== undefined, 'start first');
    const entries: any[] = [];
    let body = await this.get(`${CHANGES}?sync_token=${this.token}&per_page=${perPage}`);
    for (;;) {
      entries.push(...body.changes);
      if (body.next_sync_token !== undefined) {
        assert.equal(body.next_page_token, undefined, 'a last page has no next page');
        this.token = body.next_sync_token;
        break;
      }
      body = await this.get(`${CHANGES}?page_token=${body.next_page_token}&per_page=${perPage}`);
    }
    for (const entry of entries) {
      const key = `${entry.type}:${entry.id}`;
      if (entry.deleted) this.mirror.delete(key);
      else this.mirror.set(key, comparable(entry.type, entry.item));
    }
    this.received.push(...entries);
    return entries;
  }
}
