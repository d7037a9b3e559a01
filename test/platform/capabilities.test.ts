import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify, { type FastifyRequest } from 'fastify';
import { CAPABILITY_SETS } from '../../src/app.ts';
import { accessPlugin } from '../../src/platform/auth/access.plugin.ts';
import type { Authenticator } from '../../src/platform/auth/authenticate.ts';
import { CapabilityRegistry, defineCapabilities, ROLES, type Role } from '../../src/platform/auth/capabilities.ts';

/** Who holds each capability, as the single role table had it before surfaces declared their own. */
const EXPECTED: Record<string, readonly Role[]> = {
  read: ['administrator', 'editor', 'author', 'contributor', 'subscriber'],
  read_private: ['administrator', 'editor'],
  edit: ['administrator', 'editor', 'author', 'contributor'],
  edit_others: ['administrator', 'editor'],
  edit_private: ['administrator', 'editor'],
  edit_published: ['administrator', 'editor', 'author'],
  delete: ['administrator', 'editor', 'author', 'contributor'],
  delete_others: ['administrator', 'editor'],
  delete_private: ['administrator', 'editor'],
  delete_published: ['administrator', 'editor', 'author'],
  publish: ['administrator', 'editor', 'author'],
  upload_files: ['administrator', 'editor', 'author'],
  manage_categories: ['administrator', 'editor', 'author'],
  manage_tags: ['administrator', 'editor'],
  manage_webhooks: ['administrator'],
  manage_options: ['administrator'],
  entities_read: ['administrator', 'editor', 'author', 'contributor', 'subscriber'],
  entities_write: ['administrator', 'editor'],
  actions_reload: ['administrator'],
  soap_pings_read: ['administrator'],
  users_manage: ['administrator'],
};

/** An app with only the access plugin and one route declaring `access`. */
async function appWithRoute(registry: CapabilityRegistry, access: string) {
  const app = Fastify();
  await app.register(accessPlugin, { authenticator: {} as Authenticator, capabilities: registry, publicPrefixes: [] });
  app.get('/guarded', { config: { access: access as never } }, async () => ({}));
  return app;
}

describe('capabilities', () => {
  it('grants every role what the role table granted, from the sets the surfaces register', () => {
    const registry = new CapabilityRegistry(CAPABILITY_SETS);
    const registered = CAPABILITY_SETS.flatMap((set) => [...set.grants.keys()]);
    assert.deepEqual([...registered].sort(), Object.keys(EXPECTED).sort());
    for (const [capability, roles] of Object.entries(EXPECTED)) {
      assert.deepEqual(
        ROLES.filter((role) => registry.can(role, capability)),
        roles,
        capability,
      );
      assert.equal(registry.can(null, capability), false, `anonymous holds ${capability}`);
    }
  });

  it("answers a surface's own checks as the registry does", () => {
    const registry = new CapabilityRegistry(CAPABILITY_SETS);
    for (const set of CAPABILITY_SETS) {
      for (const capability of set.grants.keys()) {
        for (const role of [...ROLES, null]) {
          assert.equal((set.can as (role: Role | null, capability: string) => boolean)(role, capability), registry.can(role, capability));
        }
      }
    }
  });

  it('refuses a capability two surfaces register', () => {
    const one = defineCapabilities({ shared: ['administrator'] });
    const other = defineCapabilities({ shared: ['administrator', 'editor'] });
    assert.throws(() => new CapabilityRegistry([one, other]), /Capability 'shared' is registered twice/);
  });

  it('treats asking about an unregistered capability as a programming error', () => {
    assert.throws(() => new CapabilityRegistry(CAPABILITY_SETS).can('administrator', 'no_such_capability'), /not registered/);
  });

  it('refuses to start when a route declares a capability no surface registered', async () => {
    const registry = new CapabilityRegistry([defineCapabilities({ known: ['administrator'] })]);
    await assert.rejects(appWithRoute(registry, 'unknown'), /GET \/guarded declares no access/);
  });

  it('starts when every route declares a registered capability or public', async () => {
    const registry = new CapabilityRegistry([defineCapabilities({ known: ['administrator'] })]);
    for (const access of ['known', 'public']) {
      const app = await appWithRoute(registry, access);
      await app.ready();
      await app.close();
    }
  });

  it("resolves a route's named items before its capability: a missing one is reported to anyone, an existing one needs the capability", async () => {
    const registry = new CapabilityRegistry([defineCapabilities({ known: ['administrator'] })]);
    const app = Fastify();
    await app.register(accessPlugin, { authenticator: {} as Authenticator, capabilities: registry, publicPrefixes: [] });
    const resolved: string[] = [];
    const resolveFirst = async (request: FastifyRequest) => {
      const { id } = request.params as { id: string };
      resolved.push(id);
      if (id !== '1') throw Object.assign(new Error(`No item ${id}`), { statusCode: 400 });
    };
    app.get('/items/:id', { config: { access: 'known' as never, resolveFirst } }, async () => ({}));
    const missing = await app.inject({ url: '/items/2' });
    assert.equal(missing.statusCode, 400);
    assert.match(missing.json<{ message: string }>().message, /No item 2/);
    const existing = await app.inject({ url: '/items/1' });
    assert.equal(existing.statusCode, 401);
    assert.deepEqual(resolved, ['2', '1']);
    await app.close();
  });

  it('refuses to start when a public route asks for a resolve-first step (no check would follow it)', async () => {
    const registry = new CapabilityRegistry([defineCapabilities({ known: ['administrator'] })]);
    await assert.rejects(async () => {
      const app = Fastify();
      await app.register(accessPlugin, { authenticator: {} as Authenticator, capabilities: registry, publicPrefixes: [] });
      app.get('/open', { config: { access: 'public', resolveFirst: async () => {} } }, async () => ({}));
    }, /GET \/open is public: nothing to resolve first/);
  });
});
