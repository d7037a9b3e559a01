/**
 * The tail of the event change log a process keeps (events.changed.ts): what it answers for a span must name
 * every event that changed within the span, and only events that changed after its start. The log keeps one
 * entry per event, moved to the end when the event changes again, so a read made for a version may find an event
 * changed up to that version already moved past it by a later write: it must still be named for the span.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ChangeTail } from '../../src/calendar/events/events.changed.ts';
import type { ChangeRow } from '../../src/calendar/changes/changes.repository.ts';

type Step = { kind: 'write'; ids: number[] } | { kind: 'read'; back: number; lag: number } | { kind: 'ask'; back: number; length: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('write' as const), ids: fc.uniqueArray(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 2 }) }),
  fc.record({ kind: fc.constant('read' as const), back: fc.integer({ min: 0, max: 6 }), lag: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ kind: fc.constant('ask' as const), back: fc.integer({ min: 0, max: 8 }), length: fc.integer({ min: 0, max: 8 }) }),
);

describe('the change log tail', () => {
  it('names every event that changed in a span it answers, and only events that changed after its start', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), fc.integer({ min: 1, max: 6 }), (steps, maxChanges) => {
        const tail = new ChangeTail(maxChanges);
        let revision = 0;
        const log = new Map<number, number>(); // event → its entry's revision
        const history: { seq: number; id: number }[] = [];
        const rowsAfter = (from: number): ChangeRow[] =>
          [...log]
            .filter(([, seq]) => seq > from)
            .sort((a, b) => a[1] - b[1] || a[0] - b[0])
            .map(([id, seq]) => ({ type: 'event', id, seq, changedAt: '' }));
        for (const next of steps) {
          if (next.kind === 'write') {
            revision += 1;
            for (const id of next.ids) {
              log.set(id, revision);
              history.push({ seq: revision, id });
            }
          } else if (next.kind === 'read') {
            // A read for a version `lag` revisions old: the log has moved on since that version was read.
            const to = Math.max(0, revision - next.lag);
            const from = Math.max(0, to - next.back);
            tail.add(from, to, rowsAfter(from));
          } else {
            const from = Math.max(0, revision - next.back);
            const to = Math.min(revision, from + next.length);
            const answer = tail.since(from, to);
            if (answer === undefined) continue;
            for (const { id } of history.filter((change) => change.seq > from && change.seq <= to))
              assert.ok(answer.includes(id), `event ${id} changed after ${from} up to ${to}`);
            for (const id of answer)
              assert.ok(
                history.some((change) => change.id === id && change.seq > from),
                `event ${id} did not change after ${from}`,
              );
            assert.equal(new Set(answer).size, answer.length, 'each event once');
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('answers only spans it read whole, and forgets the oldest revisions beyond its bound', () => {
    const tail = new ChangeTail(3);
    const row = (id: number, seq: number): ChangeRow => ({ type: 'event', id, seq, changedAt: '' });
    assert.equal(tail.since(0, 0), undefined, 'nothing read yet');
    tail.add(10, 12, [row(1, 11), row(2, 12)]);
    assert.deepEqual(tail.since(10, 12), [1, 2]);
    assert.deepEqual(tail.since(11, 12), [2]);
    assert.equal(tail.since(9, 12), undefined, 'before what was read');
    assert.equal(tail.since(10, 13), undefined, 'after what was read');
    tail.add(12, 14, [row(3, 13), row(4, 14)]);
    assert.deepEqual(tail.since(12, 14), [3, 4], 'a read that joins extends the tail');
    assert.equal(tail.since(10, 14), undefined, 'four changes over a bound of three: revision 11 is forgotten');
    assert.deepEqual(tail.since(11, 14), [2, 3, 4]);
    tail.add(20, 21, [row(5, 21)]);
    assert.equal(tail.since(12, 14), undefined, 'a read after a gap starts the tail anew');
    assert.deepEqual(tail.since(20, 21), [5]);
    tail.add(15, 18, [row(6, 16)]);
    assert.deepEqual(tail.since(20, 21), [5], 'an older read leaves it as it was');
  });
});
