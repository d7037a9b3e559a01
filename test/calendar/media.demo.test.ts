/**
 * Images of the demo calendar (`seed --demo`: a handful of drawn posters, reused, stored once) and the time a large
 * photo takes to process (reported as a diagnostic, not asserted: the machine is shared).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { buildMediaService } from '../../src/calendar/calendar.services.ts';
import { POSTER_KINDS } from '../../src/calendar/seed/demo-images.ts';
import { seedDemoEvents } from '../../src/calendar/seed/demo-events.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { MEDIA, pathOf, raw } from './media.factories.ts';

describe('demo posters and large uploads', () => {
  let server: TestServer;
  let admin: Credentials;
  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(() => server.close());

  it('gives some demo events drawn posters, stored once and reused by later runs', async () => {
    const store = server.server.store;
    const media = buildMediaService(server.config, store);
    await seedDemoEvents(store, { events: 60, siteTimezone: 'UTC', seed: 7, media });
    await seedDemoEvents(store, { events: 20, siteTimezone: 'UTC', seed: 8, media });
    const posters = await server.request(`${MEDIA}?search=Demo%20poster&per_page=100`, { auth: admin });
    assert.equal(posters.body.length, POSTER_KINDS, 'drawn once, whatever the runs');
    for (const poster of posters.body) {
      assert.deepEqual([poster.mime_type, poster.media_details.width, poster.media_details.height], ['image/jpeg', 1200, 800]);
      assert.ok(poster.alt_text.startsWith('Poster: '), poster.alt_text);
      assert.equal((await server.request(pathOf(poster.media_details.sizes.medium.source_url))).status, 200);
    }
    const listed = await server.request('/calendar/events/v1/events?per_page=50&start_date=2000-01-01&end_date=2100-01-01', {
      auth: admin,
    });
    const withImages = listed.body.events.filter((event: { image: unknown }) => event.image !== false);
    assert.ok(
      withImages.length > 0 && withImages.length < listed.body.events.length,
      `${withImages.length} of ${listed.body.events.length}`,
    );
    const ids = new Set(posters.body.map((poster: { id: number }) => poster.id));
    for (const event of withImages) assert.ok(ids.has(event.image.id), 'a poster');
  });

  it('processes a 4000×3000 JPEG upload', async (t) => {
    // Noise, as a camera's detail is: a one-colour image would compress to almost nothing.
    const bytes = await sharp({
      create: { width: 4000, height: 3000, channels: 3, background: '#345', noise: { type: 'gaussian', mean: 120, sigma: 40 } },
    })
      .jpeg({ quality: 80 })
      .toBuffer();
    const started = performance.now();
    const uploaded = await server.request(MEDIA, { method: 'POST', auth: admin, ...raw(bytes, 'large-photo.jpg') });
    const ms = Math.round(performance.now() - started);
    t.diagnostic(`4000×3000 JPEG (${bytes.length} bytes) uploaded and processed in ${ms} ms`);
    assert.equal(uploaded.status, 201, uploaded.text);
    assert.deepEqual([uploaded.body.media_details.width, uploaded.body.media_details.height], [4000, 3000]);
    assert.deepEqual(Object.keys(uploaded.body.media_details.sizes), ['thumbnail', 'medium', 'medium_large', 'large', 'full']);
  });
});
