import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { createDb, type Store } from '../../src/platform/db/database.ts';
import { migratedStore } from '../helpers/server.ts';
import { Fingerprinter } from './support/fingerprint.ts';

// The fuzz test's verdict "a refusal changed nothing" rests on these: a fingerprint moves with every write,
// whichever connection made it, and only volatile tables may change unseen.
let store: Store;
let url: string;
let close: () => Promise<void>;
before(async () => {
  ({ store, url, close } = await migratedStore());
});
after(async () => close());

const addTerm = (db: Store['db']) => sql`insert into terms (taxonomy) values ('post_tag')`.execute(db);

test('a fingerprint stays while nothing is written, and moves with a write on the same connection or another', async () => {
  const fingerprints = new Fingerprinter(store.db);
  const first = await fingerprints.take();
  assert.equal(await fingerprints.take(), first);

  await addTerm(store.db);
  const second = await fingerprints.take();
  assert.notEqual(second, first);

  const other = createDb(url);
  try {
    await addTerm(other.db);
  } finally {
    await other.close();
  }
  const third = await fingerprints.take();
  assert.notEqual(third, second);
  assert.equal(await new Fingerprinter(store.db).take(), third, 'the same digest as a fingerprinter taking it afresh');
});

test('a write to a volatile table (failed logins) moves nothing', async () => {
  const fingerprints = new Fingerprinter(store.db);
  const before = await fingerprints.take();
  await sql`insert into auth_failures (username, address, failed_at_ms) values ('nobody', '10.0.0.1', ${Date.now()})`.execute(store.db);
  assert.equal(await fingerprints.take(), before);
});
