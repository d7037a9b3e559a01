import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS } from './events.factories.ts';
import { ORGANIZERS, VENUES } from './venues-organizers.factories.ts';

/** Rules every post type shares since the posts core (issue 20): the same answer for events, venues and organizers. */
describe('rules shared by every post type', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  const kinds: { collection: string; fields: Record<string, string> }[] = [
    { collection: EVENTS, fields: { title: 'Shared rules', start_date: '2031-03-01 10:00', end_date: '2031-03-01 11:00' } },
    { collection: VENUES, fields: { venue: 'Shared rules hall' } },
    { collection: ORGANIZERS, fields: { organizer: 'Shared rules org' } },
  ];

  it('reads the status list argument in any case, repeats once, for anonymous callers too', async () => {
    for (const { collection } of kinds) {
      const asked = await server.request(`${collection}?status[]=PUBLISH&status[]=publish&start_date=2000-01-01`);
      assert.equal(asked.status, 200, `${collection}: ${asked.text}`);
      const refused = await server.request(`${collection}?status=draft`);
      assert.equal(refused.status, 400, collection);
      assert.deepEqual(Object.keys(refused.body.data.params), ['status'], collection);
    }
  });

  it('takes the publication date from date_utc when a form sends both date and date_utc, and refuses a date that is no date', async () => {
    for (const { collection, fields } of kinds) {
      const form = { ...fields, date: '2020-01-01 08:00:00', date_utc: '2021-06-01 10:00:00' };
      const created = await server.request(collection, { method: 'POST', auth: admin, form });
      assert.equal(created.status, 201, `${collection}: ${created.text}`);
      assert.equal(created.body.date_utc, '2021-06-01 10:00:00', collection);
      assert.notEqual(created.body.date, '2020-01-01 08:00:00', collection);
      const refused = await server.request(collection, { method: 'POST', auth: admin, form: { ...form, date: 'not a date' } });
      assert.equal(refused.status, 400, collection);
      assert.deepEqual(Object.keys(refused.body.data.params), ['date'], collection);
    }
  });
});
