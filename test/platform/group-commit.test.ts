import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RawNode, type Kysely, type QueryId } from 'kysely';
import { createDb, type Store } from '../../src/platform/db/database.ts';
import { behind, GroupCommit } from '../../src/platform/db/group-commit.ts';
import type { Database } from '../../src/platform/db/schema.ts';
import { dialect, migratedStore } from '../helpers/server.ts';

describe('group commit', () => {
  let store: Store;
  let reader: Store;
  let close: () => Promise<void>;
  let url: string;
  before(async () => {
    ({ store, url, close } = await migratedStore());
    // Another connection: it sees only what was committed.
    reader = createDb(url);
  });
  after(async () => {
    await reader.close();
    await close();
  });

  let users = 0;
  const addUser = async (trx: Kysely<Database>, username = `group-${(users += 1)}`): Promise<string> => {
    await trx
      .insertInto('users')
      .values({ username, display_name: username, email: '', role: 'subscriber', password_hash: '-', created_at: '2030-01-01 00:00:00' })
      .execute();
    return username;
  };
  const committed = async (username: string): Promise<boolean> =>
    (await reader.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirst()) !== undefined;

  it('runs the writes of one tick in one transaction and answers each once it is committed', async () => {
    const writes = new GroupCommit(store.db);
    const transactions = new Set<Kysely<Database>>();
    const write = () =>
      writes.run(async (trx) => {
        transactions.add(trx);
        return addUser(trx);
      });
    const answered = await Promise.all(
      [write(), write(), write()].map(async (written) => {
        const username = await written;
        return { username, visible: await committed(username) };
      }),
    );
    assert.equal(transactions.size, 1);
    assert.deepEqual(
      answered.map((answer) => answer.visible),
      [true, true, true],
    );
    // A write of a later tick has a transaction of its own.
    await write();
    assert.equal(transactions.size, 2);
  });

  it('undoes a write that fails alone, even after a failed statement, and commits the others of its tick', async () => {
    const writes = new GroupCommit(store.db);
    const taken = `group-taken-${(users += 1)}`;
    const thrown = `group-thrown-${users}`;
    const before = await reader.db.selectFrom('users').select('username').execute();
    const outcomes = await Promise.allSettled([
      writes.run((trx) => addUser(trx, taken)),
      writes.run(async (trx) => {
        const mine = await addUser(trx);
        await addUser(trx, taken); // a unique violation: on PostgreSQL the transaction is aborted until rolled back
        return mine;
      }),
      writes.run(async (trx) => {
        await addUser(trx, thrown);
        throw new Error('refused after writing');
      }),
      writes.run((trx) => addUser(trx)),
    ]);
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ['fulfilled', 'rejected', 'rejected', 'fulfilled'],
    );
    assert.equal((outcomes[2] as PromiseRejectedResult).reason.message, 'refused after writing');
    const rows = await reader.db.selectFrom('users').select('username').execute();
    const added = rows.map((row) => row.username).filter((name) => !before.some((row) => row.username === name));
    assert.deepEqual(
      added.sort(),
      [taken, (outcomes[3] as PromiseFulfilledResult<string>).value].sort(),
      'the refused writes left nothing',
    );
  });

  it('rolls back a write alone in its tick that fails, and goes on with the next', async () => {
    const writes = new GroupCommit(store.db);
    const username = `group-alone-${(users += 1)}`;
    await assert.rejects(
      writes.run(async (trx) => {
        await addUser(trx, username);
        throw new Error('refused');
      }),
      /refused/,
    );
    assert.equal(await committed(username), false);
    assert.equal(await committed(await writes.run((trx) => addUser(trx))), true);
  });

  it('fails the whole group when a release fails: a later rollback could otherwise undo a write answered as done', async () => {
    const releases = new WeakSet<QueryId>();
    let failed = 0;
    const failing = store.db.withPlugin({
      transformQuery: ({ node, queryId }) => {
        if (RawNode.is(node) && node.sqlFragments.join('').startsWith('release savepoint')) releases.add(queryId);
        return node;
      },
      transformResult: async ({ queryId, result }) => {
        if (releases.has(queryId) && (failed += 1) === 1) throw new Error('release lost');
        return result;
      },
    });
    const writes = new GroupCommit(failing);
    const usernames = [1, 2, 3].map(() => `group-released-${(users += 1)}`);
    const outcomes = await Promise.allSettled(usernames.map((username) => writes.run((trx) => addUser(trx, username))));
    assert.deepEqual(
      outcomes.map((outcome) => (outcome.status === 'rejected' ? (outcome.reason as Error).message : outcome.status)),
      ['release lost', 'release lost', 'release lost'],
    );
    assert.deepEqual(await Promise.all(usernames.map(committed)), [false, false, false], 'nothing of the group is left');
  });

  it('sends the statements a write asks for together in one round trip, and undoes them all when one fails', async () => {
    const sent: boolean[] = [];
    const counted = createDb(url, { onStatement: (_, pipelined) => sent.push(pipelined) });
    try {
      const writes = new GroupCommit(counted.db);
      const [first, second, third] = [1, 2, 3].map(() => `group-piped-${(users += 1)}`) as [string, string, string];
      await writes.run((trx) => behind(addUser(trx, first), () => behind(addUser(trx, second), () => addUser(trx, third))));
      assert.deepEqual(await Promise.all([first, second, third].map(committed)), [true, true, true]);
      // begin, three inserts and commit; on PostgreSQL begin and the inserts in one round trip.
      assert.deepEqual(sent, dialect === 'postgres' ? [false, true, true, true, false] : [false, false, false, false, false]);

      const [kept, taken] = [`group-piped-${(users += 1)}`, `group-piped-${(users += 1)}`];
      await assert.rejects(
        writes.run((trx) => behind(addUser(trx, kept), () => behind(addUser(trx, first), () => addUser(trx, taken)))),
        (error: Error) => /unique|UNIQUE/.test(error.message),
      );
      assert.deepEqual(await Promise.all([kept, taken].map(committed)), [false, false], 'nothing of the failed write is left');
    } finally {
      await counted.close();
    }
  });
});
