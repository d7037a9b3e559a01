/**
 * Event lists sent as text assembled from each event's (events.list-text.ts): the bytes are what the route's
 * response schema makes of the whole page, whether the event's text was made for this answer or kept from an
 * earlier one, and the tag (made from the events' digests) is the same for the same bytes in every process.
 * The first server caches no answers, so each of its lists is assembled anew; the second, on the same
 * database, caches them, as another process of a deployment would.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { EventListSchema } from '../../src/calendar/events/events.schemas.ts';
import { etagOf, versionOfEtag } from '../../src/platform/http/entity-tags.ts';
import type { RunningServer } from '../../src/server.ts';
import { startSecondServer, startTestServer, writeThrough, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS } from './events.factories.ts';

const TRICKY = 'Quotes " and \\ back, </script> & \u00e8\u00e9 \u{1F3B6} \u2028 tab\tend';

describe('event lists assembled from their events’ texts', () => {
  let computing: TestServer;
  let caching: RunningServer;
  let admin: Credentials;
  let series: number;
  let tricky: number;
  const reference = Fastify();

  before(async () => {
    computing = await startTestServer({ RESPONSE_CACHE_MB: '0' });
    caching = await startSecondServer(computing);
    admin = await computing.admin();
    // What the schema alone makes of a page: the bytes every answer is held to.
    reference.post('/', { schema: { response: { 200: EventListSchema } } }, async (request) => request.body);
    await reference.ready();
    const create = (fields: Record<string, unknown>) =>
      writeThrough(caching, admin, 'POST', EVENTS, {
        status: 'publish',
        start_date: '2032-05-01 20:00:00',
        end_date: '2032-05-01 22:00:00',
        ...fields,
      });
    tricky = (await create({ title: TRICKY, description: `<p>${TRICKY}</p>`, categories: ['Text kind'], tags: ['Text tag'], cost: '12' }))
      .id;
    await create({ title: 'Locked one', description: 'Only with the word', password: 'opensesame', categories: ['Text kind'] });
    await create({ title: 'All day', all_day: true, start_date: '2032-05-02', end_date: '2032-05-02', venue: { venue: 'Hall' } });
    await create({
      title: 'Led',
      organizer: [{ organizer: 'Ann "the" Host' }],
      start_date: '2032-05-03 09:00:00',
      end_date: '2032-05-03 10:00:00',
    });
    const italian = await create({ title: 'Concert', start_date: '2032-05-04 21:00:00', end_date: '2032-05-04 23:00:00' });
    await writeThrough(caching, admin, 'POST', `${EVENTS}/${italian.id}?translation_language=it`, { title: 'Concerto è' });
    series = (
      await create({
        title: 'Weekly',
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
        start_date: '2032-05-05 18:00:00',
        end_date: '2032-05-05 19:00:00',
      })
    ).id;
  });
  after(async () => {
    await reference.close();
    await caching.close();
    await computing.close();
  });

  const LISTS = [
    `${EVENTS}?start_date=2032-04-30&end_date=2032-06-30`,
    `${EVENTS}?start_date=2032-04-30&end_date=2032-06-30&per_page=2&page=2`,
    `${EVENTS}?start_date=2032-04-30&end_date=2032-06-30&translation_language=it`,
    `${EVENTS}?start_date=2032-04-30&end_date=2032-06-30&categories=text-kind`,
    `${EVENTS}?start_date=2032-04-30&end_date=2032-06-30&password=opensesame`,
    `${EVENTS}?start_date=2032-04-30&end_date=2032-06-30&search=Concert`,
  ];

  // The answers as they are, whose tags name these bytes (a compressed one has a tag of its own: compression.test.ts).
  const read = async (base: string, path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}${path}`, { headers: { 'accept-encoding': 'identity', ...headers } });
    return { status: response.status, etag: response.headers.get('etag'), text: await response.text() };
  };
  const schemaText = async (text: string) => (await reference.inject({ method: 'POST', url: '/', payload: JSON.parse(text) })).body;

  it('sends the bytes the response schema makes of the page, made anew or from kept texts, in either process', async () => {
    for (const path of [...LISTS, `${EVENTS}/${series}/instances`]) {
      const first = await read(computing.url, path);
      assert.equal(first.status, 200, `${path}: ${first.text}`);
      assert.ok(JSON.parse(first.text).events.length > 0, `${path} lists events`);
      assert.equal(first.text, await schemaText(first.text), `${path}: the schema's bytes`);
      const again = await read(computing.url, path);
      const cached = await read(caching.url, path);
      for (const other of [again, cached]) {
        assert.equal(other.text, first.text, `${path}: the same bytes`);
        assert.equal(other.etag, first.etag, `${path}: the same tag`);
      }
      const revalidated = await read(caching.url, path, { 'if-none-match': first.etag ?? '' });
      assert.equal(revalidated.status, 304, `${path}: the other process knows the tag`);
    }
  });

  it('tags a list reshaped by _fields or _envelope as sent, and an item reshaped with its version, in either process', async () => {
    for (const base of [computing.url, caching.url]) {
      const whole = await read(base, LISTS[0]!);
      const fields = await read(base, `${LISTS[0]}&_fields=id`);
      const envelope = await read(base, `${LISTS[0]}&_envelope=1`);
      assert.equal(fields.etag, etagOf(fields.text), `${base}: the bytes sent`);
      assert.equal(envelope.etag, etagOf(envelope.text), `${base}: the envelope sent`);
      const stale = await read(base, `${LISTS[0]}&_fields=id`, { 'if-none-match': whole.etag ?? '' });
      assert.equal(stale.status, 200, `${base}: the whole list's tag names other bytes`);
      assert.equal((await read(base, `${LISTS[0]}&_fields=id`, { 'if-none-match': fields.etag ?? '' })).status, 304);
      const item = await read(base, `${EVENTS}/${tricky}`);
      for (let again = 0; again < 2; again += 1) {
        const reshaped = await read(base, `${EVENTS}/${tricky}?_fields=id,title`);
        assert.equal(versionOfEtag(reshaped.etag ?? ''), versionOfEtag(item.etag ?? ''), `${base}: the item's version kept`);
        assert.notEqual(reshaped.etag, item.etag);
      }
    }
  });

  it('shows a protected event stripped, and whole only with its password', async () => {
    const locked = (text: string) => (JSON.parse(text).events as any[]).find((event) => event.title === 'Locked one');
    const plain = await read(computing.url, LISTS[0]!);
    const unlocked = await read(computing.url, `${EVENTS}?start_date=2032-04-30&end_date=2032-06-30&password=opensesame`);
    assert.equal(locked(plain.text).description, '');
    assert.match(locked(unlocked.text).description, /Only with the word/);
    assert.notEqual(plain.etag, unlocked.etag);
  });

  it('changes bytes and tag when one event on the page or a count it shows changes', async () => {
    const before = await read(computing.url, LISTS[0]!);
    const led = (JSON.parse(before.text).events as any[]).find((event) => event.title === 'Led');
    await writeThrough(caching, admin, 'POST', `${EVENTS}/${led.id}`, { title: 'Led anew' });
    const edited = await read(computing.url, LISTS[0]!);
    assert.match(edited.text, /"title":"Led anew"/);
    assert.notEqual(edited.etag, before.etag);
    assert.equal(edited.text, await schemaText(edited.text));

    // Another event joins the category: the events that show it show its new count, the rest as they were.
    const kind = (text: string) => (JSON.parse(text).events as any[]).find((event) => event.id === tricky).categories[0];
    const count = kind(edited.text).count as number;
    await writeThrough(caching, admin, 'POST', EVENTS, {
      title: 'Joins',
      status: 'publish',
      start_date: '2040-01-01 10:00:00',
      end_date: '2040-01-01 11:00:00',
      categories: ['Text kind'],
    });
    const recounted = await read(computing.url, LISTS[0]!);
    assert.equal(kind(recounted.text).count, count + 1);
    assert.notEqual(recounted.etag, edited.etag);
    assert.equal(recounted.text, await schemaText(recounted.text));
    assert.equal((await read(caching.url, LISTS[0]!)).text, recounted.text, 'the other process shows the same');
  });
});
