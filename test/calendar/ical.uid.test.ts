import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { eventIdOfOwnUid, ownEventUid } from '../../src/calendar/ical/ical.uid.ts';

describe('iCalendar UIDs of events born here', () => {
  const base = 'https://events.example.org/calendar';

  it('names the event by its id and where BASE_URL puts the calendar (host, port, path), whatever its dates', () => {
    assert.equal(ownEventUid(42, base), 'event-42@events.example.org/calendar');
    assert.equal(ownEventUid(42, 'https://events.example.org'), 'event-42@events.example.org');
    assert.equal(ownEventUid(42, 'http://127.0.0.1:3000'), 'event-42@127.0.0.1:3000');
  });

  it('reads back the id of every UID it makes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (id) => eventIdOfOwnUid(ownEventUid(id, base), base) === id),
    );
  });

  for (const uid of [
    'event-42@other.example.org/calendar',
    'event-42@events.example.org',
    'event-42@events.example.org/other',
    'event-42@events.example.org:8443/calendar',
    'event-042@events.example.org/calendar',
    'event-0@events.example.org/calendar',
    'event-99999999999999999@events.example.org/calendar',
    'x-event-42@events.example.org/calendar',
    '42@events.example.org/calendar',
    'event-42@events.example.org/calendar.evil',
  ]) {
    it(`does not take ${uid} for one of its own`, () => {
      assert.equal(eventIdOfOwnUid(uid, base), undefined);
    });
  }
});
