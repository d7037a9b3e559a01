/**
 * What a text's change logs (migration 2026-12-08T0100-translations-changes-by-kind): the item the text belongs
 * to, and the events that embed it when it is a venue, an organizer or a term; an event's text logs that event
 * alone; a text moved to another item logs both. Written in SQL, as the importers and the API write texts, on
 * the suite's database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { seedDemoEvents } from '../../src/calendar/seed/demo-events.ts';
import type { Store } from '../../src/platform/db/database.ts';
import type { Database } from '../../src/platform/db/schema.ts';
import { migratedStore } from '../helpers/server.ts';

type Kind = 'event' | 'venue' | 'organizer' | 'category' | 'tag';

describe('the change log of a text', () => {
  let store: Store;
  let close: () => Promise<void>;
  before(async () => {
    ({ store, close } = await migratedStore());
    await seedDemoEvents(store, { events: 60, siteTimezone: 'UTC', seed: 5 });
  });
  after(() => close());

  /** Every logged item's place, as `type:id`. */
  async function places(): Promise<Map<string, string>> {
    const { rows } = await sql<{ type: string; item_id: number; seq: number | string }>`select type, item_id, seq
      from calendar_changes`.execute(store.db);
    return new Map(rows.map((row) => [`${row.type}:${row.item_id}`, String(row.seq)]));
  }

  /** The items `write`, in a transaction of its own, moved in the log. */
  async function logged(write: (db: Kysely<Database>) => Promise<unknown>): Promise<string[]> {
    const before = await places();
    await store.db.transaction().execute(write);
    const after = await places();
    return [...after].filter(([key, seq]) => before.get(key) !== seq).map(([key]) => key);
  }

  const sorted = (keys: string[]) => [...keys].sort();

  const insertText = (type: Kind, id: number) => (db: Kysely<Database>) =>
    db
      .insertInto('translations')
      .values({ resource_type: type, resource_id: id, language: 'en', field: 'note', value: `a note on ${type} ${id}` })
      .execute();

  async function eventsLinked(type: 'venue' | 'organizer' | 'category'): Promise<{ id: number; events: string[] }> {
    const { rows } =
      type === 'venue'
        ? await sql<{ item: number; event: number }>`select venue_id as item, id as event from events
            where venue_id = (select venue_id from events where venue_id is not null order by id limit 1)`.execute(store.db)
        : type === 'organizer'
          ? await sql<{ item: number; event: number }>`select organizer_id as item, event_id as event from event_organizers
            where organizer_id = (select min(organizer_id) from event_organizers)`.execute(store.db)
          : await sql<{ item: number; event: number }>`select l.term_id as item, l.event_id as event from event_terms l
            where l.term_id = (select min(t.id) from terms t join event_terms x on x.term_id = t.id where t.taxonomy = 'category')`.execute(
              store.db,
            );
    assert.ok(rows.length > 0, `the seed links events to a ${type}`);
    return { id: Number(rows[0]!.item), events: rows.map((row) => `event:${row.event}`) };
  }

  it("logs an event's text as a change of that event alone", async () => {
    const { rows } = await sql<{ id: number }>`select min(id) as id from events`.execute(store.db);
    const id = Number(rows[0]!.id);
    assert.deepEqual(await logged(insertText('event', id)), [`event:${id}`]);
  });

  for (const type of ['venue', 'organizer', 'category'] as const) {
    it(`logs a ${type}'s text as a change of the ${type} and of every event that shows it`, async () => {
      const { id, events } = await eventsLinked(type);
      assert.deepEqual(sorted(await logged(insertText(type, id))), sorted([`${type}:${id}`, ...events]));
      const edit = (db: Kysely<Database>) =>
        db
          .updateTable('translations')
          .set({ value: 'edited' })
          .where('resource_type', '=', type)
          .where('resource_id', '=', id)
          .where('field', '=', 'note')
          .execute();
      assert.deepEqual(sorted(await logged(edit)), sorted([`${type}:${id}`, ...events]));
      const remove = (db: Kysely<Database>) =>
        db.deleteFrom('translations').where('resource_type', '=', type).where('resource_id', '=', id).where('field', '=', 'note').execute();
      assert.deepEqual(sorted(await logged(remove)), sorted([`${type}:${id}`, ...events]));
    });
  }

  it('logs a text moved to another item as a change of both', async () => {
    const { rows } = await sql<{ id: number }>`select id from events order by id limit 2`.execute(store.db);
    const [from, to] = rows.map((row) => Number(row.id));
    await store.db
      .insertInto('translations')
      .values({ resource_type: 'event', resource_id: from!, language: 'en', field: 'moving', value: 'a text to move' })
      .execute();
    const move = (db: Kysely<Database>) =>
      db
        .updateTable('translations')
        .set({ resource_id: to! })
        .where('resource_type', '=', 'event')
        .where('resource_id', '=', from!)
        .where('field', '=', 'moving')
        .execute();
    assert.deepEqual(sorted(await logged(move)), sorted([`event:${from}`, `event:${to}`]));
  });

  it("logs a venue's text moved to an organizer as a change of both and of the events of each", async () => {
    const venue = await eventsLinked('venue');
    const organizer = await eventsLinked('organizer');
    await store.db
      .insertInto('translations')
      .values({ resource_type: 'venue', resource_id: venue.id, language: 'en', field: 'moving', value: 'a text to move' })
      .execute();
    const move = (db: Kysely<Database>) =>
      db
        .updateTable('translations')
        .set({ resource_type: 'organizer', resource_id: organizer.id })
        .where('resource_type', '=', 'venue')
        .where('resource_id', '=', venue.id)
        .where('field', '=', 'moving')
        .execute();
    const expected = new Set([`venue:${venue.id}`, ...venue.events, `organizer:${organizer.id}`, ...organizer.events]);
    assert.deepEqual(sorted(await logged(move)), sorted([...expected]));
  });
});
