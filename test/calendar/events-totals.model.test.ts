/**
 * List totals maintained incrementally from version to version and pages
 * read again in each (issue 26, events.listing.ts) as a property: whatever another process
 * writes — creates in and out of the default window, date, status, flag,
 * category and venue changes, retitles, trash and deletion — the total of
 * every public list this process reads is the number of events the list
 * itself shows, and each of its pages shows the events a page read afresh
 * shows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { EventsService } from '../../src/calendar/events/events.service.ts';
import { PostPasswords } from '../../src/calendar/posts/posts.passwords.ts';
import type { RunningServer } from '../../src/server.ts';
import { contextFor } from './context.helper.ts';
import { startSecondServer, startTestServer, writeThrough, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS } from './events.factories.ts';
import { NS, VENUES } from './venues-organizers.factories.ts';

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const pick = fc.nat({ max: 1000 });
const when = fc.constantFrom(-30, -1, 0, 3, 200, 900);
/** Small pages, so that writes land before, on and after them. */
const PER_PAGE = 3;

const operation = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('create' as const),
      when,
      status: fc.constantFrom('publish', 'publish', 'draft'),
      featured: fc.boolean(),
      category: fc.nat({ max: 1 }),
      venue: fc.nat({ max: 1 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('move' as const), pick, when }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('status' as const), pick, status: fc.constantFrom('publish', 'draft', 'private') }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('feature' as const), pick, featured: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('link' as const), pick, category: fc.nat({ max: 1 }), venue: fc.nat({ max: 1 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('retitle' as const), pick, word: fc.constantFrom('harbour', 'meadow') }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('trash' as const), pick, force: fc.boolean() }) },
);

describe('list totals and pages maintained across versions', () => {
  let reader: TestServer;
  let writer: RunningServer;
  let admin: Credentials;
  const categories: number[] = [];
  const venues: number[] = [];
  const events: number[] = [];

  before(async () => {
    reader = await startTestServer({ RESPONSE_CACHE_MB: '0' });
    writer = await startSecondServer(reader);
    admin = await reader.admin();
    for (const name of ['Harbour music', 'Meadow walks']) categories.push((await write('POST', `${NS}/categories`, { name })).id);
    for (const venue of ['Pier hall', 'Hill barn']) venues.push((await write('POST', VENUES, { venue, status: 'publish' })).id);
  });
  after(async () => {
    await writer.close();
    await reader.close();
  });

  const write = (method: string, path: string, body: Record<string, unknown>) => writeThrough(writer, admin, method, path, body);

  const dates = (offset: number) => ({ start_date: `${day(offset)} 10:00:00`, end_date: `${day(offset)} 11:00:00` });

  type Step = typeof operation extends fc.Arbitrary<infer T> ? T : never;

  async function apply(step: Step): Promise<void> {
    const target = events.length === 0 || !('pick' in step) ? undefined : events[step.pick % events.length];
    switch (step.op) {
      case 'create': {
        const made = await write('POST', EVENTS, {
          title: `Event ${events.length}`,
          status: step.status,
          featured: step.featured,
          categories: [categories[step.category]],
          venue: venues[step.venue],
          ...dates(step.when),
        });
        events.push(made.id);
        return;
      }
      case 'trash':
        if (target === undefined) return;
        await write('DELETE', `${EVENTS}/${target}${step.force ? '?force=true' : ''}`, {});
        events.splice(events.indexOf(target), 1);
        return;
      default: {
        if (target === undefined) return;
        const body =
          step.op === 'move'
            ? dates(step.when)
            : step.op === 'status'
              ? { status: step.status }
              : step.op === 'feature'
                ? { featured: step.featured }
                : step.op === 'link'
                  ? { categories: [categories[step.category]], venue: venues[step.venue] }
                  : { title: `A ${step.word} evening` };
        await write('POST', `${EVENTS}/${target}`, body);
      }
    }
  }

  /** Each public list's total against a count computed afresh (a service that never maintained a total) and the events it shows. */
  async function check(label: string): Promise<void> {
    const fresh = new EventsService({
      db: reader.server.store.db,
      config: reader.config,
      passwords: new PostPasswords(reader.server.store.db, reader.config),
    });
    const idsOf = (events: { id: number }[]) => events.map((event) => event.id);
    const lists: Record<string, string>[] = [
      {},
      { featured: 'true' },
      { categories: String(categories[0]) },
      { venue: String(venues[1]) },
      { search: 'harbour' },
      { start_date: day(-40), end_date: day(1000) },
      { translation_language: 'it' },
    ];
    for (const list of lists) {
      const query = new URLSearchParams({ per_page: '100', ...list }).toString();
      const response = await reader.request(`${EVENTS}?${query}`);
      assert.equal(response.status, 200, response.text);
      const counted = await fresh.listEvents({ ...list, per_page: 100 } as any, contextFor(reader, null));
      assert.equal(response.body.total, counted.total, `${label}: total of ?${query}`);
      assert.equal(response.body.total, response.body.events.length, `${label}: events of ?${query}`);
      assert.equal(response.headers.get('x-wp-total'), String(counted.total));
      // Its pages, across the writes as well (events.listing.ts), against pages read afresh.
      for (let page = 1; (page - 1) * PER_PAGE < counted.total && page <= 3; page++) {
        const pageQuery = new URLSearchParams({ ...list, per_page: String(PER_PAGE), page: String(page) }).toString();
        const paged = await reader.request(`${EVENTS}?${pageQuery}`);
        const expected = await fresh.listEvents({ ...list, per_page: PER_PAGE, page } as any, contextFor(reader, null));
        assert.equal(paged.status, 200, `${label}: ?${pageQuery}: ${paged.text}`);
        assert.deepEqual(idsOf(paged.body.events), idsOf(expected.events), `${label}: ?${pageQuery}`);
      }
    }
  }

  it('equal what each list shows after every write of another process', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 15, maxLength: 25 }), async (steps) => {
        await check('before');
        for (const [index, step] of steps.entries()) {
          await apply(step);
          await check(`after step ${index} (${JSON.stringify(step)})`);
        }
      }),
      { numRuns: 3 },
    );
  });
});
