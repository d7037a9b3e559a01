import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Role } from '../../src/platform/auth/capabilities.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { makeOrganizer, makeVenue, ORGANIZERS, VENUES } from './venues-organizers.factories.ts';

let server: TestServer;
const users: Partial<Record<Role, Credentials>> = {};
let admin: Credentials;

const ROLES = ['anonymous', 'subscriber', 'contributor', 'author', 'editor', 'administrator'] as const;
type Caller = (typeof ROLES)[number];

before(async () => {
  server = await startTestServer();
  admin = await server.admin();
  users.administrator = admin;
  for (const role of ['subscriber', 'contributor', 'author', 'editor'] as const) users[role] = await server.createUser(role);
});
after(async () => server.close());

const auth = (caller: Caller) => (caller === 'anonymous' ? undefined : users[caller]);

/** Expected statuses per caller, in ROLES order. */
const MATRIX: Record<string, readonly number[]> = {
  "read another's draft": [403, 403, 403, 403, 200, 200],
  "update another's published": [401, 403, 403, 403, 200, 200],
  "update another's private": [401, 403, 403, 403, 200, 200],
  "trash another's published": [401, 403, 403, 403, 200, 200],
  "force-delete another's published": [401, 403, 403, 403, 200, 200],
};

for (const [label, collection, make, nameField] of [
  ['venues', VENUES, makeVenue, 'venue'],
  ['organizers', ORGANIZERS, makeOrganizer, 'organizer'],
] as const) {
  for (const by of ['id', 'slug'] as const) {
    describe(`${label} permissions by ${by} (deviation 8: per object on slug routes too)`, () => {
      const path = (item: any) => (by === 'id' ? `${collection}/${item.id}` : `${collection}/by-slug/${item.slug}`);

      for (const [name, expected] of Object.entries(MATRIX)) {
        it(name, async () => {
          for (const [index, caller] of ROLES.entries()) {
            const status = name.includes('draft') ? 'draft' : name.includes('private') ? 'private' : 'publish';
            const item = await make(server, admin, { status });
            let response;
            if (name.startsWith('read')) response = await server.request(path(item), { auth: auth(caller) });
            else if (name.startsWith('update'))
              response = await server.request(path(item), { method: 'POST', auth: auth(caller), body: { [nameField]: 'Changed' } });
            else if (name.startsWith('trash')) response = await server.request(path(item), { method: 'DELETE', auth: auth(caller) });
            else response = await server.request(`${path(item)}?force=true`, { method: 'DELETE', auth: auth(caller) });
            assert.equal(response.status, expected[index], `${caller}: ${response.text}`);
            if (response.status === 401 || (response.status === 403 && !name.startsWith('read'))) {
              assert.equal(response.body.code, 'rest_forbidden');
              const unchanged = await server.request(`${collection}/${item.id}`, { auth: admin });
              assert.equal(unchanged.body[nameField], item[nameField], 'nothing changed');
              assert.equal(unchanged.body.status, status);
            }
          }
        });
      }

      it('own items: contributors edit and trash their drafts, not their published items; authors their published ones', async () => {
        const contributor = users.contributor as Credentials;
        const author = users.author as Credentials;
        const draft = await make(server, contributor, {});
        assert.equal(draft.status, 'draft');
        assert.equal(
          (await server.request(path(draft), { method: 'PATCH', auth: contributor, body: { [nameField]: 'Mine' } })).status,
          200,
        );
        const renamed = (await server.request(`${collection}/${draft.id}`, { auth: contributor })).body;
        assert.equal((await server.request(path(renamed), { method: 'DELETE', auth: contributor })).status, 200);
        const published = await make(server, admin, { author: contributor.id });
        assert.equal(
          (await server.request(path(published), { method: 'POST', auth: contributor, body: { [nameField]: 'X' } })).status,
          403,
        );
        assert.equal((await server.request(path(published), { method: 'DELETE', auth: contributor })).status, 403);
        const authored = await make(server, author, {});
        assert.equal(authored.status, 'publish');
        assert.equal(
          (await server.request(path(authored), { method: 'PUT', auth: author, body: { [nameField]: 'Still mine' } })).status,
          200,
        );
        const current = (await server.request(`${collection}/${authored.id}`)).body;
        assert.equal((await server.request(`${path(current)}?force=1`, { method: 'DELETE', auth: author })).status, 403);
        assert.equal((await server.request(path(current), { method: 'DELETE', auth: author })).status, 200);
        assert.equal((await server.request(path(current), { method: 'DELETE', auth: author })).status, 410);
      });

      it('only editors and above may give an item to another user', async () => {
        const author = users.author as Credentials;
        const own = await make(server, author, {});
        const denied = await server.request(path(own), { method: 'POST', auth: author, body: { author: admin.id } });
        assert.equal(denied.status, 403);
        assert.equal(denied.body.code, 'rest_forbidden');
        const given = await server.request(path(own), { method: 'POST', auth: users.editor, body: { author: admin.id } });
        assert.equal(given.body.author, String(admin.id));
      });
    });
  }

  describe(`POST ${label}`, () => {
    it('anonymous 401, subscriber 403, contributor and above 201', async () => {
      const expected = [401, 403, 201, 201, 201, 201];
      for (const [index, caller] of ROLES.entries()) {
        const response = await server.request(collection, { method: 'POST', auth: auth(caller), body: { [nameField]: `By ${caller}` } });
        assert.equal(response.status, expected[index], caller);
      }
    });

    it('lists are public; unknown ids are 400 before authorization', async () => {
      for (const caller of ROLES) assert.equal((await server.request(collection, { auth: auth(caller) })).status, 200);
      for (const caller of ROLES) {
        const response = await server.request(`${collection}/23000`, { method: 'POST', auth: auth(caller), body: { [nameField]: 'x' } });
        assert.equal(response.status, 400, caller);
      }
    });
  });
}
