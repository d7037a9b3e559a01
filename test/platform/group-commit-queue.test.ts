import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { GroupCommitQueue } from '../../src/platform/group-commit-queue.ts';

/** A queue whose writes take `ms` each, recording each batch and the most written at once. */
function slowQueue(inFlight: number, ms = 20) {
  const batches: number[][] = [];
  let writing = 0;
  let most = 0;
  const queue = new GroupCommitQueue<number, number>(
    async (items) => {
      batches.push([...items]);
      writing += 1;
      most = Math.max(most, writing);
      await sleep(ms);
      writing -= 1;
      return items.map((item) => (item < 0 ? { error: new Error(`refused ${item}`) } : { value: item * 10 }));
    },
    undefined,
    inFlight,
  );
  return { queue, batches, most: () => most };
}

const nextTick = () => new Promise((resolve) => setImmediate(resolve));

describe('group commit queue', () => {
  it('writes one batch at a time by default, gathering what arrives meanwhile into the next', async () => {
    const { queue, batches, most } = slowQueue(1);
    const answers: Promise<number>[] = [];
    for (let item = 1; item <= 5; item += 1) {
      answers.push(queue.add(item));
      await nextTick();
    }
    assert.deepEqual(await Promise.all(answers), [10, 20, 30, 40, 50]);
    assert.deepEqual(batches, [[1], [2, 3, 4, 5]]);
    assert.equal(most(), 1);
  });

  it('writes up to inFlight batches at once, never more, and settles each item with its own outcome', async () => {
    const { queue, batches, most } = slowQueue(3);
    const answers: Promise<number>[] = [];
    for (const item of [1, 2, -3, 4, 5, 6]) {
      answers.push(queue.add(item));
      await nextTick();
    }
    const settled = await Promise.allSettled(answers);
    assert.deepEqual(
      settled.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : String(outcome.reason))),
      [10, 20, 'Error: refused -3', 40, 50, 60],
    );
    assert.deepEqual(batches, [[1], [2], [-3], [4, 5, 6]]);
    assert.equal(most(), 3);
  });

  it('fails every item of a batch whose write throws, and goes on with the next', async () => {
    let calls = 0;
    const queue = new GroupCommitQueue<number, number>(async (items) => {
      calls += 1;
      if (calls === 1) throw new Error('disk full');
      return items.map((item) => ({ value: item }));
    });
    const failed = await Promise.allSettled([queue.add(1), queue.add(2)]);
    assert.deepEqual(
      failed.map((outcome) => outcome.status),
      ['rejected', 'rejected'],
    );
    assert.equal(await queue.add(3), 3);
  });
});
