import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { pgbouncerRefusal, planPgBouncer } from '../../bench/pgbouncer.ts';
import { ROOT } from '../../bench/processes.ts';

test('--pgbouncer needs a PostgreSQL BENCH_DATABASE_URL with a user and a password', () => {
  for (const url of [undefined, '', 'sqlite:/tmp/x.db', 'mysql://root:pw@127.0.0.1/db']) {
    assert.match(pgbouncerRefusal(url) ?? '', /^--pgbouncer needs BENCH_DATABASE_URL=postgres:\/\//, String(url));
    assert.throws(() => planPgBouncer(url, 6499, '/tmp/p'), /--pgbouncer needs BENCH_DATABASE_URL/);
  }
  for (const url of ['postgres://127.0.0.1:5432/postgres', 'postgres://postgres@127.0.0.1/postgres']) {
    assert.match(pgbouncerRefusal(url) ?? '', /a user and a password/, url);
  }
  assert.equal(pgbouncerRefusal('postgres://postgres:postgres@127.0.0.1:5432/postgres'), undefined);
  assert.equal(pgbouncerRefusal('postgresql://u:p@db.internal/almanac'), undefined);
});

test('--pgbouncer forwards to the server of BENCH_DATABASE_URL as its user, and the servers reach their database through it', () => {
  const plan = planPgBouncer('postgres://bench%40ops:p%22w%3Ad@db.internal:6543/postgres', 6499, '/tmp/pooler');
  assert.deepEqual(plan.scriptEnv, {
    PGBOUNCER_PORT: '6499',
    PGBOUNCER_DIR: '/tmp/pooler',
    PGBOUNCER_USER: 'bench@ops',
    PGBOUNCER_PASSWORD: 'p"w:d',
    PGBOUNCER_TARGET_HOST: 'db.internal',
    PGBOUNCER_TARGET_PORT: '6543',
  });
  assert.equal(
    plan.pooled('postgres://bench%40ops:p%22w%3Ad@db.internal:6543/almanac_bench_0123456789'),
    'postgres://bench%40ops:p%22w%3Ad@127.0.0.1:6499/almanac_bench_0123456789',
  );
  const defaults = planPgBouncer('postgres://postgres:postgres@[::1]/postgres', 6499, '/tmp/pooler').scriptEnv;
  assert.equal(defaults.PGBOUNCER_TARGET_HOST, '::1');
  assert.equal(defaults.PGBOUNCER_TARGET_PORT, '5432', "PostgreSQL's own port when the URL names none");
});

test('npm run bench -- --pgbouncer refuses to start without PostgreSQL, naming the flag, before it seeds anything', () => {
  const env = { ...process.env, BENCH_DATABASE_URL: '' };
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/run.ts'), '--pgbouncer'], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
  });
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stderr, /^--pgbouncer needs BENCH_DATABASE_URL=postgres:\/\//);
  assert.match(run.stderr, /--pgbouncer {7}PostgreSQL only/, 'the usage follows');
  assert.equal(run.stdout, '');
});
