import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/platform/db/schema.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { makeEvent } from './terms.factory.ts';

const STATUSES = ['publish', 'draft', 'future', 'private', 'pending', 'trash'] as const;

type Operation =
  | { kind: 'event'; status: (typeof STATUSES)[number]; terms: number[] }
  | { kind: 'link' | 'unlink'; event: number; term: number }
  | { kind: 'move'; event: number; from: number; to: number }
  | { kind: 'status'; event: number; status: (typeof STATUSES)[number] }
  | { kind: 'delete'; event: number };

const statusArb = fc.constantFrom(...STATUSES);
const index = fc.nat({ max: 7 });
const operationArb: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant('event' as const), status: statusArb, terms: fc.uniqueArray(fc.nat({ max: 3 }), { maxLength: 3 }) }),
  fc.record({ kind: fc.constantFrom('link' as const, 'unlink' as const), event: index, term: fc.nat({ max: 3 }) }),
  fc.record({ kind: fc.constant('move' as const), event: index, from: fc.nat({ max: 3 }), to: fc.nat({ max: 3 }) }),
  fc.record({ kind: fc.constant('status' as const), event: index, status: statusArb }),
  fc.record({ kind: fc.constant('delete' as const), event: index }),
);

// The database maintains terms.published_count (migration 2026-11-24T0300) whoever writes: these writes are
// plain SQL, as another program's would be, and the stored counts must always equal a recount.
describe('published counts maintained by the database', () => {
  let server: TestServer;
  const db = (): Kysely<Database> => server.server.store.db;

  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  async function apply(operation: Operation, events: number[], terms: readonly number[]): Promise<void> {
    const event = events[operation.kind === 'event' ? 0 : operation.event % Math.max(events.length, 1)];
    switch (operation.kind) {
      case 'event':
        events.push(await makeEvent(db(), { status: operation.status, terms: operation.terms.map((term) => terms[term]!) }));
        return;
      case 'link':
        if (event !== undefined)
          await sql`insert into event_terms (event_id, term_id) values (${event}, ${terms[operation.term]}) on conflict do nothing`.execute(
            db(),
          );
        return;
      case 'unlink':
        if (event !== undefined)
          await db().deleteFrom('event_terms').where('event_id', '=', event).where('term_id', '=', terms[operation.term]!).execute();
        return;
      case 'move':
        if (event !== undefined && operation.from !== operation.to) {
          await sql`update event_terms set term_id = ${terms[operation.to]} where event_id = ${event} and term_id = ${terms[operation.from]}
            and not exists (select 1 from event_terms other where other.event_id = ${event} and other.term_id = ${terms[operation.to]})`.execute(
            db(),
          );
        }
        return;
      case 'status':
        if (event !== undefined) await db().updateTable('events').set({ status: operation.status }).where('id', '=', event).execute();
        return;
      case 'delete':
        if (event !== undefined) {
          await db().deleteFrom('events').where('id', '=', event).execute();
          events.splice(events.indexOf(event), 1);
        }
    }
  }

  async function assertCountsMatch(terms: readonly number[]): Promise<void> {
    const stored = await db()
      .selectFrom('terms')
      .select(['id', 'published_count'])
      .where('id', 'in', [...terms])
      .orderBy('id')
      .execute();
    const recounted = await db()
      .selectFrom('terms')
      .select((eb) => [
        'terms.id',
        eb
          .selectFrom('event_terms as et')
          .innerJoin('events as e', 'e.id', 'et.event_id')
          .select(eb.fn.countAll<number>().as('n'))
          .whereRef('et.term_id', '=', 'terms.id')
          .where('e.status', '=', 'publish')
          .as('published_count'),
      ])
      .where('id', 'in', [...terms])
      .orderBy('id')
      .execute();
    assert.deepEqual(
      stored.map((row) => [row.id, Number(row.published_count)]),
      recounted.map((row) => [row.id, Number(row.published_count)]),
    );
  }

  it('equal a recount, without a deadlock, when writers run at once', async () => {
    // Creating an event writes the event, then its links (which update the term's count); publishing or
    // unpublishing one updates the count from the event's row. On PostgreSQL both also update the revision
    // row: unless every calendar write takes that row first, the two orders deadlock (and, at READ
    // COMMITTED, each could miss the other's uncommitted row and leave the count wrong).
    const { id: term } = await db()
      .insertInto('terms')
      .values({ taxonomy: 'category', parent_id: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    const existing: number[] = [];
    for (let index = 0; index < 6; index += 1) existing.push(await makeEvent(db(), { status: 'publish', terms: [term] }));
    const writes: Promise<unknown>[] = [];
    for (let index = 0; index < 40; index += 1) {
      writes.push(
        db()
          .transaction()
          .execute((trx) => makeEvent(trx, { status: 'publish', terms: [term] })),
      );
      writes.push(
        db()
          .updateTable('events')
          .set({ status: index % 2 === 0 ? 'draft' : 'publish' })
          .where('id', '=', existing[index % 6]!)
          .execute(),
      );
    }
    const failures = (await Promise.allSettled(writes)).filter((result) => result.status === 'rejected');
    assert.deepEqual(
      failures.map((failure) => String((failure as PromiseRejectedResult).reason)),
      [],
    );
    await assertCountsMatch([term]);
  });

  it('equal a recount after any sequence of link, status and delete writes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operationArb, { maxLength: 25 }), async (operations) => {
        const terms: number[] = [];
        for (let term = 0; term < 4; term += 1) {
          const { id } = await db()
            .insertInto('terms')
            .values({ taxonomy: term % 2 === 0 ? 'category' : 'tag', parent_id: null })
            .returning('id')
            .executeTakeFirstOrThrow();
          terms.push(id);
        }
        const events: number[] = [];
        for (const operation of operations) await apply(operation, events, terms);
        await assertCountsMatch(terms);
      }),
      { numRuns: 40 },
    );
  });
});
