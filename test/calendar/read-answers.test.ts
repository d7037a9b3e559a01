/**
 * Read answers that the reference's suite and real clients found wrong (issue 37): `_fields` on the lists that are
 * no archive of the reference (a series' instances, the change log) applies to each of their items, as on `/events`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS } from './events.factories.ts';
import { CHANGES } from './sync.client.ts';

describe('_fields on the lists of items', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  it("applies to each occurrence of a series' instances, the links and totals kept", async () => {
    const series = await server.request(EVENTS, {
      method: 'POST',
      auth: admin,
      body: { title: 'Weekly', start_date: '2031-03-03 18:00', end_date: '2031-03-03 19:00', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] },
    });
    assert.equal(series.status, 201, series.text);
    const whole = await server.request(`${EVENTS}/${series.body.id}/instances?per_page=2`);
    const picked = await server.request(`${EVENTS}/${series.body.id}/instances?per_page=2&_fields=id,start_date`);
    assert.equal(picked.status, 200, picked.text);
    assert.deepEqual(
      picked.body.events,
      whole.body.events.map(({ id, start_date }: { id: number; start_date: string }) => ({ id, start_date })),
    );
    assert.deepEqual(Object.keys(picked.body), ['events', 'rest_url', 'next_rest_url', 'total', 'total_pages']);
    assert.equal(picked.body.total, 3);
    assert.match(picked.body.next_rest_url, /_fields=id%2Cstart_date&page=2$/);
    const next = await server.request(picked.body.next_rest_url);
    assert.deepEqual(Object.keys(next.body.events[0]), ['id', 'start_date']);
  });

  it('applies to each change of a sync, the tokens kept', async () => {
    const started = await server.request(CHANGES);
    const made = await server.request(EVENTS, {
      method: 'POST',
      auth: admin,
      body: { title: 'Synced', status: 'publish', start_date: '2031-04-01 10:00', end_date: '2031-04-01 11:00' },
    });
    assert.equal(made.status, 201, made.text);
    const sync = `${CHANGES}?sync_token=${started.body.next_sync_token}`;
    const picked = await server.request(`${sync}&_fields=id,type,item.title`);
    assert.equal(picked.status, 200, picked.text);
    assert.deepEqual(picked.body.changes, [{ id: made.body.id, type: 'event', item: { title: 'Synced' } }]);
    assert.equal(typeof picked.body.next_sync_token, 'string');
    const enveloped = await server.request(`${sync}&_fields=id&_envelope`);
    assert.deepEqual(enveloped.body.body.changes, [{ id: made.body.id }]);
    assert.equal(enveloped.body.status, 200);
  });
});
