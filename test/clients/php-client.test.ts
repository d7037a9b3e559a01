/**
 * The calendar called from PHP as WordPress code calls it (Debian's php-cli
 * and php-curl): form bodies written by http_build_query, bracket filters in
 * the query string, `_method` on a POST (issue 18).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { requireProgram } from '../helpers/programs.ts';

const PHP = '/usr/bin/php';
const CLIENT = path.resolve('test/clients/php/calendar-client.php');
requireProgram(
  PHP,
  ['-r', 'exit(function_exists("curl_init") ? 0 : 1);'],
  "Debian's php-cli and php-curl are not installed (apt-get install php-cli php-curl)",
);

const runFile = promisify(execFile);

describe('a PHP client (php-curl, http_build_query)', () => {
  let server: TestServer;
  let editor: Credentials;
  before(async () => {
    server = await startTestServer();
    editor = await server.createUser('editor');
  });
  after(async () => server.close());

  it('creates, filters, updates and deletes events with bracket parameters', async () => {
    const { stdout } = await runFile(PHP, [CLIENT, server.url, editor.username, editor.password], { timeout: 60_000 });
    const seen = JSON.parse(stdout);
    const [second, first] = seen.organizers;

    assert.equal(seen.created.status, 201);
    assert.deepEqual(seen.created.organizers, [second, first], 'organizer[0], organizer[1] linked in order');
    assert.deepEqual(seen.created.venue, ['PHP Hall', 'Rome'], 'venue[venue], venue[city] create the venue');
    assert.deepEqual([...seen.created.categories].sort(), ['jazz', 'music']);
    assert.deepEqual(seen.created.cost, ['0', '20']);

    const event = seen.created.id;
    assert.deepEqual(seen.filtered.organizer, [event], 'organizer[0]= filters');
    assert.deepEqual(seen.filtered.venue, [event], 'venue[0]= filters');
    assert.deepEqual(seen.filtered.categories, [event], 'categories[0]= filters');
    assert.deepEqual(seen.filtered.none, [event, seen.other], 'the unfiltered window holds both');

    assert.equal(seen.bad_include.status, 400);
    assert.equal(seen.bad_include.body.code, 'rest_invalid_param');
    assert.match(seen.bad_include.body.message, /include/);

    assert.deepEqual(seen.updated, { title: 'PHP concert, late', cost: ['5', '25'] });
    assert.equal(seen.method_override, 200, '_method=DELETE with force deletes');
    assert.equal(seen.after_delete, 404);
  });
});
