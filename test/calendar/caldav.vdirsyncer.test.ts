/**
 * Two-way sync with clients nobody here wrote: Debian's vdirsyncer keeps a
 * local folder of .ics files and the main calendar in step (an edit on
 * either side arrives on the other; an edit on both is reported as a
 * conflict and neither is lost), and khal reads the events through that
 * folder. Against the real server, on both databases; the file fails,
 * naming the packages, when they are missing.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { requireProgram } from '../helpers/programs.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { apiEvent } from './caldav.helper.ts';

const VDIRSYNCER = '/usr/bin/vdirsyncer';
const KHAL = '/usr/bin/khal';
requireProgram(VDIRSYNCER, ['--version'], "Debian's vdirsyncer is not installed (apt-get install vdirsyncer)");
requireProgram(KHAL, ['--version'], "Debian's khal is not installed (apt-get install khal)");

const API = '/calendar/events/v1/events';

let server: TestServer;
let editor: Credentials;
let home: string;
let folder: string;

interface Run {
  readonly code: number;
  readonly output: string;
}

// The server answers in this process: the clients run beside it, never blocking it.
function run(command: string, args: readonly string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: 60_000, env: { ...process.env, HOME: home, LC_ALL: 'C.UTF-8' } }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, output: `${stdout}${stderr}` });
    });
  });
}

const vdirsyncer = (...args: string[]) => run(VDIRSYNCER, ['-c', path.join(home, 'vdirsyncer.conf'), ...args]);

async function sync(): Promise<void> {
  const { code, output } = await vdirsyncer('sync');
  assert.equal(code, 0, output);
}

/** The local folder's events: file name and text (titles here have no character iCalendar escapes). */
async function localEvents(): Promise<Map<string, string>> {
  const names = (await readdir(folder)).filter((name) => name.endsWith('.ics'));
  return new Map(await Promise.all(names.map(async (name) => [name, await readFile(path.join(folder, name), 'utf8')] as const)));
}

async function localFileOf(summary: string): Promise<string> {
  for (const [name, text] of await localEvents()) if (new RegExp(`SUMMARY[^:\\r\\n]*:${summary}\\r?\\n`).test(text)) return name;
  throw new Error(`no local event "${summary}"`);
}

async function editLocal(name: string, from: string, to: string): Promise<void> {
  const file = path.join(folder, name);
  const text = await readFile(file, 'utf8');
  await writeFile(file, text.replace(new RegExp(`(SUMMARY[^:\\r\\n]*):${from}`), `$1:${to}`));
}

const titleOf = async (id: number) => (await server.request(`${API}/${id}`, { auth: editor })).body.title;

before(async () => {
  server = await startTestServer();
  editor = await server.createUser('editor');
  home = await mkdtemp(path.join(tmpdir(), 'almanac-vdirsyncer-'));
  folder = path.join(home, 'calendar');
  await mkdir(folder);
  const token = editor.bearer.slice('Bearer '.length);
  await writeFile(
    path.join(home, 'vdirsyncer.conf'),
    [
      '[general]',
      `status_path = "${home}/status/"`,
      '',
      '[pair almanac]',
      'a = "local"',
      'b = "remote"',
      'collections = null',
      '',
      '[storage local]',
      'type = "filesystem"',
      `path = "${folder}/"`,
      'fileext = ".ics"',
      '',
      '[storage remote]',
      'type = "caldav"',
      `url = "${server.url}/dav/calendars/events/"`,
      `username = "${editor.username}"`,
      `password = "${token}"`,
      '',
    ].join('\n'),
  );
  await writeFile(
    path.join(home, 'khal.conf'),
    [
      '[calendars]',
      '[[almanac]]',
      `path = ${folder}/`,
      'type = calendar',
      '[sqlite]',
      `path = ${home}/khal.db`,
      '[locale]',
      'timeformat = %H:%M',
      'dateformat = %Y-%m-%d',
      'longdateformat = %Y-%m-%d',
      'datetimeformat = %Y-%m-%d %H:%M',
      'longdatetimeformat = %Y-%m-%d %H:%M',
      'local_timezone = UTC',
      'default_timezone = UTC',
      '',
    ].join('\n'),
  );
});

after(async () => {
  await server?.close();
  if (home !== undefined) await rm(home, { recursive: true, force: true });
});

it('syncs both ways with vdirsyncer, reports a conflict without losing either side, and khal reads the events', async () => {
  const concert = await apiEvent(server, editor, {
    title: 'Harbour concert',
    start_date: '2031-06-10 20:00:00',
    end_date: '2031-06-10 22:00:00',
  });
  const discovered = await vdirsyncer('discover');
  assert.equal(discovered.code, 0, discovered.output);
  await sync();
  const concertFile = await localFileOf('Harbour concert');

  // Local edits arrive on the server: a change, and a new event whose UID no address carries as it is.
  await editLocal(concertFile, 'Harbour concert', 'Harbour concert moved indoors');
  const uid = 'picnic-1@phone.example.org';
  await writeFile(
    path.join(folder, 'picnic.ics'),
    [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//test//EN',
      'BEGIN:VEVENT',
      `UID:${uid}`,
      'DTSTAMP:20310101T000000Z',
      'DTSTART:20310612T120000Z',
      'DTEND:20310612T140000Z',
      'SUMMARY:Picnic',
      'END:VEVENT',
      'END:VCALENDAR',
      '',
    ].join('\r\n'),
  );
  await sync();
  assert.equal(await titleOf(concert.id), 'Harbour concert moved indoors');
  const listed = await server.request(`${API}?start_date=2031-06-01&end_date=2031-06-30`, { auth: editor });
  assert.deepEqual(listed.body.events.map((event: any) => event.title).sort(), ['Harbour concert moved indoors', 'Picnic']);

  // A server edit arrives in the folder.
  const patched = await server.request(`${API}/${concert.id}`, {
    method: 'PATCH',
    auth: editor,
    body: { title: 'Harbour concert sold out' },
  });
  assert.equal(patched.status, 200);
  await sync();
  await localFileOf('Harbour concert sold out');
  await sync();

  // khal reads what vdirsyncer keeps.
  const shown = await run(KHAL, ['-c', path.join(home, 'khal.conf'), 'list', '2031-06-01', '30d']);
  assert.equal(shown.code, 0, shown.output);
  assert.match(shown.output, /Harbour concert sold out/);
  assert.match(shown.output, /Picnic/);

  // Both sides change one event: vdirsyncer reports the conflict, and each side keeps its own edit.
  await editLocal(await localFileOf('Harbour concert sold out'), 'Harbour concert sold out', 'Edited on the laptop');
  const serverSide = await server.request(`${API}/${concert.id}`, {
    method: 'PATCH',
    auth: editor,
    body: { title: 'Edited on the server' },
  });
  assert.equal(serverSide.status, 200);
  const conflict = await vdirsyncer('sync');
  assert.notEqual(conflict.code, 0, conflict.output);
  assert.match(conflict.output, /conflict/i);
  await localFileOf('Edited on the laptop');
  assert.equal(await titleOf(concert.id), 'Edited on the server');
});
