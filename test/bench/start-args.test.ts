import assert from 'node:assert/strict';
import { test } from 'node:test';
import { npmStartArgs } from '../../bench/processes.ts';

test('the benchmark starts the server as npm start does, node flags included', () => {
  const args = npmStartArgs();
  assert.deepEqual(args.slice(-2), ['bin/almanac.js', 'serve']);
  assert.ok(
    args.slice(0, -2).every((flag) => flag.startsWith('--')),
    `node flags only before the script: ${args.join(' ')}`,
  );
});
