import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ByteBoundedMap } from '../../src/platform/cache/byte-bounded-map.ts';
import { cacheBudgets, cacheKey, ReadCache } from '../../src/platform/cache/read-cache.ts';

describe('ByteBoundedMap', () => {
  it('keeps entries up to its size, keys included, dropping the least recently used first and telling of each', () => {
    const evicted: string[] = [];
    const map = new ByteBoundedMap<string>(10, (key) => evicted.push(key));
    for (const key of ['a', 'b', 'c']) assert.equal(map.set(key, key, 3), true);
    assert.equal(map.get('a'), undefined);
    assert.deepEqual([map.get('b'), map.get('c')], ['b', 'c']);
    assert.equal(map.size, 2);
    assert.deepEqual(evicted, ['a']);
  });

  it('keeps what is read: an entry read since it was stored outlives one stored after it', () => {
    const map = new ByteBoundedMap<string>(10);
    map.set('k', 'kept', 3);
    map.set('b', 'b', 3);
    assert.equal(map.get('k'), 'kept');
    map.set('c', 'c', 3);
    assert.equal(map.get('b'), undefined, 'b, stored after k but never read, went first');
    assert.equal(map.get('k'), 'kept');
  });

  it('counts a replaced entry once, and refuses an entry larger than the whole budget', () => {
    const map = new ByteBoundedMap<number>(10);
    map.set('a', 1, 5);
    map.set('a', 2, 5);
    map.set('b', 3, 3);
    assert.equal(map.size, 2);
    assert.equal(map.set('huge', 4, 7), false);
    assert.equal(map.get('huge'), undefined);
    assert.equal(map.size, 2);
  });

  it("counts long keys against the budget (a key is the caller's to choose)", () => {
    const map = new ByteBoundedMap<number>(100);
    map.set('small', 1, 10);
    map.set(`junk=${'x'.repeat(80)}`, 2, 1);
    assert.equal(map.get('small'), undefined, 'the long key pushed the other entry out');
    assert.equal(map.set('y'.repeat(101), 3, 0), false, 'a key longer than the budget is never kept');
    assert.equal(map.size, 1);
  });
});

describe('ReadCache', () => {
  const version = (revision: number) => ({ revision });

  it('computes a value once per version for every request waiting on it, then serves it', async () => {
    const cache = new ReadCache(cacheBudgets(1024));
    let produced = 0;
    const produce = async () => {
      produced += 1;
      await sleep(5);
      return ['made'];
    };
    const v1 = version(1);
    const values = await Promise.all(Array.from({ length: 8 }, () => cache.once(v1, 'k', produce, () => 8)));
    assert.equal(produced, 1);
    assert.ok(values.every((value) => value === values[0]));
    assert.equal(await cache.once(v1, 'k', produce, () => 8), values[0]);
    assert.equal(produced, 1);
    await cache.once(version(2), 'k', produce, () => 8);
    assert.equal(produced, 2, 'a new version computes again');
  });

  it('gives a failure to every waiting request, caches nothing, and tries again next time', async () => {
    const cache = new ReadCache(cacheBudgets(1024));
    let attempts = 0;
    const failing = async (): Promise<number> => {
      attempts += 1;
      await sleep(5);
      throw new Error('no such event');
    };
    const v1 = version(1);
    const results = await Promise.allSettled([cache.once(v1, 'k', failing, () => 8), cache.once(v1, 'k', failing, () => 8)]);
    assert.deepEqual(
      results.map((result) => result.status),
      ['rejected', 'rejected'],
    );
    assert.equal(attempts, 1);
    await assert.rejects(cache.once(v1, 'k', failing, () => 8));
    assert.equal(attempts, 2);
  });

  it('lets a request of an older version compute alone, caching nothing, and the newer version cache its own', async () => {
    const cache = new ReadCache(cacheBudgets(1024));
    const [older, newer] = [version(1), version(2)];
    assert.equal(
      await cache.once(
        newer,
        'k',
        async () => 'new',
        () => 8,
      ),
      'new',
    );
    assert.equal(
      await cache.once(
        older,
        'k',
        async () => 'old',
        () => 8,
      ),
      'old',
    );
    assert.equal(
      await cache.once(
        newer,
        'k',
        async () => 'again',
        () => 8,
      ),
      'new',
    );
  });

  it('invalidates item entries by the ids they show, and refuses one computed before the revision invalidated up to', () => {
    const cache = new ReadCache({ versionBytes: 0, itemBytes: 1024 });
    cache.invalidateItems([], 5);
    cache.setItem('a', [1], 'one', () => 8, 5);
    cache.setItem('b', [1, 2], 'one and two', () => 8, 6);
    cache.setItem('c', [3], 'three', () => 8, 5);
    cache.setItem('stale', [4], 'four', () => 8, 4);
    assert.equal(cache.item('stale'), undefined);
    cache.invalidateItems([2], 7);
    assert.deepEqual([cache.item('a'), cache.item('b'), cache.item('c')], ['one', undefined, 'three']);
    cache.setItem('late', [5], 'five', () => 8, 6);
    assert.equal(cache.item('late'), undefined, 'computed at 6, after the invalidation up to 7');
    cache.invalidateItems(undefined, 8);
    assert.deepEqual([cache.item('a'), cache.item('c')], [undefined, undefined]);
  });

  it('refuses an entry of no item only when computed before everything was last invalidated, versions ordered by revision then start', () => {
    const cache = new ReadCache({ versionBytes: 0, itemBytes: 1024 });
    const at = (revision: number, from: string) => ({ revision, from });
    cache.invalidateItems([1], at(7, '10:00'));
    cache.setItem('total', [], 'kept', () => 8, at(5, '09:00'));
    assert.equal(cache.item('total'), 'kept', 'an invalidation of some items does not concern it');
    cache.setItem('item', [2], 'two', () => 8, at(5, '09:00'));
    assert.equal(cache.item('item'), undefined, 'an entry of items computed before it does');
    cache.invalidateItems(undefined, at(7, '11:00'));
    cache.setItem('total', [], 'before the publication', () => 8, at(7, '10:30'));
    assert.equal(cache.item('total'), undefined, 'the same revision, from an earlier instant');
    cache.setItem('total', [], 'after it', () => 8, at(7, '11:00'));
    assert.equal(cache.item('total'), 'after it');
    cache.invalidateItems(undefined, at(6, '12:00'));
    cache.setItem('late', [], 'late', () => 8, at(6, '13:00'));
    assert.equal(cache.item('late'), undefined, 'an older invalidation arriving late does not move the bound back');
  });

  it('caches no item without an item budget, never weighing it', () => {
    const cache = new ReadCache(cacheBudgets(1024));
    cache.setItem('a', [1], 'one', () => assert.fail('weighed'), 1);
    assert.equal(cache.item('a'), undefined);
  });

  it('names resources with one key scheme that keeps parts apart', () => {
    assert.notEqual(cacheKey('/events?a=1', 2), cacheKey('/events?a=12'));
    assert.notEqual(cacheKey('a', 'b'), cacheKey('a,b'));
    assert.equal(cacheKey('/e', 1, 'en'), cacheKey('/e', 1, 'en'));
  });
});
