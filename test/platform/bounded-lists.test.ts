/**
 * Value lists bucketed to powers of two (issue 19.4): the same rows as the
 * query as written, and a bounded number of statement texts for lists of
 * every length; long lists read a part at a time.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SqliteDatabase } from '../../src/platform/db/dialect/sqlite-driver.ts';
import fc from 'fast-check';
import { CompiledQuery } from 'kysely';
import { boundListShapes, inParts, listBucket, VALUES_PER_PART } from '../../src/platform/db/bounded-lists.ts';

const placeholders = (count: number) => Array.from({ length: count }, () => '?').join(', ');

describe('boundListShapes', () => {
  const raw = new SqliteDatabase(':memory:');
  raw.exec('create table t (id integer primary key, tag text)');
  const insert = raw.prepare('insert into t (id, tag) values (?, ?)');
  for (let id = 1; id <= 60; id += 1) insert.run(id, `tag-${id % 7}`);
  const rows = (query: CompiledQuery) => raw.prepare(query.sql).all(...query.parameters);

  it('returns the same rows as the query written, for any lists and surrounding parameters', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 70 }), { minLength: 1, maxLength: 40 }),
        fc.array(fc.constantFrom('tag-1', 'tag-2', 'tag-3', 'nope'), { minLength: 1, maxLength: 9 }),
        fc.integer({ min: 0, max: 60 }),
        (ids, tags, above) => {
          const query = CompiledQuery.raw(
            `select id from t where id > ? and id in (${placeholders(ids.length)}) and tag not in (${placeholders(tags.length)}) order by id limit ?`,
            [above, ...ids, ...tags, 100],
          );
          const bounded = boundListShapes(query);
          assert.deepEqual(rows(bounded), rows(query));
          assert.equal((bounded.sql.match(/\?/g) ?? []).length, bounded.parameters.length);
        },
      ),
    );
  });

  it('makes at most 11 texts of lists of 1 to 1,000 values', () => {
    const texts = new Set<string>();
    for (let length = 1; length <= 1000; length += 1) {
      const query = CompiledQuery.raw(
        `select id from t where id in (${placeholders(length)})`,
        Array.from({ length }, (_, index) => index),
      );
      texts.add(boundListShapes(query).sql);
    }
    assert.equal(texts.size, 11);
    assert.deepEqual([1, 2, 3, 5, 1000].map(listBucket), [1, 2, 4, 8, 1024]);
  });

  it('leaves a query without a value list as it is', () => {
    const query = CompiledQuery.raw('select id from t where id = ? and tag like ?', [1, 'x']);
    assert.equal(boundListShapes(query), query);
  });
});

describe('inParts', () => {
  it("reads every value once, in order, no part longer than VALUES_PER_PART, and keeps each part's rows in order", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 5 * VALUES_PER_PART + 7 }), async (length) => {
        const values = Array.from({ length }, (_, index) => index);
        const parts: number[][] = [];
        const rows = await inParts(values, async (part) => {
          parts.push([...part]);
          return part.flatMap((value) => [value, -value]);
        });
        assert.deepEqual(parts.flat(), values);
        assert.ok(parts.every((part) => part.length <= VALUES_PER_PART));
        assert.equal(parts.length, Math.max(1, Math.ceil(length / VALUES_PER_PART)));
        assert.deepEqual(
          rows,
          values.flatMap((value) => [value, -value]),
        );
      }),
      { numRuns: 30 },
    );
  });
});
