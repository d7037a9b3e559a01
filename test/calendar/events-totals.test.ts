import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventListFilter } from '../../src/calendar/events/events.repository.ts';
import { EventTotals, TOTAL_TTL_MS } from '../../src/calendar/events/events.totals.ts';

const base: EventListFilter = { visibility: { kind: 'published' }, nowUtc: '2030-01-01 00:00:00', endFrom: '2030-01-01 00:00:00' };

describe('event list totals', () => {
  it('reuses a total until it expires, whatever the clock second', async () => {
    let clock = 0;
    let counted = 0;
    const totals = new EventTotals(() => clock);
    const count = async () => ++counted;
    assert.equal(await totals.get(base, count), 1);
    assert.equal(await totals.get({ ...base, nowUtc: '2030-01-01 00:00:01' }, count), 1);
    clock += TOTAL_TTL_MS;
    assert.equal(await totals.get(base, count), 2);
  });

  it('forgets everything on a write, and never remembers a count that raced with one', async () => {
    const totals = new EventTotals(() => 0);
    let counted = 0;
    assert.equal(await totals.get(base, async () => ++counted), 1);
    totals.forgetAll();
    assert.equal(await totals.get(base, async () => ++counted), 2);
    const raced = await totals.get({ ...base, featured: true }, async () => {
      totals.forgetAll();
      return 10;
    });
    assert.equal(raced, 10);
    assert.equal(await totals.get({ ...base, featured: true }, async () => 11), 11);
  });

  it('always counts filters on data other modules change', async () => {
    const totals = new EventTotals(() => 0);
    for (const extra of [{ venueIds: [1] }, { organizerIds: [1] }, { categoryIds: [1] }, { tagIds: [1] }, { search: { words: ['a'], languages: ['en'] } }, { nearVenueIds: [] }, { geolocated: true }]) {
      let counted = 0;
      const filter = { ...base, ...extra };
      await totals.get(filter, async () => ++counted);
      assert.equal(await totals.get(filter, async () => ++counted), 2, JSON.stringify(extra));
    }
  });
});
