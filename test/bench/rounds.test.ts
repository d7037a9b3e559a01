import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { combineRounds, roundSeconds, type LoadResult } from '../../bench/load.ts';

test('a window is cut into whole-second rounds of about two seconds that add up to it', () => {
  assert.deepEqual(roundSeconds(8), [2, 2, 2, 2]);
  assert.deepEqual(roundSeconds(5), [3, 2]);
  assert.deepEqual(roundSeconds(1), [1]);
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 600 }), (seconds) => {
      const rounds = roundSeconds(seconds);
      assert.equal(
        rounds.reduce((total, round) => total + round, 0),
        seconds,
      );
      assert.ok(
        rounds.every((round) => Number.isInteger(round) && round >= 1 && round <= 3),
        `rounds of ${seconds} s: ${rounds.join(',')}`,
      );
    }),
  );
});

const round = (requests: number, seconds: number, p50Ms: number, p99Ms: number, badResponses = 0): LoadResult => ({
  requests,
  seconds,
  requestsPerSecond: requests / seconds,
  p50Ms,
  p99Ms,
  badResponses,
  socketErrors: 0,
});

test('rounds combine into one result: counts add up, p50 is the median round, p99 the worst', () => {
  const combined = combineRounds([round(100, 2, 1.5, 4), round(300, 2, 0.5, 9, 2), round(200, 2, 1, 3)]);
  assert.equal(combined.requests, 600);
  assert.equal(combined.seconds, 6);
  assert.equal(combined.requestsPerSecond, 100);
  assert.equal(combined.p50Ms, 1);
  assert.equal(combined.p99Ms, 9);
  assert.equal(combined.badResponses, 2);
  assert.equal(combineRounds([round(10, 1, 1, 2), round(10, 1, 3, 2)]).p50Ms, 2);
});
