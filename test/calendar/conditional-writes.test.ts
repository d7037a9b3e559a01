/**
 * Conditional writes (issue 23): an item's ETag names its row version, and a
 * write that sends it back in If-Match is made only while the item is still at
 * that version — else a 412 with nothing written. `*` asks that the item exists;
 * REQUIRE_IF_MATCH makes a write without If-Match a 428. Two editors who read the
 * same version and write at once: one wins, the other is told (no lost update).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { digestOf, etagOf, listedEtags, versionOfEtag } from '../../src/platform/http/entity-tags.ts';
import type { RunningServer } from '../../src/server.ts';
import { competingWrite } from '../helpers/competing-writer.ts';
import { dialect, startSecondServer, startTestServer, type Credentials, type RequestOptions, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from './events.factories.ts';
import { makeOrganizer, makeVenue, NS, ORGANIZERS, VENUES } from './venues-organizers.factories.ts';

const ITEM_TAG = /^"(\d+)-[A-Za-z0-9_-]{27}"$/;

/** One kind of item: how to make one, where it lives, a change to write and how to see it. */
interface Resource {
  readonly name: string;
  readonly collection: string;
  /** The table a competing writer locks its row in. */
  readonly table: string;
  make(server: TestServer, auth: Credentials): Promise<{ id: number; slug?: string }>;
  /** A write body that changes what a read shows. */
  change(label: string): Record<string, unknown>;
  /** What the change wrote, read back from a representation. */
  shown(body: any): string;
  /** Whether a delete without `force` moves the item to the trash (posts) rather than deleting it (terms). */
  readonly trashes: boolean;
}

let made = 0;
const unique = (label: string) => `${label} ${(made += 1)}`;

const RESOURCES: readonly Resource[] = [
  {
    name: 'events',
    collection: EVENTS,
    table: 'events',
    make: (server, auth) => makeEvent(server, auth, { status: 'publish', title: unique('Event') }),
    change: (label) => ({ title: label }),
    shown: (body) => body.title,
    trashes: true,
  },
  {
    name: 'venues',
    collection: VENUES,
    table: 'venues',
    make: (server, auth) => makeVenue(server, auth, { status: 'publish', venue: unique('Hall') }),
    change: (label) => ({ venue: label }),
    shown: (body) => body.venue,
    trashes: true,
  },
  {
    name: 'organizers',
    collection: ORGANIZERS,
    table: 'organizers',
    make: (server, auth) => makeOrganizer(server, auth, { status: 'publish', organizer: unique('Org') }),
    change: (label) => ({ organizer: label }),
    shown: (body) => body.organizer,
    trashes: true,
  },
  ...(['categories', 'tags'] as const).map((collection): Resource => ({
    name: collection,
    collection: `${NS}/${collection}`,
    table: 'terms',
    make: async (server, auth) => {
      const response = await server.request(`${NS}/${collection}`, { method: 'POST', auth, body: { name: unique(collection) } });
      assert.equal(response.status, 201, response.text);
      return response.body;
    },
    change: (label) => ({ name: label }),
    shown: (body) => body.name,
    trashes: false,
  })),
];

describe('entity-tags', () => {
  it('names the version of an item and the bytes of its representation', () => {
    assert.match(etagOf('{"id":1}', 42), /^"42-[A-Za-z0-9_-]{27}"$/);
    assert.match(etagOf('{"id":1}'), /^"[A-Za-z0-9_-]{27}"$/);
    assert.notEqual(etagOf('{"id":1}', 42), etagOf('{"id":2}', 42));
    assert.equal(versionOfEtag(etagOf('x', 7)), 7);
  });

  it('reads no version from a tag of bytes alone whose digest starts like one', () => {
    let body = 0;
    while (!/^\d+-/.test(digestOf(String(body)))) body += 1;
    const tag = etagOf(String(body));
    assert.equal(versionOfEtag(tag), undefined, tag);
    assert.equal(versionOfEtag(etagOf(String(body), 3)), 3);
  });

  const digest = digestOf('x');
  for (const [tag, version] of [
    [`"7-${digest}"`, 7],
    [`"7-${digest}.br"`, 7],
    [`W/"7-${digest}"`, undefined],
    [`"${digest}"`, undefined],
    [`"-${digest}"`, undefined],
    ['"7-"', undefined],
    ['"7-abc"', undefined],
    [`7-${digest}`, undefined],
    [`"1234567890123456-${digest}"`, undefined],
  ] as const) {
    it(`${tag} names version ${String(version)}`, () => assert.equal(versionOfEtag(tag), version));
  }

  for (const [field, listed] of [
    ['*', '*'],
    [' * ', '*'],
    ['"a"', ['"a"']],
    ['"a", W/"b" ,"c"', ['"a"', 'W/"b"', '"c"']],
    [', "a",,', ['"a"']],
    ['"a,b"', ['"a,b"']],
    ['', []],
    ['a', undefined],
    ['"a', undefined],
    ['"a" "b"', undefined],
    ['"a", *', undefined],
    ['W/ "a"', undefined],
  ] as const) {
    it(`If-Match ${JSON.stringify(field)} lists ${JSON.stringify(listed)}`, () => assert.deepEqual(listedEtags(field), listed));
  }
});

describe('conditional writes', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  const read = (path: string, headers: Record<string, string> = {}) => server.request(path, { auth: admin, headers });
  const write = (path: string, options: RequestOptions & { ifMatch?: string }) => {
    const { ifMatch, ...rest } = options;
    return server.request(path, {
      method: 'PATCH',
      auth: admin,
      ...rest,
      headers: { ...rest.headers, ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }) },
    });
  };
  const tagOf = (response: { headers: Headers }) => response.headers.get('etag') ?? '';
  const versionOf = (tag: string) => Number(ITEM_TAG.exec(tag)?.[1]);

  function assertRefused(response: { status: number; body: any; text: string }, why: string): void {
    assert.equal(response.status, 412, `${why}: ${response.text}`);
    assert.equal(response.body.code, 'rest_precondition_failed');
    assert.equal(response.body.data.status, 412);
  }

  for (const resource of RESOURCES) {
    describe(resource.name, () => {
      const url = (id: number) => `${resource.collection}/${id}`;

      it('a write with the current ETag is made and answers with the new one, which the next write can use', async () => {
        const item = await resource.make(server, admin);
        const first = await read(url(item.id));
        assert.equal(first.status, 200);
        const tag = tagOf(first);
        assert.match(tag, ITEM_TAG);

        const edited = await write(url(item.id), { body: resource.change('First edit'), ifMatch: tag });
        assert.equal(edited.status, 200, edited.text);
        assert.equal(resource.shown(edited.body), 'First edit');
        const next = tagOf(edited);
        assert.match(next, ITEM_TAG);
        assert.ok(versionOf(next) > versionOf(tag), `${next} is a later version than ${tag}`);
        assert.equal(versionOf(tagOf(await read(url(item.id)))), versionOf(next), 'a read names the version the write answered with');

        const chained = await write(url(item.id), { method: 'PUT', body: resource.change('Second edit'), ifMatch: next });
        assert.equal(chained.status, 200, chained.text);
        assert.equal(resource.shown((await read(url(item.id))).body), 'Second edit');
      });

      it('a write with a stale ETag is a 412 and changes nothing', async () => {
        const item = await resource.make(server, admin);
        const stale = tagOf(await read(url(item.id)));
        assert.equal((await write(url(item.id), { body: resource.change('Meanwhile') })).status, 200);
        const before = await read(url(item.id));

        for (const method of ['PATCH', 'PUT', 'POST']) {
          assertRefused(await write(url(item.id), { method, body: resource.change('Lost update'), ifMatch: stale }), method);
        }
        const deleted = await server.request(url(item.id), {
          method: 'DELETE',
          auth: admin,
          headers: { 'if-match': stale },
        });
        assertRefused(deleted, 'DELETE');
        const afterwards = await read(url(item.id));
        assert.equal(afterwards.text, before.text, 'nothing was written');
        assert.equal(tagOf(afterwards), tagOf(before));
      });

      it('If-Match * writes an existing item; on a missing one, any If-Match is a 412 instead of the not-found error', async () => {
        const item = await resource.make(server, admin);
        const starred = await write(url(item.id), { body: resource.change('Starred'), ifMatch: '*' });
        assert.equal(starred.status, 200, starred.text);

        const missing = url(1_999_999);
        const plain = await write(missing, { body: resource.change('Nobody') });
        assert.ok([400, 404].includes(plain.status), `without If-Match a missing item keeps its own error: ${plain.text}`);
        for (const ifMatch of ['*', tagOf(await read(url(item.id))), 'garbage']) {
          assertRefused(await write(missing, { body: resource.change('Nobody'), ifMatch }), `PATCH ${ifMatch}`);
          assertRefused(
            await server.request(missing, { method: 'DELETE', auth: admin, headers: { 'if-match': ifMatch } }),
            `DELETE ${ifMatch}`,
          );
        }
      });

      it('weak, foreign and malformed tags never match; a list matches when one of its tags does', async () => {
        const item = await resource.make(server, admin);
        const current = tagOf(await read(url(item.id)));
        const before = (await read(url(item.id))).text;
        for (const ifMatch of [
          `W/${current}`,
          current.slice(1, -1),
          `${current}x`,
          `"${current.slice(1, -1)}`,
          '"abc"',
          `"${versionOf(current)}"`,
          `"${versionOf(current) + 1}-AAAAAAAAAAAAAAAAAAAAAAAAAAA"`,
          '"99999999999999999999-x"',
          `${current} ${current}`,
          '',
          'null',
          '**',
          `*, ${current}`,
        ]) {
          assertRefused(await write(url(item.id), { body: resource.change('Never'), ifMatch }), `If-Match ${JSON.stringify(ifMatch)}`);
        }
        assert.equal((await read(url(item.id))).text, before, 'nothing was written');

        const listed = await write(url(item.id), { body: resource.change('Listed'), ifMatch: `"1-stale", W/"x", ${current}` });
        assert.equal(listed.status, 200, listed.text);
      });

      it('a delete with the current ETag is made: a trashed item answers with its new ETag, a deleted one with none', async () => {
        const item = await resource.make(server, admin);
        let tag = tagOf(await read(url(item.id)));
        if (resource.trashes) {
          const trashed = await server.request(url(item.id), { method: 'DELETE', auth: admin, headers: { 'if-match': tag } });
          assert.equal(trashed.status, 200, trashed.text);
          assert.ok(versionOf(tagOf(trashed)) > versionOf(tag), 'the trashed item has a new version');
          assertRefused(
            await server.request(`${url(item.id)}?force=true`, { method: 'DELETE', auth: admin, headers: { 'if-match': tag } }),
            'a delete with the tag from before the trash',
          );
          tag = tagOf(trashed);
        }
        const force = resource.trashes ? '?force=true' : '';
        const deleted = await server.request(`${url(item.id)}${force}`, { method: 'DELETE', auth: admin, headers: { 'if-match': tag } });
        assert.equal(deleted.status, 200, deleted.text);
        assert.equal(deleted.headers.get('etag'), null, 'a deleted item has no version');
        assert.ok([400, 404].includes((await read(url(item.id))).status), 'deleted');
      });

      it('a read answers 304 to its versioned tag, compared weakly, and 200 once the item changed', async () => {
        const item = await resource.make(server, admin);
        const first = await read(url(item.id));
        assert.equal(first.status, 200, first.text);
        const tag = tagOf(first);
        assert.match(tag, ITEM_TAG);
        assert.equal((await server.request(url(item.id), { method: 'HEAD', auth: admin })).headers.get('etag'), tag);
        for (const noneMatch of [tag, `W/${tag}`, `"other", ${tag}`]) {
          const cached = await read(url(item.id), { 'if-none-match': noneMatch });
          assert.equal(cached.status, 304, noneMatch);
          assert.equal(tagOf(cached), tag);
        }
        assert.equal((await write(url(item.id), { body: resource.change('Changed'), ifMatch: tag })).status, 200);
        const changed = await read(url(item.id), { 'if-none-match': tag });
        assert.equal(changed.status, 200);
        assert.ok(versionOf(tagOf(changed)) > versionOf(tag));
      });

      it('a create answers with the ETag of the new item', async () => {
        const created = await server.request(resource.collection, {
          method: 'POST',
          auth: admin,
          body: {
            ...resource.change(unique('Created')),
            ...(resource.name === 'events' ? { start_date: 'tomorrow 9am', end_date: 'tomorrow 10am' } : {}),
          },
        });
        assert.equal(created.status, 201, created.text);
        const tag = tagOf(created);
        assert.match(tag, ITEM_TAG);
        assert.equal((await write(url(created.body.id), { body: resource.change('Edited at once'), ifMatch: tag })).status, 200);
      });
    });
  }

  it('any representation of the current version is current: a tag read in another language or as another caller', async () => {
    const event = await makeEvent(server, admin, { status: 'publish', title: 'Concert' });
    await write(`${EVENTS}/${event.id}?translation_language=it`, { body: { title: 'Concerto' } });
    const italian = tagOf(await read(`${EVENTS}/${event.id}?translation_language=it`));
    const other = tagOf(await server.request(`${EVENTS}/${event.id}`, { auth: await server.createUser('editor') }));
    assert.notEqual(italian, other, 'two representations, two tags');
    assert.equal(versionOf(italian), versionOf(other), 'of one version');
    const edited = await write(`${EVENTS}/${event.id}`, { body: { title: 'Concert, moved' }, ifMatch: other });
    assert.equal(edited.status, 200, edited.text);
  });

  it('an event read by slug has the tag of the event, and writes by slug check it', async () => {
    const event = await makeEvent(server, admin, { status: 'publish', title: unique('Slugged') });
    const bySlug = `${EVENTS}/by-slug/${event.slug}`;
    const tag = tagOf(await read(bySlug));
    assert.equal(versionOf(tag), versionOf(tagOf(await read(`${EVENTS}/${event.id}`))));
    assert.equal((await write(bySlug, { body: { title: 'By slug' }, ifMatch: tag })).status, 200);
    assertRefused(await write(bySlug, { body: { title: 'Stale by slug' }, ifMatch: tag }), 'stale by slug');
    assertRefused(await write(`${EVENTS}/by-slug/no-such-event-slug`, { body: { title: 'x' }, ifMatch: '*' }), 'missing slug');

    const venue = await makeVenue(server, admin, { status: 'publish', venue: unique('Slug hall') });
    const venueTag = tagOf(await read(`${VENUES}/by-slug/${venue.slug}`));
    assert.equal((await write(`${VENUES}/by-slug/${venue.slug}`, { body: { venue: 'Renamed by slug' }, ifMatch: venueTag })).status, 200);
    assertRefused(await write(`${VENUES}/by-slug/${venue.slug}`, { body: { venue: 'Stale' }, ifMatch: venueTag }), 'stale venue by slug');
  });

  it("a change of what an event embeds (its venue's name, its organizer, its category) makes the event's ETag stale", async () => {
    const venue = await makeVenue(server, admin, { status: 'publish', venue: unique('Embedded hall') });
    const organizer = await makeOrganizer(server, admin, { status: 'publish', organizer: unique('Embedded org') });
    const category = await server.request(`${NS}/categories`, { method: 'POST', auth: admin, body: { name: unique('Embedded') } });
    const event = await makeEvent(server, admin, {
      status: 'publish',
      venue: venue.id,
      organizer: [organizer.id],
      categories: [category.body.id],
    });
    const embedded: [string, string, Record<string, unknown>][] = [
      ['venue', `${VENUES}/${venue.id}`, { venue: 'Renamed hall' }],
      ['organizer', `${ORGANIZERS}/${organizer.id}`, { organizer: 'Renamed org' }],
      ['category', `${NS}/categories/${category.body.id}`, { name: 'Renamed category' }],
    ];
    for (const [what, path, rename] of embedded) {
      const tag = tagOf(await read(`${EVENTS}/${event.id}`));
      assert.equal((await write(path, { body: rename })).status, 200, what);
      const before = (await read(`${EVENTS}/${event.id}`)).text;
      assertRefused(await write(`${EVENTS}/${event.id}`, { body: { title: 'Written over' }, ifMatch: tag }), `after the ${what} changed`);
      assert.equal((await read(`${EVENTS}/${event.id}`)).text, before);
      assert.equal(
        (await write(`${EVENTS}/${event.id}`, { body: { title: `Seen the ${what}` }, ifMatch: tagOf(await read(`${EVENTS}/${event.id}`)) }))
          .status,
        200,
      );
    }
  });

  it('an occurrence of a series is written by its own tag, which an edit of its series makes stale', async () => {
    const series = await makeEvent(server, admin, {
      status: 'publish',
      title: unique('Weekly'),
      start_date: '2031-03-03 18:00:00',
      end_date: '2031-03-03 19:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
    });
    const instances = await read(`${EVENTS}/${series.id}/instances`);
    const occurrence = instances.body.events[1].id as number;
    const tag = tagOf(await read(`${EVENTS}/${occurrence}`));
    assert.equal((await write(`${EVENTS}/${series.id}`, { body: { title: 'Weekly, renamed' } })).status, 200);
    assertRefused(
      await write(`${EVENTS}/${occurrence}`, { body: { title: 'Just this one' }, ifMatch: tag }),
      'occurrence after its series changed',
    );
    const current = tagOf(await read(`${EVENTS}/${occurrence}`));
    assert.equal((await write(`${EVENTS}/${occurrence}`, { body: { title: 'Just this one' }, ifMatch: current })).status, 200);

    // "This and following" answers with the series cut from the occurrence: another item, so no tag of the occurrence.
    const last = instances.body.events[2].id as number;
    const cut = await write(`${EVENTS}/${last}`, {
      body: { title: 'From here on', scope: 'following' },
      ifMatch: tagOf(await read(`${EVENTS}/${last}`)),
    });
    assert.equal(cut.status, 200, cut.text);
    assert.notEqual(cut.body.id, last);
    assert.equal(cut.headers.get('etag'), null);
  });

  it('authorization comes first: no caller learns from a 412 what they may not write', async () => {
    const contributor = await server.createUser('contributor');
    const event = await makeEvent(server, admin, { status: 'publish' });
    const venue = await makeVenue(server, admin, { status: 'publish' });
    for (const path of [`${EVENTS}/${event.id}`, `${VENUES}/${venue.id}`, `${NS}/tags/1999999`, `${VENUES}/1999999`, `${EVENTS}/1999999`]) {
      const anonymous = await server.request(path, { method: 'PATCH', body: { title: 'x' }, headers: { 'if-match': '"1-stale"' } });
      assert.equal(anonymous.status, 401, `${path}: ${anonymous.text}`);
    }
    const refused = await server.request(`${EVENTS}/${event.id}`, {
      method: 'PATCH',
      auth: contributor,
      body: { title: 'Not mine' },
      headers: { 'if-match': '"1-stale"' },
    });
    assert.equal(refused.status, 403, refused.text);
  });
});

describe('concurrent conditional writes', () => {
  let server: TestServer;
  let second: RunningServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer();
    // A second process on the same database, as a deployment with several would have.
    second = await startSecondServer(server);
    admin = await server.admin();
  });
  after(async () => {
    await second.close();
    await server.close();
  });

  const ROUNDS = 4;

  for (const resource of RESOURCES) {
    it(`${resource.name}: two writes with the same ETag at once — exactly one is made, the other is a 412`, async () => {
      const item = await resource.make(server, admin);
      const url = `${resource.collection}/${item.id}`;
      for (let round = 0; round < ROUNDS; round += 1) {
        const tag = (await server.request(url, { auth: admin })).headers.get('etag') ?? '';
        // Half the rounds start both writes behind another connection's hold on the row, so both have read
        // what they check before either writes; the others race as they come. One goes through each process.
        const held = round % 2 === 0;
        const hold = held
          ? await competingWrite(
              server,
              dialect === 'postgres' ? [[`select id from ${resource.table} where id = ? for update`, item.id]] : [],
            )
          : undefined;
        const labels = [`Round ${round} A`, `Round ${round} B`];
        const answers = Promise.all(
          labels.map((label, index) =>
            server.request(`${index === 0 ? '' : second.url}${url}`, {
              method: 'PATCH',
              auth: admin,
              body: resource.change(label),
              headers: { 'if-match': tag },
            }),
          ),
        );
        if (hold !== undefined) await hold.commitOnceBlocked(2);
        const [first, other] = await answers;
        const statuses = [first!.status, other!.status].sort();
        assert.deepEqual(statuses, [200, 412], `round ${round}: ${first!.text} / ${other!.text}`);
        const winner = first!.status === 200 ? 0 : 1;
        const stored = await server.request(url, { auth: admin });
        assert.equal(resource.shown(stored.body), labels[winner], 'the write that was made is the one stored');
        assert.equal(
          versionOfEtag(stored.headers.get('etag') ?? ''),
          versionOfEtag([first, other][winner]!.headers.get('etag') ?? ''),
          "the winner's answer names the current version",
        );
      }
    });
  }

  it('a delete racing an update with the same ETag: one is made, the other is a 412', async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const event = await makeEvent(server, admin, { status: 'publish' });
      const url = `${EVENTS}/${event.id}`;
      const tag = (await server.request(url, { auth: admin })).headers.get('etag') ?? '';
      const [update, remove] = await Promise.all([
        server.request(url, { method: 'PATCH', auth: admin, body: { title: 'Kept?' }, headers: { 'if-match': tag } }),
        server.request(`${second.url}${url}`, { method: 'DELETE', auth: admin, headers: { 'if-match': tag } }),
      ]);
      assert.deepEqual([update.status, remove.status].sort(), [200, 412], `${update.text} / ${remove.text}`);
      // A trashed event is no longer available to reads (403).
      const stored = await server.request(url, { auth: admin });
      assert.equal(stored.status === 200, update.status === 200, stored.text);
      if (stored.status === 200) assert.equal(stored.body.title, 'Kept?');
    }
  });
});

describe('REQUIRE_IF_MATCH=true', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer({ REQUIRE_IF_MATCH: 'true' });
    admin = await server.admin();
  });
  after(async () => server.close());

  for (const resource of RESOURCES) {
    it(`${resource.name}: creates need none; an update or delete without If-Match is a 428 that changes nothing`, async () => {
      const item = await resource.make(server, admin);
      const url = `${resource.collection}/${item.id}`;
      const before = await server.request(url, { auth: admin });
      for (const method of ['PATCH', 'PUT', 'POST']) {
        const unconditional = await server.request(url, { method, auth: admin, body: resource.change('Unconditional') });
        assert.equal(unconditional.status, 428, `${method}: ${unconditional.text}`);
        assert.equal(unconditional.body.code, 'rest_precondition_required');
        assert.match(unconditional.body.message, /If-Match/);
      }
      const removed = await server.request(url, { method: 'DELETE', auth: admin });
      assert.equal(removed.status, 428, removed.text);
      const afterwards = await server.request(url, { auth: admin });
      assert.equal(afterwards.text, before.text, 'nothing was written');

      const conditional = await server.request(url, {
        method: 'PATCH',
        auth: admin,
        body: resource.change('Conditional'),
        headers: { 'if-match': afterwards.headers.get('etag') ?? '' },
      });
      assert.equal(conditional.status, 200, conditional.text);
      const starred = await server.request(url, {
        method: 'DELETE',
        auth: admin,
        headers: { 'if-match': '*' },
      });
      assert.equal(starred.status, 200, starred.text);
    });
  }

  it('authorization and a missing item come first: a 401 to the anonymous, the not-found error for a missing item', async () => {
    const event = await makeEvent(server, admin, { status: 'publish' });
    assert.equal((await server.request(`${EVENTS}/${event.id}`, { method: 'PATCH', body: { title: 'x' } })).status, 401);
    assert.equal((await server.request(`${EVENTS}/1999999`, { method: 'PATCH', auth: admin, body: { title: 'x' } })).status, 404);
    assert.equal((await server.request(`${VENUES}/1999999`, { method: 'DELETE', auth: admin })).status, 400);
  });

  it('an iCalendar import creates and updates events without If-Match (a write to the collection)', async () => {
    const ics = (summary: string) =>
      [
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        'PRODID:-//test//conditional writes//EN',
        'BEGIN:VEVENT',
        'UID:conditional-import@example.com',
        'DTSTAMP:20300101T000000Z',
        `LAST-MODIFIED:2030010${summary.length % 9}T000000Z`,
        'DTSTART:20300105T100000Z',
        'DTEND:20300105T110000Z',
        `SUMMARY:${summary}`,
        'END:VEVENT',
        'END:VCALENDAR',
        '',
      ].join('\r\n');
    for (const summary of ['Imported', 'Imported again']) {
      const imported = await server.request(`${EVENTS}.ics`, {
        method: 'POST',
        auth: admin,
        body: ics(summary),
        headers: { 'content-type': 'text/calendar; charset=utf-8' },
      });
      assert.equal(imported.status, 200, imported.text);
      assert.equal(imported.body.errors.length, 0, imported.text);
    }
  });
});
