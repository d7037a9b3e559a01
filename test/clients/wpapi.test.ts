/**
 * The calendar driven by `wpapi` (node-wpapi), a WordPress REST client nobody
 * here wrote: it discovers the API from the site's Link header and the root
 * index's `routes`, builds its handlers from them, pages with `_paging` (read
 * from X-WP-Total/X-WP-TotalPages and Link rel next/prev) and writes with
 * Basic or Bearer authentication (issue 18).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import WPAPI from 'wpapi';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';

const NAMESPACE = 'calendar/events/v1';

describe('wpapi against the calendar', () => {
  let server: TestServer;
  let admin: Credentials;
  let editor: Credentials;
  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
    editor = await server.createUser('editor');
  });
  after(async () => server.close());

  /** A fresh client from discovery, as wpapi's README starts. */
  const discover = async () => (await WPAPI.discover(`${server.url}/`)) as any;

  it('discovers the calendar namespace and builds a handler for each collection', async () => {
    const calendar = (await discover()).namespace(NAMESPACE);
    for (const collection of ['events', 'venues', 'organizers', 'categories', 'tags']) {
      assert.equal(typeof calendar[collection], 'function', collection);
    }
    assert.match(calendar.events().id(7).toString(), /\/calendar\/events\/v1\/events\/7$/);
  });

  it('pages through events with _paging (total, totalPages, next, prev)', async () => {
    const site = await discover();
    site.setHeaders('Authorization', admin.bearer);
    const calendar = site.namespace(NAMESPACE);
    const created: number[] = [];
    for (let day = 1; day <= 5; day += 1) {
      const event = await calendar
        .events()
        .create({ title: `Paged ${day}`, start_date: `2031-05-0${day} 10:00`, end_date: `2031-05-0${day} 11:00` });
      created.push(event.id);
    }
    const window = { start_date: '2031-05-01', end_date: '2031-05-31' };
    const first = await calendar.events().perPage(2).param(window);
    assert.equal(first._paging.total, 5);
    assert.equal(first._paging.totalPages, 3);
    assert.equal(first._paging.prev, undefined);
    const second = await first._paging.next;
    assert.ok(second._paging.prev, 'page 2 links back');
    const third = await second._paging.next;
    assert.equal(third._paging.next, undefined, 'the last page has no next');
    const seen = [first, second, third].flatMap((page) => page.events.map((event: { id: number }) => event.id));
    assert.deepEqual(seen, created);
    const back = await third._paging.prev;
    assert.deepEqual(
      back.events.map((event: { id: number }) => event.id),
      created.slice(2, 4),
    );
  });

  it('creates, reads, updates and deletes with Basic authentication', async () => {
    const site = await discover();
    site.auth({ username: editor.username, password: editor.password });
    const calendar = site.namespace(NAMESPACE);
    const venue = await calendar.venues().create({ venue: 'wpapi Hall', city: 'Rome' });
    const event = await calendar.events().create({
      title: 'wpapi concert',
      start_date: '2031-06-01 20:00',
      end_date: '2031-06-01 22:00',
      venue: venue.id,
      categories: ['music'],
      cost: ['10', '25'],
    });
    assert.equal(event.venue.id, venue.id);
    assert.deepEqual(
      event.categories.map((category: { slug: string }) => category.slug),
      ['music'],
    );
    assert.deepEqual(event.cost_details.values, ['10', '25']);

    const read = await calendar.events().id(event.id);
    assert.equal(read.title, 'wpapi concert');

    const updated = await calendar.events().id(event.id).update({ title: 'wpapi concert, moved' });
    assert.equal(updated.title, 'wpapi concert, moved');
    assert.equal(updated.venue.id, venue.id, 'a partial update keeps the venue');

    const trashed = await calendar.events().id(event.id).delete();
    assert.equal(trashed.status, 'trash');
    await calendar.events().id(event.id).param('force', true).delete();
    await assert.rejects(
      calendar.events().id(event.id).get(),
      (error: any) => error.code === 'rest-event-not-found' && error.data?.status === 404,
    );
  });

  it('writes with a Bearer token set as a header, and is refused without one', async () => {
    const site = await discover();
    const calendar = site.namespace(NAMESPACE);
    await assert.rejects(calendar.organizers().create({ organizer: 'Nobody' }), (error: any) => error.data?.status === 401);

    site.setHeaders('Authorization', editor.bearer);
    const organizer = await calendar.organizers().create({ organizer: 'wpapi Promoter', email: 'promoter@example.org' });
    const renamed = await calendar.organizers().id(organizer.id).update({ organizer: 'wpapi Promoters' });
    assert.equal(renamed.organizer, 'wpapi Promoters');
    const tag = await calendar.tags().create({ name: 'wpapi-tag' });
    const tags = await calendar.tags().param({ search: 'wpapi', hide_empty: false });
    assert.deepEqual(
      tags.tags.map((item: { id: number }) => item.id),
      [tag.id],
    );
    const deleted = await calendar.tags().id(tag.id).param('force', true).delete();
    assert.equal(deleted.id, tag.id);
  });

  it('uploads an image with .media().file().create(), as WordPress sites are sent posters, and sets it on an event', async () => {
    const site = await discover();
    site.setHeaders('Authorization', editor.bearer);
    const poster = await sharp({ create: { width: 600, height: 400, channels: 3, background: '#936' } })
      .jpeg()
      .toBuffer();
    const media = await site.media().file(poster, 'wpapi-poster.jpg').create({ title: 'wpapi poster', alt_text: 'A poster' });
    assert.equal(media.title.rendered, 'wpapi poster');
    assert.equal(media.alt_text, 'A poster');
    assert.equal(media.media_details.sizes.medium.width, 300);
    const event = await site
      .namespace(NAMESPACE)
      .events()
      .create({ title: 'With a poster', start_date: '2031-06-02 20:00', end_date: '2031-06-02 22:00', image: media.id });
    assert.equal(event.image.url, media.source_url);
    const listed = await site.media().search('wpapi poster');
    assert.deepEqual(
      listed.map((item: { id: number }) => item.id),
      [media.id],
    );
    await site.media().id(media.id).param('force', true).delete();
  });
});
