import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { UsersService } from '../../src/platform/auth/users.service.ts';
import type { Store } from '../../src/platform/db/database.ts';
import { readRevision, revisionOf, type RevisionsHolder } from '../../src/platform/db/revisions.ts';
import { countingStatements } from '../helpers/statements.ts';
import { migratedStore, passwordHasher } from '../helpers/server.ts';

let store: Store;
let close: () => Promise<void>;
before(async () => {
  ({ store, close } = await migratedStore());
});
after(async () => close());

const request = (): RevisionsHolder => ({ revisions: null });
const nextTick = () => new Promise((resolve) => setImmediate(resolve));

test('a request keeps the revisions first read for it; requests asking in one tick share one statement', async () => {
  const counting = countingStatements(store.db);
  const first = request();
  const second = request();
  const [auth, alsoAuth] = await Promise.all([revisionOf(counting.db, first, 'auth'), revisionOf(counting.db, second, 'auth')]);
  assert.equal(auth, await readRevision(store.db, 'auth'));
  assert.equal(alsoAuth, auth);
  await nextTick();
  // A later tick, for the same request: its `entities` comes from the same read, no statement.
  assert.equal(await revisionOf(counting.db, first, 'entities'), await readRevision(store.db, 'entities'));
  assert.equal(counting.count(), 1);
});

test('a request that first asks after a write sees it; one that asked before keeps what it read', async () => {
  const early = request();
  const before = await revisionOf(store.db, early, 'auth');
  await nextTick();
  await new UsersService(store, passwordHasher()).add({ username: 'revision-probe', password: 'probe-password-1', role: 'subscriber' });
  const late = request();
  assert.ok((await revisionOf(store.db, late, 'auth')) > before, 'the write is seen');
  assert.equal(await revisionOf(store.db, early, 'auth'), before);
});

test("a tick's revisions are handed over once the tick's requests have all been dispatched, together", async () => {
  const counting = countingStatements(store.db);
  let delivered = false;
  const first = revisionOf(counting.db, request(), 'auth').then((revision) => {
    delivered = true;
    return revision;
  });
  // Requests dispatched later in the same tick ask after many microtasks; on SQLite the statement is done by now.
  for (let hop = 0; hop < 50; hop++) await Promise.resolve();
  assert.equal(delivered, false);
  const later = revisionOf(counting.db, request(), 'auth');
  assert.equal(await later, await first);
  assert.equal(counting.count(), 1);
});
