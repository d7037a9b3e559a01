/**
 * An import never raises an event's visibility (issue 36, defect 6): the
 * editor's own feed, edited as a calendar app edits it (SEQUENCE+1, a new
 * SUMMARY) and posted back, changes the texts but publishes nothing; only
 * `X-ALMANAC-STATUS` says to publish. Anonymous readers are checked
 * through every door: the list, the item, `/changes` and the feed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { IcalImport } from '../../src/calendar/ical/ical.import.ts';
import { ownEventUid } from '../../src/calendar/ical/ical.uid.ts';
import { PostPasswords } from '../../src/calendar/posts/posts.passwords.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { contextFor } from './context.helper.ts';
import { EVENTS, makeEvent, utcDay } from './events.factories.ts';
import { ics } from './ical.import.fixtures.ts';

const FEED = `${EVENTS}.ics`;
const CHANGES = '/calendar/events/v1/changes';
const PASSWORD = 'feed-secret-1';

type Report = { created: number; updated: number; skipped: number; errors: { line: number; uid: string | null; message: string }[] };

/** The lines of a feed with its folds undone. */
const unfolded = (feed: string): string[] => feed.replace(/\r\n[ \t]/g, '').split('\r\n');

/**
 * One event of a feed as a calendar app sends it back after an edit: the
 * feed's calendar and zones, that VEVENT with SEQUENCE+1, a new SUMMARY and
 * the `extra` lines.
 */
function editedExport(feed: string, uid: string, title: string, extra: string[] = []): string {
  const lines = unfolded(feed);
  const head = lines.slice(0, lines.indexOf('BEGIN:VEVENT'));
  const begin = lines.findIndex(
    (line, index) => line === 'BEGIN:VEVENT' && lines.slice(index, lines.indexOf('END:VEVENT', index)).includes(`UID:${uid}`),
  );
  assert.ok(begin >= 0, `${uid} is in the feed`);
  const vevent = lines.slice(begin, lines.indexOf('END:VEVENT', begin));
  const edited = vevent.map((line) =>
    line.startsWith('SEQUENCE:')
      ? `SEQUENCE:${Number(line.slice('SEQUENCE:'.length)) + 1}`
      : line.startsWith('SUMMARY')
        ? `SUMMARY:${title}`
        : line,
  );
  return ics(...head, ...edited, ...extra, 'END:VEVENT', 'END:VCALENDAR');
}

describe('a re-import never raises visibility (POST /events.ics)', () => {
  let server: TestServer;
  let editor: Credentials;
  before(async () => {
    server = await startTestServer({ SITE_TIMEZONE: 'UTC' });
    editor = await server.createUser('editor');
  });
  after(async () => server.close());

  const importAs = (auth: Credentials, body: string, query = '') =>
    server.request(`${FEED}${query}`, { method: 'POST', auth, body, headers: { 'content-type': 'text/calendar' } });
  const importFile = async (body: string, query = ''): Promise<Report> => {
    const response = await importAs(editor, body, query);
    assert.equal(response.status, 200, response.text);
    return response.body as Report;
  };
  const uidOf = (id: number) => ownEventUid(id, server.config.baseUrl);
  const editorFeed = async () => {
    const response = await server.request(FEED, { auth: editor });
    assert.equal(response.status, 200, response.text);
    return response.text;
  };
  const asEditor = async (id: number) => {
    const response = await server.request(`${EVENTS}/${id}?context=edit`, { auth: editor });
    assert.equal(response.status, 200, response.text);
    return response.body;
  };
  const syncToken = async (): Promise<string> => {
    const response = await server.request(CHANGES);
    assert.equal(response.status, 200, response.text);
    return response.body.next_sync_token;
  };
  /** What anonymous readers get of an event: in the list, by id, in `/changes` since `token`, in the feed. */
  const anonymousView = async (id: number, token: string) => {
    const list = await server.request(`${EVENTS}?per_page=50`);
    const single = await server.request(`${EVENTS}/${id}`);
    const changes = await server.request(`${CHANGES}?sync_token=${encodeURIComponent(token)}`);
    const feed = await server.request(FEED);
    for (const response of [list, changes, feed]) assert.equal(response.status, 200, response.text);
    return {
      listed: (list.body.events as any[]).find((event) => event.id === id),
      single: single.status,
      changed: (changes.body.changes as any[]).find((change) => change.type === 'event' && change.id === id),
      inFeed: feed.text.includes(uidOf(id)),
    };
  };

  const hidden = [
    { kind: 'draft', fields: { status: 'draft' }, exported: 'TENTATIVE' },
    { kind: 'pending', fields: { status: 'pending' }, exported: 'TENTATIVE' },
    { kind: 'private', fields: { status: 'private' }, exported: 'CONFIRMED' },
    { kind: 'future', fields: { status: 'publish', date: `${utcDay(90)} 08:00:00` }, exported: 'CONFIRMED' },
  ] as const;
  for (const { kind, fields, exported } of hidden) {
    it(`applies the edit of a ${kind} event exported by the feed and re-imported, and keeps it ${kind} (also in a dry run)`, async () => {
      const event = await makeEvent(server, editor, { ...fields, description: `Hidden ${kind} plans` });
      assert.equal(event.status, kind);
      const token = await syncToken();
      const feed = await editorFeed();
      const file = editedExport(feed, uidOf(event.id), `${kind} renamed`);
      assert.match(file, new RegExp(`STATUS:${exported}\r\n`));

      assert.deepEqual(await importFile(file, '?dry_run=true'), { created: 0, updated: 1, skipped: 0, errors: [] });
      assert.equal((await asEditor(event.id)).title, event.title);
      assert.deepEqual(await importFile(file), { created: 0, updated: 1, skipped: 0, errors: [] });
      const stored = await asEditor(event.id);
      assert.equal(stored.title, `${kind} renamed`);
      assert.equal(stored.status, kind);

      const anonymous = await anonymousView(event.id, token);
      assert.equal(anonymous.listed, undefined);
      assert.equal(anonymous.single, 403);
      assert.equal(anonymous.changed, undefined);
      assert.equal(anonymous.inFeed, false);
    });
  }

  it('keeps the password of a protected event re-imported from the feed, and what the feed leaves out of it', async () => {
    const event = await makeEvent(server, editor, {
      status: 'publish',
      password: PASSWORD,
      description: 'Behind the password',
      venue: { venue: 'Hidden hall' },
      organizer: [{ organizer: 'Hidden host', email: 'host@tests.example' }],
      categories: ['Hidden things'],
    });
    const token = await syncToken();
    const feed = await editorFeed();
    const file = editedExport(feed, uidOf(event.id), 'Protected renamed');
    // What the editor's feed gives of a protected event is what its list shows: neither texts nor links.
    assert.doesNotMatch(file, /Behind the password|Hidden hall|Hidden host|Hidden things/);
    assert.deepEqual(await importFile(file), { created: 0, updated: 1, skipped: 0, errors: [] });

    const anonymous = await anonymousView(event.id, token);
    assert.equal(anonymous.single, 403);
    // The title is what anonymous readers see of a protected event: its edit reaches them, and nothing more.
    assert.equal(anonymous.listed?.title, 'Protected renamed');
    assert.equal(anonymous.listed?.description, '');
    assert.equal(anonymous.changed?.item.description, '');
    const unlocked = await server.request(`${EVENTS}/${event.id}?password=${PASSWORD}`);
    assert.equal(unlocked.status, 200, unlocked.text);
    assert.equal(unlocked.body.title, 'Protected renamed');
    assert.match(unlocked.body.description, /Behind the password/);
    assert.equal(unlocked.body.venue.venue, 'Hidden hall');
    assert.deepEqual(
      unlocked.body.organizer.map((organizer: { organizer: string }) => organizer.organizer),
      ['Hidden host'],
    );
    assert.deepEqual(
      unlocked.body.categories.map((category: { name: string }) => category.name),
      ['Hidden things'],
    );

    // What a file does say of a protected event is taken.
    const said = editedExport(await editorFeed(), uidOf(event.id), 'Protected again', ['DESCRIPTION:Said out loud', 'LOCATION:Open hall']);
    assert.equal((await importFile(said)).updated, 1);
    const changed = await server.request(`${EVENTS}/${event.id}?password=${PASSWORD}`);
    assert.match(changed.body.description, /Said out loud/);
    assert.equal(changed.body.venue.venue, 'Open hall');
  });

  it('publishes an existing draft when the file says X-ALMANAC-STATUS:publish', async () => {
    const event = await makeEvent(server, editor, { status: 'draft' });
    const token = await syncToken();
    const file = editedExport(await editorFeed(), uidOf(event.id), 'Published on purpose', ['X-ALMANAC-STATUS:publish']);
    assert.deepEqual(await importFile(file), { created: 0, updated: 1, skipped: 0, errors: [] });
    assert.equal((await asEditor(event.id)).status, 'publish');
    const anonymous = await anonymousView(event.id, token);
    assert.equal(anonymous.single, 200);
    assert.equal(anonymous.listed?.title, 'Published on purpose');
    assert.equal(anonymous.changed?.item.title, 'Published on purpose');
    assert.equal(anonymous.inFeed, true);
  });

  it('refuses the file of a contributor or an author that says to publish (403), and changes nothing', async () => {
    const event = await makeEvent(server, editor, { status: 'draft' });
    const file = editedExport(await editorFeed(), uidOf(event.id), 'Published by a contributor', ['X-ALMANAC-STATUS:publish']);
    for (const role of ['contributor', 'author'] as const) {
      const response = await importAs(await server.createUser(role), file);
      assert.equal(response.status, 403, response.text);
    }
    const stored = await asEditor(event.id);
    assert.equal(stored.status, 'draft');
    assert.equal(stored.title, event.title);
  });

  it('reports an X-ALMANAC-STATUS that is no status an import may set, naming its line, and changes nothing', async () => {
    const event = await makeEvent(server, editor, { status: 'draft' });
    const file = editedExport(await editorFeed(), uidOf(event.id), 'Trashed?', ['X-ALMANAC-STATUS:trash']);
    const line = file.split('\r\n').indexOf('X-ALMANAC-STATUS:trash') + 1;
    const report = await importFile(file);
    assert.deepEqual(report, {
      created: 0,
      updated: 0,
      skipped: 0,
      errors: [{ line, uid: uidOf(event.id), message: 'X-ALMANAC-STATUS "trash" is none of publish, private, pending, draft.' }],
    });
    assert.equal((await asEditor(event.id)).title, event.title);
  });

  it('makes a published event private for CLASS:PRIVATE or CONFIDENTIAL, and imports a new one as private', async () => {
    for (const value of ['PRIVATE', 'CONFIDENTIAL']) {
      const event = await makeEvent(server, editor, { status: 'publish' });
      const file = editedExport(await editorFeed(), uidOf(event.id), `Class ${value}`, [`CLASS:${value}`]);
      assert.deepEqual(await importFile(file), { created: 0, updated: 1, skipped: 0, errors: [] });
      assert.equal((await asEditor(event.id)).status, 'private');
      assert.equal((await server.request(`${EVENTS}/${event.id}`)).status, 403);
    }
    const event = await makeEvent(server, editor, { status: 'draft' });
    const file = editedExport(await editorFeed(), uidOf(event.id), 'Class on a draft', ['CLASS:PRIVATE', 'X-ALMANAC-STATUS:publish']);
    assert.deepEqual(await importFile(file), { created: 0, updated: 1, skipped: 0, errors: [] });
    // The lower of what the file says: CLASS caps the explicit status.
    assert.equal((await asEditor(event.id)).status, 'private');

    const created = ics(
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'BEGIN:VEVENT',
      'UID:class-private@tests.example',
      `DTSTART:${utcDay(3).replace(/-/g, '')}T100000Z`,
      'SUMMARY:Private from the start',
      'CLASS:PRIVATE',
      'END:VEVENT',
      'END:VCALENDAR',
    );
    assert.deepEqual(await importFile(created), { created: 1, updated: 0, skipped: 0, errors: [] });
    const found = await server.request(`${EVENTS}?search=Private%20from%20the%20start&status=any`, { auth: editor });
    assert.equal(found.body.events[0]?.status, 'private');
  });

  it('leaves a cancelled event a draft when a later version of the file is not cancelled, until the file says to publish', async () => {
    const event = (...lines: string[]) =>
      ics(
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        'BEGIN:VEVENT',
        'UID:cancelled-then-back@tests.example',
        `DTSTART:${utcDay(4).replace(/-/g, '')}T100000Z`,
        'SUMMARY:Back and forth',
        ...lines,
        'END:VEVENT',
        'END:VCALENDAR',
      );
    assert.equal((await importFile(event('SEQUENCE:0'))).created, 1);
    assert.equal((await importFile(event('SEQUENCE:1', 'STATUS:CANCELLED'))).updated, 1);
    assert.equal((await importFile(event('SEQUENCE:2', 'STATUS:CONFIRMED', 'DESCRIPTION:Back on'))).updated, 1);
    const search = async () =>
      (await server.request(`${EVENTS}?search=Back%20and%20forth&status=any`, { auth: editor })).body.events[0]?.status;
    assert.equal(await search(), 'draft');
    assert.equal((await importFile(event('SEQUENCE:3', 'STATUS:CONFIRMED', 'X-ALMANAC-STATUS:publish'))).updated, 1);
    assert.equal(await search(), 'publish');
  });

  it('writes new events of a caller who may not publish as the API would: a draft, or pending when the file says publish', async () => {
    const db = server.server.store.db;
    const importer = new IcalImport({
      db,
      config: server.config,
      passwords: new PostPasswords(db, server.config),
      translateError: server.server.store.translateError,
    });
    const newEvent = (uid: string, ...lines: string[]) =>
      ics(
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        'BEGIN:VEVENT',
        `UID:${uid}@tests.example`,
        `DTSTART:${utcDay(5).replace(/-/g, '')}T100000Z`,
        `SUMMARY:${uid}`,
        ...lines,
        'END:VEVENT',
        'END:VCALENDAR',
      );
    const contributor = await server.createUser('contributor');
    const caller = contextFor(server, { id: contributor.id, username: contributor.username, displayName: 'C', role: 'contributor' });
    assert.equal((await importer.importCalendar(newEvent('contributor-plain'), caller)).created, 1);
    assert.equal((await importer.importCalendar(newEvent('contributor-publish', 'X-ALMANAC-STATUS:publish'), caller)).created, 1);
    const statusOf = async (title: string) =>
      (await server.request(`${EVENTS}?search=${title}&status=any`, { auth: editor })).body.events[0]?.status;
    assert.equal(await statusOf('contributor-plain'), 'draft');
    assert.equal(await statusOf('contributor-publish'), 'pending');
  });
});
