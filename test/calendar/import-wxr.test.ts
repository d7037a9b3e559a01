/**
 * The WordPress import (`almanac import wordpress`): an export of a site with The Events Calendar, written here,
 * imported through the command into a test server's database and read back through the API; a second run writes
 * nothing; bad files — DTDs and entities, no XML, no WordPress export, no event of The Events Calendar — write
 * nothing and say so in one line.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS } from './events.factories.ts';
import { picture } from './media.factories.ts';
import { ORGANIZERS, VENUES } from './venues-organizers.factories.ts';
import { wxrAuthor, wxrEvent, wxrHead, wxrPost, wxrTail, wxrTerm } from './import-wxr.factories.ts';

const runFile = promisify(execFile);
const BIN = path.resolve('bin/almanac.js');

const ROME = { zone: 'Europe/Rome' };

/** The export: every kind of item and field the import reads, and some it leaves out. */
function exportText(changes: { title?: string } = {}): string {
  return [
    wxrHead(),
    wxrAuthor('ann', 'ann@old.example'),
    wxrAuthor('ghost', 'ghost@old.example'),
    wxrTerm('tribe_events_cat', 'musica', 'Musica', '', 'Concerti e altro'),
    wxrTerm('tribe_events_cat', 'jazz', 'Jazz', 'musica'),
    wxrTerm('tribe_events_cat', 'teatro', 'Teatro'),
    wxrTerm('post_tag', 'all-aperto', 'All aperto'),
    wxrTerm('category', 'news', 'News'),
    wxrPost({ id: 1, type: 'post', title: 'A blog post, not an event' }),
    wxrPost({
      id: 30,
      type: 'attachment',
      title: 'poster',
      status: 'inherit',
      attachmentUrl: 'https://old.example/wp-content/uploads/2026/05/poster.png',
      meta: [['_wp_attached_file', '2026/05/poster.png']],
    }),
    wxrPost({
      id: 31,
      type: 'attachment',
      title: 'verdi',
      status: 'inherit',
      attachmentUrl: 'https://old.example/wp-content/uploads/2026/05/verdi.jpg',
      meta: [['_wp_attached_file', '2026/05/verdi.jpg']],
    }),
    wxrEvent(
      {
        id: 100,
        title: changes.title ?? 'Concerto jazz',
        slug: 'concerto-jazz',
        content: '<p>Una <strong>sera</strong> di jazz.</p>',
        excerpt: 'Jazz in piazza',
        creator: 'ann',
        date: '2026-03-01 10:30:00',
        dateGmt: '2026-03-01 09:30:00',
        terms: [
          ['tribe_events_cat', 'jazz', 'Jazz'],
          ['post_tag', 'all-aperto', 'All aperto'],
        ],
      },
      { start: '2026-07-01 21:00:00', end: '2026-07-01 23:00:00', startUtc: '2026-07-01 19:00:00', endUtc: '2026-07-01 21:00:00', ...ROME },
      [
        ['_EventAllDay', ''],
        ['_EventCost', '20'],
        ['_EventCurrencySymbol', '€'],
        ['_EventCurrencyPosition', 'prefix'],
        ['_EventURL', 'https://jazz.example/'],
        ['_EventShowMap', '1'],
        ['_EventShowMapLink', ''],
        ['_EventVenueID', 10],
        ['_EventOrganizerID', 21],
        ['_EventOrganizerID', 20],
        ['_thumbnail_id', 30],
        ['_tribe_featured', '1'],
      ],
    ),
    wxrPost({
      id: 10,
      type: 'tribe_venue',
      title: 'Teatro Verdi',
      slug: 'teatro-verdi',
      content: 'Il teatro',
      meta: [
        ['_VenueAddress', 'Via Roma 1'],
        ['_VenueCity', 'Padova'],
        ['_VenueProvince', 'PD'],
        ['_VenueZip', '35100'],
        ['_VenueCountry', 'Italy'],
        ['_VenuePhone', '+39 049 000000'],
        ['_VenueURL', 'https://verdi.example/'],
        ['_VenueShowMap', 'true'],
        ['_VenueShowMapLink', 'false'],
        ['_thumbnail_id', 31],
      ],
    }),
    wxrPost({
      id: 20,
      type: 'tribe_organizer',
      title: 'Amici della Musica',
      slug: 'amici-musica',
      meta: [
        ['_OrganizerPhone', '049 111'],
        ['_OrganizerEmail', 'amici@musica.example'],
        ['_OrganizerWebsite', 'https://amici.example/'],
      ],
    }),
    wxrPost({ id: 21, type: 'tribe_organizer', title: 'Comune di Padova', slug: 'comune' }),
    wxrEvent(
      {
        id: 101,
        title: 'Festa di agosto',
        status: 'draft',
        slug: '',
        creator: 'ghost',
        dateGmt: '0000-00-00 00:00:00',
        date: '2026-02-02 12:00:00',
      },
      { start: '2026-08-10 00:00:00', end: '2026-08-11 23:59:59', startUtc: '2026-08-09 22:00:00', endUtc: '2026-08-11 21:59:59', ...ROME },
      [
        ['_EventAllDay', 'yes'],
        ['_EventCost', '5'],
        ['_EventCurrencySymbol', '€'],
        ['_EventCurrencyPosition', 'suffix'],
        ['_EventHideFromUpcoming', 'yes'],
        ['_EventVenueID', 0],
      ],
    ),
    ...(['pending', 'private', 'future', 'trash'] as const).map((status, index) =>
      wxrEvent(
        {
          id: 102 + index,
          title: `Evento ${status}`,
          status,
          slug: `evento-${status}`,
          // A post scheduled for later: published, it would be `publish`.
          ...(status === 'future' ? { date: '2099-01-01 10:00:00', dateGmt: '2099-01-01 09:00:00' } : {}),
          terms: [['tribe_events_cat', 'teatro', 'Teatro']],
        },
        {
          start: '2026-09-01 18:00:00',
          end: '2026-09-01 19:00:00',
          startUtc: '2026-09-01 22:00:00',
          endUtc: '2026-09-01 23:00:00',
          zone: 'America/New_York',
        },
      ),
    ),
    wxrEvent(
      { id: 106, title: 'Prova riservata', slug: 'prova', password: 'segreto' },
      {
        start: '2026-10-01 10:00:00',
        end: '2026-10-01 11:00:00',
        startUtc: '2026-10-01 10:00:00',
        endUtc: '2026-10-01 11:00:00',
        zone: 'UTC',
      },
    ),
    wxrTail,
  ].join('');
}

describe('WordPress import', () => {
  let server: TestServer;
  let admin: Credentials;
  let ann: Credentials;
  const dir = mkdtempSync(path.join(tmpdir(), 'almanac-wxr-'));
  const uploads = path.join(dir, 'uploads');
  before(async () => {
    server = await startTestServer({ SITE_TIMEZONE: 'UTC' });
    admin = await server.admin();
    ann = await server.createUser('author', 'ann');
    mkdirSync(path.join(uploads, '2026', '05'), { recursive: true });
    writeFileSync(path.join(uploads, '2026', '05', 'poster.png'), await picture(40, 30, 'png'));
    writeFileSync(path.join(uploads, '2026', '05', 'verdi.jpg'), await picture(30, 20, 'jpeg'));
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  let files = 0;
  const file = (content: string) => {
    files += 1;
    const at = path.join(dir, `${files}.xml`);
    writeFileSync(at, content);
    return at;
  };
  async function almanac(args: string[]) {
    try {
      const { stdout, stderr } = await runFile(process.execPath, [BIN, ...args], {
        env: { ...process.env, LOG_LEVEL: 'silent', DATABASE_URL: server.config.databaseUrl },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }
  const importJson = async (at: string, ...more: string[]) => {
    const run = await almanac(['import', 'wordpress', at, '--uploads', uploads, '--json', ...more]);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    return JSON.parse(run.stdout);
  };
  const list = async (route: string) => {
    const response = await server.request(`${route}?per_page=50&status=any&start_date=2000-01-01&end_date=2100-01-01`, { auth: admin });
    assert.equal(response.status, 200, response.text);
    return response.body;
  };
  const events = async () => new Map<string, any>((await list(EVENTS)).events.map((event: any) => [event.title, event]));
  const totals = async () => ({
    events: (await list(EVENTS)).total,
    venues: (await list(VENUES)).total,
    organizers: (await list(ORGANIZERS)).total,
  });
  const counts = (report: any) =>
    Object.fromEntries(['events', 'venues', 'organizers', 'images', 'categories', 'tags'].map((kind) => [kind, report[kind]]));

  it('imports every item and field, and a second run changes nothing', async () => {
    const at = file(exportText());
    const first = await importJson(at);
    assert.deepEqual(counts(first), {
      events: { created: 6, updated: 0, unchanged: 0 },
      venues: { created: 1, updated: 0, unchanged: 0 },
      organizers: { created: 2, updated: 0, unchanged: 0 },
      images: { created: 2, updated: 0, unchanged: 0 },
      categories: { created: 3, updated: 0, unchanged: 0 },
      tags: { created: 1, updated: 0, unchanged: 0 },
    });
    assert.deepEqual(first.unmatched_authors, ['ghost']);
    assert.equal(first.error_count, 0);

    const byTitle = await events();
    assert.deepEqual([...byTitle.keys()].sort(), ['Concerto jazz', 'Evento future', 'Evento pending', 'Evento private', 'Prova riservata']);
    const jazz = byTitle.get('Concerto jazz');
    assert.equal(jazz.slug, 'concerto-jazz');
    assert.equal(jazz.status, 'publish');
    assert.match(jazz.description, /Una <strong>sera<\/strong> di jazz/);
    assert.match(jazz.excerpt, /Jazz in piazza/);
    assert.equal(jazz.author, String(ann.id));
    assert.equal(jazz.date_utc, '2026-03-01 09:30:00');
    assert.equal(jazz.start_date, '2026-07-01 21:00:00');
    assert.equal(jazz.end_date, '2026-07-01 23:00:00');
    assert.equal(jazz.utc_start_date, '2026-07-01 19:00:00');
    assert.equal(jazz.utc_end_date, '2026-07-01 21:00:00');
    assert.equal(jazz.timezone, 'Europe/Rome');
    assert.equal(jazz.all_day, false);
    assert.equal(jazz.cost, '€20');
    assert.equal(jazz.website, 'https://jazz.example/');
    assert.equal(jazz.show_map, true);
    assert.equal(jazz.show_map_link, false);
    assert.equal(jazz.featured, true);
    assert.equal(jazz.hide_from_listings, false);
    assert.equal(jazz.venue.venue, 'Teatro Verdi');
    assert.deepEqual(
      jazz.organizer.map((organizer: any) => organizer.organizer),
      ['Comune di Padova', 'Amici della Musica'],
    );
    assert.deepEqual(
      jazz.categories.map((category: any) => category.slug),
      ['jazz'],
    );
    assert.deepEqual(
      jazz.tags.map((tag: any) => tag.name),
      ['All aperto'],
    );
    assert.match(jazz.image.url, /poster.*\.png$/);
    assert.doesNotMatch(jazz.image.url, /old\.example/);

    const jazzCategory = jazz.categories[0];
    const categories = (await server.request('/calendar/events/v1/categories?per_page=50&hide_empty=false')).body.categories;
    const musica = categories.find((category: any) => category.slug === 'musica');
    assert.equal(jazzCategory.parent, musica.id);
    assert.equal(musica.parent, 0);
    assert.match(musica.description, /Concerti e altro/);
    assert.equal(
      categories.find((category: any) => category.slug === 'news'),
      undefined,
    );

    // Hidden from every list: read by the id its source record gives.
    const record = await server.server.store.db
      .selectFrom('imported_items')
      .select('post_id')
      .where('item_key', '=', 'https://old.example event/101')
      .executeTakeFirstOrThrow();
    const festa = (await server.request(`${EVENTS}/${record.post_id}`, { auth: admin })).body;
    assert.equal(festa.status, 'draft');
    assert.equal(festa.all_day, true);
    assert.equal(festa.start_date, '2026-08-10 00:00:00');
    assert.equal(festa.end_date, '2026-08-11 23:59:59');
    assert.equal(festa.cost, '5€');
    assert.equal(festa.hide_from_listings, true);
    assert.equal(festa.author, String(admin.id));
    assert.equal(festa.venue.length ?? 0, 0);
    assert.deepEqual(
      ['pending', 'private', 'future'].map((status) => byTitle.get(`Evento ${status}`).status),
      ['pending', 'private', 'future'],
    );
    assert.equal(byTitle.get('Evento future').timezone, 'America/New_York');
    assert.equal(byTitle.get('Evento future').utc_start_date, '2026-09-01 22:00:00');

    const secret = byTitle.get('Prova riservata');
    const anonymous = await server.request(`${EVENTS}/${secret.id}`);
    assert.notEqual(anonymous.status, 200);
    const unlocked = await server.request(`${EVENTS}/${secret.id}?password=segreto`);
    assert.equal(unlocked.status, 200, unlocked.text);

    const venue = jazz.venue;
    assert.equal(venue.slug, 'teatro-verdi');
    assert.equal(venue.address, 'Via Roma 1');
    assert.equal(venue.city, 'Padova');
    assert.equal(venue.province, 'PD');
    assert.equal(venue.zip, '35100');
    assert.equal(venue.country, 'Italy');
    assert.equal(venue.phone, '+39 049 000000');
    assert.equal(venue.website, 'https://verdi.example/');
    assert.equal(venue.show_map, true);
    assert.equal(venue.show_map_link, false);
    assert.match(venue.image.url, /verdi.*\.jpg$/);
    const amici = jazz.organizer.find((organizer: any) => organizer.organizer === 'Amici della Musica');
    assert.equal(amici.phone, '049 111');
    assert.equal(amici.email, 'amici@musica.example');
    assert.equal(amici.website, 'https://amici.example/');
    assert.equal(amici.slug, 'amici-musica');

    const before = [...(await events()).values()].map((event) => [event.id, event.modified]);
    const beforeTotals = await totals();
    const second = await importJson(at);
    for (const kind of ['events', 'venues', 'organizers', 'images', 'categories', 'tags'] as const)
      assert.deepEqual({ kind, created: second[kind].created, updated: second[kind].updated }, { kind, created: 0, updated: 0 });
    assert.equal(second.events.unchanged, 6);
    assert.equal(second.venues.unchanged, 1);
    assert.deepEqual(
      [...(await events()).values()].map((event) => [event.id, event.modified]),
      before,
    );
    assert.deepEqual(await totals(), beforeTotals);

    // An edited export: a dry run tells, writes nothing; the run writes that one event.
    const edited = file(exportText({ title: 'Concerto jazz (nuova data)' }));
    const dry = await importJson(edited, '--dry-run');
    assert.deepEqual(dry.events, { created: 0, updated: 1, unchanged: 5 });
    assert.deepEqual(dry.images, { created: 0, updated: 0, unchanged: 2 });
    assert.equal(dry.dry_run, true);
    assert.ok((await events()).has('Concerto jazz'));
    const third = await importJson(edited);
    assert.deepEqual(third.events, { created: 0, updated: 1, unchanged: 5 });
    assert.equal((await events()).get('Concerto jazz (nuova data)').id, jazz.id);

    const text = await almanac(['import', 'wordpress', edited, '--uploads', uploads]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^events: 0 created, 0 updated, 6 unchanged; venues: 0 created, 0 updated, 1 unchanged;.* errors 0\n/);
    assert.match(text.stdout, /authors without a user here .*: ghost/);
  });

  it('fetches a featured image once, from allowed hosts only; an item refused is reported and a re-run completes the import', async () => {
    const bytes = await picture(20, 20, 'jpeg');
    // A name with a broken escape, as old sites' uploads have: kept as written, not a crash of the import.
    const FAR = '/uploads/far%E0%A4%A.jpg';
    let fetched = 0;
    const images = createServer((request, response) => {
      fetched += 1;
      response.writeHead(request.url === FAR ? 200 : 404, { 'content-type': 'image/jpeg' }).end(bytes);
    });
    images.listen(0, '127.0.0.1');
    await once(images, 'listening');
    const { port } = images.address() as AddressInfo;
    const other = (zone: string) =>
      [
        wxrHead('https://other.example'),
        wxrPost({
          id: 201,
          type: 'attachment',
          title: 'far',
          status: 'inherit',
          attachmentUrl: `http://127.0.0.1:${port}${FAR}`,
          meta: [['_wp_attached_file', '2026/06/far.jpg']],
        }),
        wxrEvent(
          { id: 200, title: 'Mostra lontana', slug: 'mostra' },
          {
            start: '2026-11-01 10:00:00',
            end: '2026-11-01 18:00:00',
            startUtc: '2026-11-01 09:00:00',
            endUtc: '2026-11-01 17:00:00',
            ...ROME,
          },
          [['_thumbnail_id', 201]],
        ),
        wxrEvent(
          { id: 202, title: 'Mostra altrove', slug: 'altrove' },
          {
            start: '2026-11-02 10:00:00',
            end: '2026-11-02 18:00:00',
            startUtc: '2026-11-02 09:00:00',
            endUtc: '2026-11-02 17:00:00',
            zone,
          },
        ),
        wxrTail,
      ].join('');
    try {
      const brokenText = other('Mars/Olympus');
      const broken = file(brokenText);
      const refused = await almanac(['import', 'wordpress', broken, '--json']);
      assert.equal(refused.code, 1, refused.stderr);
      const report = JSON.parse(refused.stdout);
      assert.deepEqual(report.events, { created: 1, updated: 0, unchanged: 0 });
      assert.deepEqual(
        report.errors.map((error: any) => [error.item, error.line]),
        [
          ['image 201', itemLine(brokenText, 201)],
          ['event 202', itemLine(brokenText, 202)],
        ],
      );
      assert.match(report.errors[0].message, /refused: .*127\.0\.0\.1/);
      assert.match(report.errors[1].message, /timezone/);
      assert.equal(fetched, 0);
      // The image not stored, the event links its address.
      assert.equal((await events()).get('Mostra lontana').image.url, `http://127.0.0.1:${port}${FAR}`);

      const fixed = file(other('Europe/Rome'));
      const completed = await importJson(fixed, '--allow-hosts', '127.0.0.1');
      assert.deepEqual(completed.images, { created: 1, updated: 0, unchanged: 0 });
      assert.deepEqual(completed.events, { created: 1, updated: 1, unchanged: 0 });
      assert.equal(fetched, 1);
      const stored = (await events()).get('Mostra lontana').image.url;
      assert.match(stored, /\/media\/.*far.*\.jpg$/);
      assert.ok(!stored.includes(`:${port}/`), stored);
      const again = await importJson(fixed, '--allow-hosts', '127.0.0.1');
      assert.deepEqual(again.events, { created: 0, updated: 0, unchanged: 2 });
      assert.deepEqual(again.images, { created: 0, updated: 0, unchanged: 1 });
      assert.equal(fetched, 1);
    } finally {
      images.close();
    }
  });

  /** The line an item of `text` opens on, found by its post id. */
  const itemLine = (text: string, id: number) => {
    const lines = text.split('\n');
    return (
      lines
        .slice(
          0,
          lines.findIndex((line) => line.includes(`<wp:post_id>${id}<`)),
        )
        .lastIndexOf('\t<item>') + 1
    );
  };

  const bad: [string, string, RegExp][] = [
    [
      'a billion laughs',
      `<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">\n <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">\n]>\n<rss><channel><wp:wxr_version>1.2</wp:wxr_version><item><title>&lol2;</title></item></channel></rss>\n`,
      /line \d+: XML with a document type declaration \(DOCTYPE\): refused/,
    ],
    [
      'an external entity',
      `<?xml version="1.0"?>\n<!DOCTYPE rss [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<rss><channel><title>&xxe;</title></channel></rss>\n`,
      /DOCTYPE\): refused/,
    ],
    ['an undeclared entity', `${wxrHead()}<item><title>&xxe;</title></item>${wxrTail}`, /not well-formed XML: undefined entity/],
    ['no XML', 'Event Name,Start\nConcerto,2026-07-01\n', /not well-formed XML/],
    ['XML that is no export', '<?xml version="1.0"?>\n<html><body>hi</body></html>\n', /not a WordPress export: the document is <html>/],
    ['an RSS feed', '<rss version="2.0"><channel><title>News</title><item><title>A</title></item></channel></rss>', /no wp:wxr_version/],
    [
      'an export without events',
      `${wxrHead()}${wxrPost({ id: 1, type: 'post', title: 'Blog' })}${wxrTail}`,
      /without The Events Calendar's events, venues or organizers/,
    ],
    ['a file cut short', exportText().slice(0, 3000), /not well-formed XML/],
  ];
  for (const [name, content, message] of bad) {
    it(`refuses ${name}: one line, exit 1, nothing written`, async () => {
      const before = await totals();
      const run = await almanac(['import', 'wordpress', file(content)]);
      assert.equal(run.code, 1);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, message);
      assert.match(run.stderr, /nothing imported\n$/);
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
      assert.deepEqual(await totals(), before);
    });
  }

  it('refuses a missing file and an uploads folder that is none', async () => {
    const missing = await almanac(['import', 'wordpress', path.join(dir, 'none.xml')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot read: ENOENT; nothing imported\n$/);
    const noFolder = await almanac(['import', 'wordpress', file(exportText()), '--uploads', path.join(dir, 'nope')]);
    assert.equal(noFolder.code, 1);
    assert.match(noFolder.stderr, /--uploads .*nope: no such folder; nothing imported\n$/);
  });
});
