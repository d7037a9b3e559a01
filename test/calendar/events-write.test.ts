import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent } from './events.factories.ts';

describe('event writes', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer({ SITE_TIMEZONE: 'America/New_York' });
    admin = await server.admin();
  });
  after(async () => server.close());

  const create = (body: Record<string, unknown>, auth: Credentials | undefined = admin) =>
    server.request(EVENTS, {
      method: 'POST',
      body: { title: 'T', start_date: '2030-06-01 10:00', end_date: '2030-06-01 12:00', ...body },
      ...(auth ? { auth } : {}),
    });
  // Every event these tests make, of every status (the default window ends before 2030).
  const EVERY_EVENT = `${EVENTS}?status=any&start_date=2000-01-01&end_date=2100-01-01&per_page=1`;
  const update = (id: number, body: Record<string, unknown>, auth: Credentials = admin) =>
    server.request(`${EVENTS}/${id}`, { method: 'PATCH', body, auth });

  describe('create arguments', () => {
    it('requires title, start_date and end_date', async () => {
      const response = await server.request(EVENTS, { method: 'POST', auth: admin, body: {} });
      assert.equal(response.status, 400);
      assert.equal(response.body.code, 'rest_missing_callback_param');
      assert.deepEqual([...response.body.data.params].sort(), ['end_date', 'start_date', 'title']);
    });

    const invalid: [string, Record<string, unknown>][] = [
      ['title', { title: '' }],
      ['start_date', { start_date: '' }],
      ['start_date', { start_date: 'before my birthday' }],
      ['end_date', { end_date: 'foo' }],
      ['end_date', { end_date: '2030-06-01 09:00' }],
      ['author', { author: 999999 }],
      ['author', { author: 99999999999 }],
      ['image', { image: 99999999999 }],
      ['date', { date: 'foo' }],
      ['date_utc', { date_utc: 'foo' }],
      ['status', { status: 'kinda_thinking_about_it' }],
      ['timezone', { timezone: 'Mars/Olympus' }],
      ['website', { website: 'foo' }],
      ['website', { website: 'javascript:alert(1)' }],
      ['image', { image: 'foo bar' }],
      ['image', { image: 999999 }],
      ['all_day', { all_day: 'yes' }],
      ['featured', { featured: '' }],
      ['slug', { slug: '' }],
      ['translation_language', { translation_language: 'fr' }],
    ];
    for (const [param, body] of invalid) {
      it(`rejects ${JSON.stringify(body)} naming ${param}, creating nothing`, async () => {
        const before = await server.request(EVERY_EVENT, { auth: admin });
        const response = await create(body);
        assert.equal(response.status, 400, response.text);
        assert.equal(response.body.code, 'rest_invalid_param');
        assert.ok(param in response.body.data.params, JSON.stringify(response.body.data));
        const afterwards = await server.request(EVERY_EVENT, { auth: admin });
        assert.equal(afterwards.body.total, before.body.total);
      });
    }

    it('rejects the id of a normal post as image, and URLs from contributors', async () => {
      const event = await makeEvent(server, admin);
      assert.equal((await create({ image: event.id })).status, 400);
      const contributor = await server.createUser('contributor');
      const response = await create({ image: 'https://example.com/a.png' }, contributor);
      assert.equal(response.status, 400);
      assert.equal(response.body.code, 'rest_invalid_param');
    });

    it('ignores unknown and read-only keys', async () => {
      const response = await create({
        url: 'x',
        rest_url: 'y',
        utc_start_date: '2000-01-01 00:00:00',
        timezone_abbr: 'ZZZ',
        cost_details: { a: 1 },
        whatever: 1,
      });
      assert.equal(response.status, 201);
      assert.equal(response.body.utc_start_date, '2030-06-01 14:00:00');
      assert.equal(response.body.timezone_abbr, 'EDT');
    });

    it('stores every field and renders them like the reference', async () => {
      const response = await create({
        title: 'Full event',
        description: 'Event 01 description',
        excerpt: 'Event 01 excerpt',
        slug: 'My Full Event!',
        timezone: 'Europe/Rome',
        start_date: '2030-01-05 14:23:36',
        end_date: '2030-01-05 16:23:36',
        date: '2029-01-01 10:00:00',
        cost: '$23',
        website: 'http://tri.be/?a=1&b=2',
        show_map: 'true',
        show_map_link: '1',
        sticky: true,
        featured: 1,
        image: 'http://example.com/images/image.png',
        status: 'draft',
      });
      assert.equal(response.status, 201, response.text);
      const event = response.body;
      assert.equal(event.slug, 'my-full-event');
      assert.equal(event.url, `${server.url}/event/my-full-event/`);
      assert.equal(event.rest_url, `${server.url}/calendar/events/v1/events/${event.id}`);
      assert.equal(event.global_id, `127.0.0.1?id=${event.id}`);
      assert.deepEqual(event.global_id_lineage, [event.global_id]);
      assert.equal(event.description, '<p>Event 01 description</p>');
      assert.equal(event.excerpt, '<p>Event 01 excerpt</p>');
      assert.deepEqual(
        [event.start_date, event.end_date, event.utc_start_date, event.utc_end_date],
        ['2030-01-05 14:23:36', '2030-01-05 16:23:36', '2030-01-05 13:23:36', '2030-01-05 15:23:36'],
      );
      assert.deepEqual(event.start_date_details, { year: '2030', month: '01', day: '05', hour: '14', minutes: '23', seconds: '36' });
      assert.deepEqual([event.timezone, event.timezone_abbr], ['Europe/Rome', 'CET']);
      assert.deepEqual([event.date, event.date_utc], ['2029-01-01 10:00:00', '2029-01-01 15:00:00']);
      assert.equal(event.cost, '$23');
      assert.deepEqual(event.cost_details, { currency_symbol: '$', currency_code: '', currency_position: 'prefix', values: ['23'] });
      assert.equal(event.website, 'http://tri.be/?a=1&b=2');
      assert.deepEqual(
        [event.show_map, event.show_map_link, event.hide_from_listings, event.sticky, event.featured],
        [true, true, false, true, true],
      );
      assert.deepEqual(event.image, { url: 'http://example.com/images/image.png', id: event.image.id, extension: 'png' });
      assert.deepEqual([event.venue, event.organizer, event.categories, event.tags, event.custom_fields], [[], [], [], [], []]);
      assert.equal(event.status, 'draft');
      const again = await create({ image: 'http://example.com/images/image.png' });
      assert.equal(again.body.image.id, event.image.id, 'the same URL reuses its image');
      assert.equal((await create({ image: event.image.id })).body.image.id, event.image.id);
    });

    it('falls back to the permalink for website, and defaults flags to false', async () => {
      const event = (await create({})).body;
      assert.equal(event.website, event.url);
      assert.deepEqual([event.show_map, event.show_map_link, event.all_day, event.featured], [false, false, false, false]);
      assert.equal(event.timezone, 'America/New_York');
    });

    it('uniquifies slugs WordPress-style', async () => {
      const first = (await create({ title: 'Same Name' })).body;
      const second = (await create({ title: 'Same Name' })).body;
      assert.deepEqual([first.slug, second.slug], ['same-name', 'same-name-2']);
    });

    it('gives a taken title the first free suffix, beside slugs that only look alike, and fills a freed one', async () => {
      const made = [];
      for (let index = 0; index < 5; index += 1) made.push((await create({ title: 'Twin talk' })).body);
      assert.deepEqual(
        made.map((event) => event.slug),
        ['twin-talk', 'twin-talk-2', 'twin-talk-3', 'twin-talk-4', 'twin-talk-5'],
      );
      // Slugs beginning alike are not suffixes of it, and do not shift them.
      for (const slug of ['twin-talk-x', 'twin-talks', 'twin-talk-6-b', 'twin-talk-07'])
        assert.equal((await create({ title: 'Other', slug })).body.slug, slug);
      const deleted = await server.request(`${EVENTS}/${made[2].id}?force=true`, { method: 'DELETE', auth: admin });
      assert.equal(deleted.status, 200, deleted.text);
      assert.equal((await create({ title: 'Twin talk' })).body.slug, 'twin-talk-3');
      assert.equal((await create({ title: 'Twin  Talk!' })).body.slug, 'twin-talk-6');
      // Asking for a taken slug gives an event the first it may have, which may be its own.
      const kept = await update(made[1].id, { title: 'Twin talk', slug: 'twin-talk' });
      assert.equal(kept.status, 200, kept.text);
      assert.equal(kept.body.slug, 'twin-talk-2');
      assert.equal((await update(made[3].id, { slug: 'twin-talk-4' })).body.slug, 'twin-talk-4');
    });

    it('gives concurrent creates of one title each its own slug', async () => {
      const made = await Promise.all(Array.from({ length: 8 }, () => create({ title: 'Rush hour' })));
      for (const response of made) assert.equal(response.status, 201, response.text);
      const slugs = made.map((response) => response.body.slug).sort();
      assert.deepEqual(slugs, ['rush-hour', ...Array.from({ length: 7 }, (_, index) => `rush-hour-${index + 2}`)].sort());
    });

    it('answers each write of a burst on its own: the refused ones store nothing, the others everything', async () => {
      const target = (await create({ title: 'Burst target' })).body;
      const posted = (await create({ title: 'Burst posted' })).body;
      const read = await server.request(`${EVENTS}/${target.id}`, { auth: admin });
      const etag = read.headers.get('etag') as string;
      const before = await server.request(EVERY_EVENT, { auth: admin });
      // Sent at once: grouped in one commit or not (platform/db/group-commit.ts), each is answered as if alone.
      const burst = await Promise.all([
        create({ title: 'Burst one', categories: ['Burst music'] }),
        create({ title: 'Burst refused', venue: 99_999_999 }),
        create({ title: 'Burst two' }),
        server.request(`${EVENTS}/${target.id}`, {
          method: 'PATCH',
          body: { title: 'Burst stale' },
          auth: admin,
          headers: { 'if-match': '"stale"' },
        }),
        server.request(`${EVENTS}/${target.id}`, {
          method: 'PATCH',
          body: { title: 'Burst renamed' },
          auth: admin,
          headers: { 'if-match': etag },
        }),
        create({ title: 'Burst also refused', organizer: [99_999_999] }),
        create({ title: 'Burst three' }),
        // As WordPress clients send them: a form body with a bracket array, and an update by POST.
        server.request(EVENTS, {
          method: 'POST',
          auth: admin,
          form: { title: 'Burst form', start_date: '2030-06-02 10:00', end_date: '2030-06-02 11:00', 'categories[0]': 'Burst music' },
        }),
        server.request(`${EVENTS}/${posted.id}`, { method: 'POST', auth: admin, form: { title: 'Burst posted, renamed' } }),
      ]);
      assert.deepEqual(
        burst.map((response) => response.status),
        [201, 400, 201, 412, 200, 400, 201, 201, 200],
        burst.map((response) => response.text).join('\n'),
      );
      const afterwards = await server.request(EVERY_EVENT, { auth: admin });
      assert.equal(afterwards.body.total, before.body.total + 4);
      const found = await server.request(`${EVENTS}?status=any&start_date=2000-01-01&end_date=2100-01-01&search=Burst`, { auth: admin });
      assert.deepEqual(found.body.events.map((event: { title: string }) => event.title).sort(), [
        'Burst form',
        'Burst one',
        'Burst posted, renamed',
        'Burst renamed',
        'Burst three',
        'Burst two',
      ]);
      assert.deepEqual(
        burst[7]?.body.categories.map((term: { id: number }) => term.id),
        burst[0]?.body.categories.map((term: { id: number }) => term.id),
      );
      assert.deepEqual(
        burst[0]?.body.categories.map((term: { name: string }) => term.name),
        ['Burst music'],
      );
      // Each answer is the write's own, as stored (one with no category: a later link changes a category's count).
      const one = await server.request(`${EVENTS}/${burst[2]?.body.id}`, { auth: admin });
      const { json_ld: _, ...stored } = one.body;
      assert.deepEqual(stored, burst[2]?.body);
    });
  });

  describe('cost, shown as the reference shows it', () => {
    const cases: [unknown, string, Record<string, unknown>][] = [
      ['20$', '20$', { currency_symbol: '$', currency_position: 'postfix', values: ['20'] }],
      [['0$', '20$', '30$'], 'Free \u2013 30$', { currency_symbol: '$', currency_position: 'postfix', values: ['0', '20', '30'] }],
      ['€6.50 - €8.50', '€6.50 \u2013 €8.50', { currency_symbol: '€', currency_position: 'prefix', values: ['6.50', '8.50'] }],
      ['5,50 7,50', '$5,50 \u2013 $7,50', { values: ['5.50', '7.50'] }],
      ['20', '$20', { currency_symbol: '', values: ['20'] }],
      ['0', 'Free', { values: ['0'] }],
      ['Donation', 'Donation', { values: ['0'] }],
    ];
    for (const [cost, expected, details] of cases) {
      it(`renders ${JSON.stringify(cost)} as ${expected}`, async () => {
        const event = (await create({ cost })).body;
        assert.equal(event.cost, expected);
        for (const [key, value] of Object.entries(details)) assert.deepEqual(event.cost_details[key], value, key);
      });
    }

    it('removes the cost with an empty value and keeps it when omitted', async () => {
      const event = (await create({ cost: '10€' })).body;
      assert.equal((await update(event.id, { title: 'x' })).body.cost, '10€');
      const cleared = (await update(event.id, { cost: '' })).body;
      assert.deepEqual([cleared.cost, cleared.cost_details.values, cleared.cost_details.currency_symbol], ['', [], '']);
    });
  });

  describe('dates and time zones', () => {
    it('parses in the event zone, else the site zone, and keeps local and UTC together', async () => {
      const site = (await create({ start_date: '2030-06-01 10:00', end_date: '2030-06-01 11:00' })).body;
      assert.deepEqual([site.timezone, site.utc_start_date, site.timezone_abbr], ['America/New_York', '2030-06-01 14:00:00', 'EDT']);
      const tomorrow = (await create({ start_date: 'tomorrow 9am', end_date: 'tomorrow 10am', timezone: 'Europe/Rome' })).body;
      assert.match(tomorrow.start_date, / 09:00:00$/);
      const offset = (await create({ start_date: '2030-06-01T10:00:00+02:00', end_date: '2030-06-01T12:00:00Z', timezone: 'UTC' })).body;
      assert.deepEqual([offset.start_date, offset.end_date], ['2030-06-01 08:00:00', '2030-06-01 12:00:00']);
      const fixed = (await create({ start_date: '2030-06-01 10:00', end_date: '2030-06-01 11:00', timezone: 'UTC+5' })).body;
      assert.deepEqual([fixed.utc_start_date, fixed.timezone_abbr], ['2030-06-01 05:00:00', 'UTC+5']);
      const halfHour = (await create({ start_date: '2030-06-01 10:00', end_date: '2030-06-01 11:00', timezone: 'UTC-3:30' })).body;
      assert.equal(halfHour.utc_start_date, '2030-06-01 13:30:00');
    });

    it('treats numeric timestamps as instants rendered in the event zone (deviation 4)', async () => {
      const event = (await create({ start_date: 1893456000, end_date: '1893459600', timezone: 'Europe/Rome' })).body;
      assert.deepEqual(
        [event.utc_start_date, event.start_date, event.end_date],
        ['2030-01-01 00:00:00', '2030-01-01 01:00:00', '2030-01-01 02:00:00'],
      );
    });

    it('moves wall times in a DST gap forward and reads overlaps with the daylight offset', async () => {
      const romeGap = (await create({ start_date: '2030-03-31 02:30', end_date: '2030-03-31 04:00', timezone: 'Europe/Rome' })).body;
      assert.deepEqual(
        [romeGap.start_date, romeGap.utc_start_date, romeGap.timezone_abbr],
        ['2030-03-31 03:30:00', '2030-03-31 01:30:00', 'CEST'],
      );
      const romeOverlap = (await create({ start_date: '2030-10-27 02:30', end_date: '2030-10-27 04:00', timezone: 'Europe/Rome' })).body;
      assert.deepEqual(
        [romeOverlap.start_date, romeOverlap.utc_start_date, romeOverlap.timezone_abbr],
        ['2030-10-27 02:30:00', '2030-10-27 00:30:00', 'CEST'],
      );
      const nyGap = (await create({ start_date: '2030-03-10 02:30', end_date: '2030-03-10 04:00' })).body;
      assert.deepEqual([nyGap.start_date, nyGap.utc_start_date], ['2030-03-10 03:30:00', '2030-03-10 07:30:00']);
      const nyOverlap = (await create({ start_date: '2030-11-03 01:30', end_date: '2030-11-03 03:00' })).body;
      assert.deepEqual(
        [nyOverlap.start_date, nyOverlap.utc_start_date, nyOverlap.timezone_abbr],
        ['2030-11-03 01:30:00', '2030-11-03 05:30:00', 'EDT'],
      );
    });

    it('all_day covers whole days, across several days', async () => {
      const event = (await create({ start_date: '2030-06-01 10:00', end_date: '2030-06-03 09:00', all_day: true })).body;
      assert.deepEqual(
        [event.all_day, event.start_date, event.end_date, event.utc_start_date],
        [true, '2030-06-01 00:00:00', '2030-06-03 23:59:59', '2030-06-01 04:00:00'],
      );
    });

    it('rejects an end before the start (deviation 3), on create and on update', async () => {
      const event = (await create({})).body;
      const response = await update(event.id, { end_date: '2030-05-01 10:00' });
      assert.equal(response.status, 400);
      assert.ok('end_date' in response.body.data.params);
      assert.equal((await server.request(`${EVENTS}/${event.id}`)).body.end_date, event.end_date);
    });

    it('publication date: date in the site zone, date_utc in UTC, a future date makes the event future', async () => {
      const event = (await create({ date_utc: 'tomorrow 9am' })).body;
      assert.match(event.date_utc, / 09:00:00$/);
      assert.equal(event.status, 'future');
      const local = (await create({ date: '2020-02-02 09:00' })).body;
      assert.deepEqual([local.date, local.date_utc, local.status], ['2020-02-02 09:00:00', '2020-02-02 14:00:00', 'publish']);
      assert.equal(
        (await update(local.id, { date: '+1 year' })).body.status,
        'future',
        'a published event moved to a future date is scheduled',
      );
      assert.equal((await update(local.id, { date: '2020-02-02 09:00' })).body.status, 'publish');
    });
  });

  describe('partial updates (deviation 1)', () => {
    it('changes only what is sent', async () => {
      const contributor = await server.createUser('contributor');
      const editor = await server.createUser('editor');
      const original = (
        await create({
          title: 'Keep',
          cost: '5$',
          website: 'https://keep.example',
          image: 'https://img.example/k.jpg',
          featured: true,
          show_map: true,
          timezone: 'Europe/Rome',
          organizer: [{ organizer: 'Keeper', email: 'keeper@example.com' }],
          venue: { venue: 'Keep hall', address: '1' },
          categories: ['keepcat'],
          status: 'draft',
          author: contributor.id,
        })
      ).body;
      const response = await update(original.id, { title: 'Changed' }, editor);
      assert.equal(response.status, 200);
      const changed = response.body;
      for (const key of [
        'status',
        'cost',
        'cost_details',
        'website',
        'image',
        'featured',
        'show_map',
        'timezone',
        'start_date',
        'end_date',
        'organizer',
        'categories',
        'author',
        'slug',
        'date',
      ]) {
        assert.deepEqual(changed[key], original[key], key);
      }
      assert.equal(changed.venue.id, original.venue.id);
      assert.equal(changed.title, 'Changed');
    });

    it('moves one date alone and re-reads wall times when only the zone changes', async () => {
      const event = (await create({ start_date: '2030-06-01 10:00', end_date: '2030-06-01 12:00' })).body;
      const moved = (await update(event.id, { end_date: '2030-06-01 18:00' })).body;
      assert.deepEqual([moved.start_date, moved.end_date], ['2030-06-01 10:00:00', '2030-06-01 18:00:00']);
      const paris = (await update(event.id, { timezone: 'Europe/Paris' })).body;
      assert.deepEqual(
        [paris.start_date, paris.utc_start_date, paris.timezone],
        ['2030-06-01 10:00:00', '2030-06-01 08:00:00', 'Europe/Paris'],
      );
    });

    it('unlinks a venue and organizers only when asked (deviation 2)', async () => {
      const event = (await create({ venue: { venue: 'Linked hall', address: 'x' }, organizer: [{ organizer: 'Linked org' }] })).body;
      for (const empty of [0, '', null, []]) {
        const relinked = (await update(event.id, { venue: event.venue.id })).body;
        assert.equal(relinked.venue.id, event.venue.id);
        const unlinked = await update(event.id, { venue: empty });
        assert.equal(unlinked.status, 200, JSON.stringify(empty));
        assert.deepEqual(unlinked.body.venue, [], JSON.stringify(empty));
      }
      assert.equal((await update(event.id, { title: 'still' })).body.organizer.length, 1);
      assert.deepEqual((await update(event.id, { organizer: [] })).body.organizer, []);
    });

    it('links organizers from a CSV string in order, and refuses several venues', async () => {
      const one = (await create({ organizer: [{ organizer: 'First org' }] })).body.organizer[0].id;
      const two = (await create({ organizer: [{ organizer: 'Second org' }] })).body.organizer[0].id;
      const event = (await create({ organizer: `${two},${one}` })).body;
      assert.deepEqual(
        event.organizer.map((organizer: any) => organizer.id),
        [two, one],
      );
      const venueA = (await create({ venue: { venue: 'A hall', address: 'a' } })).body.venue.id;
      const venueB = (await create({ venue: { venue: 'B hall', address: 'b' } })).body.venue.id;
      const response = await create({ venue: [venueA, venueB] });
      assert.equal(response.status, 400);
      assert.equal((await create({ venue: { id: venueA } })).body.venue.id, venueA);
    });

    it('creating terms inline needs the right to create them', async () => {
      const contributor = await server.createUser('contributor');
      const author = await server.createUser('author');
      const refused = await create({ categories: ['Brand new category'] }, contributor);
      assert.deepEqual([refused.status, refused.body.code], [403, 'rest_forbidden']);
      assert.equal((await create({ categories: ['Brand new category'] }, author)).status, 201);
      assert.equal((await create({ tags: ['brand-new-tag'] }, author)).status, 403);
      assert.equal((await create({ categories: ['Brand new category'] }, contributor)).status, 201, 'existing terms may be assigned');
      const event = (await create({ categories: 'Brand new category', tags: 'x1,x2' })).body;
      assert.deepEqual(
        event.tags.map((tag: any) => tag.name),
        ['x1', 'x2'],
      );
      assert.deepEqual((await update(event.id, { tags: '' })).body.tags, []);
    });

    it('accepts form-encoded bodies and query parameters', async () => {
      const form = await server.request(EVENTS, {
        method: 'POST',
        auth: admin,
        form: {
          title: 'Form event',
          start_date: '2030-06-01 10:00',
          end_date: '2030-06-01 11:00',
          featured: '1',
          tags: 'formtag,formtag2',
        },
      });
      assert.equal(form.status, 201, form.text);
      assert.equal(form.body.featured, true);
      assert.deepEqual(
        form.body.tags.map((tag: any) => tag.name),
        ['formtag', 'formtag2'],
      );
      const query = await server.request(`${EVENTS}/${form.body.id}?title=From%20query`, { method: 'POST', auth: admin });
      assert.equal(query.body.title, 'From query');
    });
  });

  describe('hostile input', () => {
    it('stores HTML and SQL harmlessly and never answers 5xx', async () => {
      const html = (
        await create({
          title: '<script>alert(1)</script>Nice<img src=x onerror=alert(1)>',
          description: '<p onclick="evil()">Hi</p><script>alert(1)</script><a href="javascript:alert(1)">link</a><iframe src="x"></iframe>',
        })
      ).body;
      assert.equal(html.title, 'Nice');
      assert.doesNotMatch(html.description, /script|onclick|javascript|iframe/);
      const sql = (await create({ title: "Robert'); DROP TABLE events;--", excerpt: "' OR 1=1 --" })).body;
      assert.equal(sql.title, "Robert'); DROP TABLE events;--");
      assert.equal((await server.request(`${EVENTS}/${sql.id}`)).status, 200);
      const long = await create({ title: 'x'.repeat(10 * 1024), description: 'y'.repeat(100 * 1024) });
      assert.equal(long.status, 201);
      assert.equal(long.body.title.length, 10 * 1024);
      assert.equal(long.body.slug.length <= 190, true);
      // Incompressible text longer than any index entry PostgreSQL accepts.
      const random = await create({ title: randomBytes(6000).toString('base64'), description: randomBytes(30_000).toString('base64') });
      assert.equal(random.status, 201);
    });

    it('rejects invalid UTF-8, wrong types and absurd values with 4xx', async () => {
      const bad = Buffer.concat([
        Buffer.from('{"title":"'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('","start_date":"tomorrow","end_date":"tomorrow 1am"}'),
      ]);
      const raw = await fetch(`${server.url}${EVENTS}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: admin.bearer },
        body: bad,
      });
      assert.ok(raw.status < 500, String(raw.status));
      for (const body of [
        { title: ['a', 'b'] },
        { title: { a: 1 } },
        { start_date: '9'.repeat(500) },
        { start_date: -99999999999999 },
        { all_day: 2 },
        { cost: { nested: true } },
        { venue: { id: 'x' } },
        { organizer: [{ nope: 1 }] },
        { image: ['x'] },
      ]) {
        const response = await create(body);
        assert.ok(response.status >= 400 && response.status < 500, `${JSON.stringify(body).slice(0, 60)} → ${response.status}`);
      }
      for (const body of [
        { title: 'a\u0000b' },
        { description: '\u0000' },
        { website: 'http://a.example/\u0000' },
        { image: 'http://a.example/\u0000.png' },
        { cost: 'x\u0000' },
      ]) {
        const response = await create(body);
        assert.equal(response.status, 400, JSON.stringify(body));
      }
      assert.equal((await server.request(`${EVENTS}?search=a%00b`)).status, 400);
      assert.equal((await server.request(`${EVENTS}/by-slug/a%00b`)).status, 400);
      const notJson = await server.request(EVENTS, {
        method: 'POST',
        auth: admin,
        body: '{"title":',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(notJson.body.code, 'rest_invalid_json');
    });
  });
});
