/**
 * Debian's litmus (the WebDAV test suite) against the main calendar, with a
 * user's API token as the password, on both databases. Every litmus suite
 * first makes a scratch collection inside the URL it is given
 * (`MKCOL …/litmus/`) and writes arbitrary files there; a calendar
 * collection holds events and no collections (RFC 4791 §4.2), so Almanac
 * refuses it with a 403 and each suite stops there, having changed
 * nothing. What each of litmus's `basic` tests checks is then asked of the
 * calendar itself, as a calendar answers it (docs/caldav.md, "WebDAV basics
 * (litmus)"). The file fails, naming the package, when litmus is missing.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { requireProgram } from '../helpers/programs.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { dav, davError, DAV, CALDAV, key } from './caldav.helper.ts';

const LITMUS = '/usr/bin/litmus';
requireProgram('/bin/sh', ['-c', `test -x ${LITMUS}`], "Debian's litmus is not installed (apt-get install litmus)");

const CALENDAR = '/dav/calendars/events/';
const SUITES = ['basic', 'copymove', 'props', 'locks', 'http'] as const;

let server: TestServer;
let editor: Credentials;
let basic: string;
let folder: string;

// litmus exits non-zero when a suite fails: its output is the answer either way.
function litmus(suite: string): Promise<string> {
  const args = [`${server.url}${CALENDAR}`, editor.username, editor.bearer.slice('Bearer '.length)];
  return new Promise((resolve) => {
    execFile(LITMUS, args, { cwd: folder, timeout: 60_000, env: { ...process.env, TESTS: suite } }, (_error, stdout, stderr) =>
      resolve(`${stdout}${stderr}`),
    );
  });
}

const eventRows = async () =>
  Number(
    (
      await server.server.store.db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

before(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'almanac-litmus-'));
  server = await startTestServer();
  editor = await server.createUser('editor');
  basic = `Basic ${Buffer.from(`${editor.username}:${editor.bearer.slice('Bearer '.length)}`).toString('base64')}`;
});

after(async () => {
  await server?.close();
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
});

it('stops every litmus suite at its scratch collection, refused with a 403, having changed nothing', async () => {
  for (const suite of SUITES) {
    const output = await litmus(suite);
    assert.match(output, /0\. init\.+ pass/, output);
    assert.match(
      output,
      /1\. begin\.+ FAIL \(Could not create new collection `\/dav\/calendars\/events\/litmus\/' for tests: 403 Forbidden/,
      output,
    );
    assert.match(output, new RegExp(`summary for \`${suite}': of 2 tests run: 1 passed, 1 failed`), output);
  }
  assert.equal(await eventRows(), 0);
});

it('answers what litmus’s basic tests check as a calendar collection does', async () => {
  const at = (name: string) => `${CALENDAR}${name}`;
  // options: class 1 announced.
  const options = await dav(server, 'OPTIONS', CALENDAR);
  assert.equal(options.status, 200);
  assert.match(options.headers.get('dav') ?? '', /(^|,\s*)1(,|$)/);
  // put_get: a file that is no iCalendar is refused (RFC 4791 §5.3.2.1); an event is stored and read back.
  const plain = await dav(server, 'PUT', at('res.ics'), {
    auth: basic,
    body: 'This is\na test file.\nfor litmus testing.\n',
    headers: { 'content-type': 'text/plain' },
  });
  assert.equal(plain.status, 415);
  assert.equal(davError(plain).condition, key(CALDAV, 'supported-calendar-data'));
  // put_get_utf8_segment: a resource name with a character outside ASCII.
  const event = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//litmus//EN', 'BEGIN:VEVENT', 'UID:litmus-€@example.org'];
  event.push(
    'DTSTAMP:20310101T000000Z',
    'DTSTART:20310410T200000Z',
    'DTEND:20310410T210000Z',
    'SUMMARY:res',
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  );
  const name = `${encodeURIComponent('litmus-€@example.org')}.ics`;
  const put = await dav(server, 'PUT', at(name), { auth: basic, body: event.join('\r\n'), headers: { 'content-type': 'text/calendar' } });
  assert.equal(put.status, 201, put.text);
  const got = await dav(server, 'GET', at(name), { auth: basic });
  assert.equal(got.status, 200);
  assert.match(got.text, /UID:litmus-€@example\.org\r\n/);
  // put_no_parent: nothing is under an event or in a calendar that is not there (RFC 4918 §9.7.1).
  for (const target of [at('409me/noparent.ics'), '/dav/calendars/missing/noparent.ics']) {
    const refused = await dav(server, 'PUT', target, {
      auth: basic,
      body: event.join('\r\n'),
      headers: { 'content-type': 'text/calendar' },
    });
    assert.equal(refused.status, 409, target);
  }
  // delete_null, delete_fragment: nothing there is a 404.
  assert.equal((await dav(server, 'DELETE', at('404me.ics'), { auth: basic })).status, 404);
  assert.equal((await dav(server, 'DELETE', at('frag/%23ment'), { auth: basic })).status, 404);
  // mkcol, mkcol_again, mkcol_over_plain, mkcol_with_body, mkcol_no_parent: no collection is made here.
  for (const [target, body] of [
    [at('coll/'), undefined],
    [at(name), undefined],
    [at('mkcolbody'), 'afafafaf'],
    [at('409me/noparent/'), undefined],
  ] as const) {
    const refused = await dav(server, 'MKCOL', target, {
      auth: basic,
      body,
      headers: body === undefined ? {} : { 'content-type': 'xzy-foo/bar-512' },
    });
    assert.equal(refused.status, 403, target);
    assert.equal(davError(refused).condition, key(DAV, 'need-privileges'));
  }
  // delete: the event goes (to the trash); a second DELETE finds nothing.
  assert.equal((await dav(server, 'DELETE', at(name), { auth: basic })).status, 204);
  assert.equal((await dav(server, 'DELETE', at(name), { auth: basic })).status, 404);
  // delete_coll: the calendar stays.
  assert.equal((await dav(server, 'DELETE', CALENDAR, { auth: basic })).status, 405);
});
