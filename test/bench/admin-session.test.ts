import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminSessionCookie, cookieHeaderOf, formTokenOf } from '../../bench/admin-session.ts';
import { ADMIN_LINES, scenarios } from '../../bench/scenarios.ts';
import type { Fixtures } from '../../bench/fixtures.ts';
import { makeEvent } from '../calendar/events.factories.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** Just what the scenarios read of the fixtures. */
const fixturesOf = (eventId: number) =>
  ({
    eventId,
    filter: { category: 'c', venue: 1, search: 's', startDate: '2031-01-01', endDate: '2031-02-01' },
    syncToken: 't',
    mediaFile: undefined,
    mix: { eventIds: [eventId], categories: [], venues: [] },
  }) satisfies Fixtures;

describe('the bench’s editor session', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('sends back the name=value pairs of Set-Cookie lines, attributes dropped', () => {
    assert.equal(
      cookieHeaderOf([
        'almanac_login=abc; Path=/admin; HttpOnly; SameSite=Lax',
        'almanac_lang=it; Path=/admin',
        'broken',
        'almanac_login=abc',
      ]),
      'almanac_login=abc; almanac_lang=it',
    );
    assert.equal(cookieHeaderOf([]), '');
    assert.equal(formTokenOf('<input type="hidden" name="csrf" value="t0k">'), 't0k');
    assert.equal(formTokenOf('<p>no form</p>'), undefined);
  });

  it('logs in once through the login form, and its cookie opens the pages the admin lines load', async () => {
    const cookie = await adminSessionCookie(server.url, 'admin', 'admin-password-1');
    assert.match(cookie, /^almanac_session=[^;]+$/);
    const event = await makeEvent(server, await server.admin(), { status: 'publish' });
    const lines = scenarios(server.url, fixturesOf(event.id), '', 'none', cookie).filter((line) =>
      (ADMIN_LINES as readonly string[]).includes(line.name),
    );
    assert.deepEqual(
      lines.map((line) => line.name),
      [...ADMIN_LINES],
    );
    for (const line of lines) {
      const page = await fetch(line.request.url, { headers: line.request.headers, redirect: 'manual' });
      assert.equal(page.status, line.expectedStatus, line.name);
      assert.match(await page.text(), /<h1>(Events|Edit event)<\/h1>/, line.name);
    }
    await assert.rejects(adminSessionCookie(server.url, 'admin', 'wrong-password'), /refused the bench's login \(\d+\)/);
  });

  it('reports the admin lines as unavailable without a session', () => {
    const lines = scenarios('http://127.0.0.1:1', fixturesOf(1), '', 'none').filter((line) =>
      (ADMIN_LINES as readonly string[]).includes(line.name),
    );
    assert.ok(lines.every((line) => line.unavailable !== undefined));
  });
});
