import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { BackgroundWork } from '../../src/platform/background.ts';

const HOUR = 3_600_000;

/** A runner whose log lines are kept. */
function runner(): { work: BackgroundWork; logs: string[] } {
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  return { work: new BackgroundWork(pino(destination)), logs };
}

/** Waits until `check` holds (a loaded machine runs timers late), or fails. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 5000; !check(); await sleep(5)) assert.ok(Date.now() < deadline, what);
}

/** A promise and its resolver, to hold a round or an attempt open. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => undefined as void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('background work', () => {
  it('runs nothing before it is started, then each task once, and again every period', async () => {
    const { work } = runner();
    let rounds = 0;
    work.every({ name: 'count', everyMs: 20, run: async () => void (rounds += 1) });
    await sleep(50);
    assert.equal(rounds, 0, 'not before the server is ready');
    work.start();
    await until(() => rounds >= 3, 'the first round at start, then one every 20 ms');
    await work.stop();
    const stopped = rounds;
    await sleep(50);
    assert.equal(rounds, stopped, 'none after stop');
  });

  it('never runs two rounds of a task at once: a wake during a round asks for one more, after it', async () => {
    const { work } = runner();
    let running = 0;
    let most = 0;
    let rounds = 0;
    const began = gate();
    const first = gate();
    const task = work.every({
      name: 'slow',
      everyMs: HOUR,
      run: async () => {
        running += 1;
        most = Math.max(most, running);
        rounds += 1;
        began.open();
        if (rounds === 1) await first.opened;
        running -= 1;
      },
    });
    work.start();
    await began.opened;
    for (let wakes = 0; wakes < 5; wakes += 1) task.wake();
    first.open();
    await work.drain();
    assert.equal(most, 1, 'one at a time');
    assert.equal(rounds, 3, 'the first, the one the wakes asked for, and the one drain ran');
    await work.stop();
  });

  it('starts the next round at once while a round finds more due, not after its period', async () => {
    const { work } = runner();
    let due = 4;
    work.every({
      name: 'backlog',
      everyMs: HOUR,
      run: async () => {
        due = Math.max(0, due - 1);
        return due > 0;
      },
    });
    const started = Date.now();
    work.start();
    await work.drain();
    assert.equal(due, 0);
    assert.ok(Date.now() - started < 1000);
    await work.stop();
  });

  it('drains: waits for tracked work and the rounds it leads to, not for what is due later', async () => {
    const { work } = runner();
    const queue: number[] = [];
    const done: number[] = [];
    const attempt = gate();
    // A worker as the webhooks' is: each round takes what is queued and tracks one attempt per item.
    work.every({
      name: 'worker',
      everyMs: HOUR,
      run: async () => {
        for (const item of queue.splice(0)) {
          work.track(
            attempt.opened.then(() => {
              done.push(item);
              // An attempt that ends may make the next work due (the next change of an item, in order).
              if (item < 3) queue.push(item + 1);
            }),
          );
        }
      },
    });
    work.start();
    await work.drain();
    queue.push(1);
    let drained = false;
    const drain = work.drain().then(() => (drained = true));
    await sleep(30);
    assert.equal(drained, false, 'an attempt is under way');
    attempt.open();
    await drain;
    assert.deepEqual(done, [1, 2, 3], 'and the work each attempt made due');
    await work.stop();
  });

  it('stops: no round starts, and what is under way is waited for', async () => {
    const { work } = runner();
    const began = gate();
    const round = gate();
    const tracked = gate();
    let rounds = 0;
    let finished = false;
    const task = work.every({
      name: 'held',
      everyMs: 10,
      run: async () => {
        rounds += 1;
        began.open();
        await round.opened;
      },
    });
    work.start();
    await began.opened;
    work.track(tracked.opened.then(() => (finished = true)));
    let stopped = false;
    const stopping = work.stop().then(() => (stopped = true));
    task.wake();
    await sleep(30);
    assert.equal(stopped, false, 'a round is under way');
    round.open();
    await sleep(30);
    assert.equal(stopped, false, 'tracked work is under way');
    tracked.open();
    await stopping;
    assert.ok(finished);
    assert.equal(rounds, 1, 'the wake after stop ran nothing');
  });

  it('logs a round that fails with its task name, and keeps to its period', async () => {
    const { work, logs } = runner();
    let rounds = 0;
    work.every({
      name: 'flaky',
      everyMs: 10,
      run: async () => {
        rounds += 1;
        if (rounds === 1) throw new Error('database away');
      },
    });
    work.start();
    await until(() => rounds >= 2, 'tried again');
    await work.stop();
    const failed = logs.map((line) => JSON.parse(line)).find((entry) => entry.task === 'flaky');
    assert.equal(failed.msg, 'background round failed; trying again at its next time');
    assert.equal(failed.err.message, 'database away');
  });
});
