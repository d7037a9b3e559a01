/**
 * The media library against hostile uploads (docs/media.md): what is not an image of an accepted type (SVG with a
 * script, HTML), decompression bombs, truncated files, bodies over MEDIA_MAX_BYTES and file names that climb out of
 * their folder are each a 4xx that stores nothing; what is stored is encoded anew, without metadata or anything
 * appended. Then two processes, and a directory as the store.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { loadConfig } from '../../src/config/config.ts';
import { startSecondServer, startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { blob, jpeg, MEDIA, pathOf, picture, raw } from './media.factories.ts';

const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(document.cookie)</script><rect width="10" height="10"/></svg>';

describe('media library under hostile uploads', () => {
  let server: TestServer;
  let author: Credentials;
  before(async () => {
    server = await startTestServer();
    author = await server.createUser('author');
  });
  after(() => server.close());

  /** How many uploads and stored files there are: a refused upload leaves both as they were. */
  async function stored(): Promise<[number, number]> {
    const db = server.server.store.db;
    const images = await db
      .selectFrom('images')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('file', 'is not', null)
      .executeTakeFirstOrThrow();
    const files = await db
      .selectFrom('media_files')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    return [Number(images.n), Number(files.n)];
  }

  async function refused(
    name: string,
    options: { body: Buffer | FormData | string; headers?: Record<string, string> },
    status: number,
    code?: string,
  ) {
    const before = await stored();
    const answer = await server.request(MEDIA, { method: 'POST', auth: author, ...options });
    assert.equal(answer.status, status, `${name}: ${answer.text}`);
    if (code !== undefined) assert.equal(answer.body.code, code, name);
    assert.deepEqual(await stored(), before, `${name} stored nothing`);
    return answer;
  }

  it('refuses SVG (scripts), HTML and other types, whatever the Content-Type says', async () => {
    const svg = await refused('svg', raw(Buffer.from(SVG), 'logo.svg', 'image/svg+xml'), 400, 'rest_upload_invalid_type');
    assert.match(svg.body.message, /image\/jpeg/);
    await refused('svg named jpg', raw(Buffer.from(SVG), 'logo.jpg'), 400, 'rest_upload_invalid_type');
    const htmlFirst = Buffer.concat([Buffer.from('<html><script>alert(1)</script>'), await jpeg(10, 10)]);
    await refused('html then jpeg', raw(htmlFirst, 'poly.jpg'), 400, 'rest_upload_invalid_type');
    await refused('text', raw(Buffer.from('hello'), 'a.txt', 'text/plain'), 400, 'rest_upload_invalid_type');
  });

  it('stores a JPEG/HTML polyglot as the image alone, encoded anew', async () => {
    const polyglot = Buffer.concat([
      await jpeg(300, 200),
      Buffer.from('<html><body><script>alert(document.cookie)</script></body></html>'),
    ]);
    const answer = await server.request(MEDIA, { method: 'POST', auth: author, ...raw(polyglot, 'poly.jpg') });
    assert.equal(answer.status, 201, answer.text);
    for (const size of Object.values<any>(answer.body.media_details.sizes)) {
      const bytes = Buffer.from(await (await fetch(size.source_url)).arrayBuffer());
      assert.equal(bytes.includes('<script'), false, size.file);
      assert.equal(bytes.subarray(0, 3).toString('hex'), 'ffd8ff');
    }
  });

  it('strips EXIF and GPS from every stored file, after turning the image as its orientation says', async () => {
    const photo = await sharp({ create: { width: 400, height: 200, channels: 3, background: '#468' } })
      .jpeg()
      .withExif({
        IFD0: { Make: 'PhoneCo', Model: 'Snap 9' },
        IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '45/1 27/1 0/1', GPSLongitudeRef: 'E', GPSLongitude: '9/1 11/1 0/1' },
      })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const before = await sharp(photo).metadata();
    assert.ok(before.exif !== undefined && before.exif.includes('PhoneCo'), 'the fixture carries EXIF');
    assert.equal(before.orientation, 6);
    const answer = await server.request(MEDIA, { method: 'POST', auth: author, ...raw(photo, 'IMG_0001.jpg') });
    assert.equal(answer.status, 201, answer.text);
    assert.deepEqual([answer.body.media_details.width, answer.body.media_details.height], [200, 400], 'turned upright');
    for (const size of Object.values<any>(answer.body.media_details.sizes)) {
      const bytes = Buffer.from(await (await fetch(size.source_url)).arrayBuffer());
      const meta = await sharp(bytes).metadata();
      assert.equal(meta.exif, undefined, `${size.file} has no EXIF`);
      assert.equal(meta.orientation, undefined, size.file);
      assert.equal(bytes.includes('PhoneCo'), false, size.file);
      assert.deepEqual([meta.width, meta.height], [size.width, size.height]);
    }
  });

  it('cuts the metadata out of an upright JPEG, its image data kept as sent, and everything after its end', async () => {
    const photo = await sharp({
      create: { width: 400, height: 200, channels: 3, background: '#468', noise: { type: 'gaussian', mean: 128, sigma: 30 } },
    })
      .jpeg()
      .withExif({
        IFD0: { Make: 'PhoneCo', Model: 'Snap 9' },
        IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '45/1 27/1 0/1', GPSLongitudeRef: 'E', GPSLongitude: '9/1 11/1 0/1' },
      })
      .toBuffer();
    const text = Buffer.from('<html><script>alert(document.cookie)</script></html>');
    const comment = Buffer.concat([Buffer.from([0xff, 0xfe, 0, text.length + 2]), text]);
    // A comment after the start of the image, and HTML after its end: both are gone.
    const upload = Buffer.concat([photo.subarray(0, 2), comment, photo.subarray(2), text]);
    assert.equal((await sharp(upload).metadata()).orientation ?? 1, 1, 'the fixture is upright');
    const answer = await server.request(MEDIA, { method: 'POST', auth: author, ...raw(upload, 'upright.jpg') });
    assert.equal(answer.status, 201, answer.text);
    for (const size of Object.values<any>(answer.body.media_details.sizes)) {
      const bytes = Buffer.from(await (await fetch(size.source_url)).arrayBuffer());
      const meta = await sharp(bytes).metadata();
      assert.equal(meta.exif, undefined, `${size.file} has no EXIF`);
      for (const text of ['PhoneCo', '<script', 'GPS']) assert.equal(bytes.includes(text), false, `${size.file} holds no ${text}`);
      assert.equal(bytes.subarray(-2).toString('hex'), 'ffd9', `${size.file} ends with its image`);
      assert.deepEqual([meta.width, meta.height], [size.width, size.height]);
    }
    const full = Buffer.from(await (await fetch(answer.body.source_url)).arrayBuffer());
    assert.equal(answer.body.media_details.filesize, full.length);
    assert.ok((await sharp(full).raw().toBuffer()).equals(await sharp(photo).raw().toBuffer()), 'the same pixels, not encoded anew');
  });

  it('refuses a decompression bomb from its header, and a truncated or corrupt file', async () => {
    const png = await picture(64, 64, 'png', '#fff');
    const bomb = Buffer.from(png);
    bomb.writeUInt32BE(100_000, 16);
    bomb.writeUInt32BE(100_000, 20);
    const answer = await refused('bomb', raw(bomb, 'bomb.png', 'image/png'), 400, 'rest_upload_too_many_pixels');
    assert.match(answer.body.message, /pixels/);
    await refused(
      'truncated png',
      raw(png.subarray(0, Math.floor(png.length / 2)), 'cut.png', 'image/png'),
      400,
      'rest_upload_invalid_image',
    );
    const photo = await jpeg(300, 300);
    await refused('truncated jpeg', raw(photo.subarray(0, Math.floor(photo.length / 2)), 'cut.jpg'), 400, 'rest_upload_invalid_image');
    // Cut short but ended as a whole JPEG ends, too small for any size: decoded all the same, and refused.
    const small = await sharp({
      create: { width: 100, height: 100, channels: 3, background: '#468', noise: { type: 'gaussian', mean: 128, sigma: 30 } },
    })
      .jpeg()
      .toBuffer();
    const ended = Buffer.concat([small.subarray(0, Math.floor(small.length / 2)), Buffer.from([0xff, 0xd9])]);
    await refused('truncated jpeg with its end marker', raw(ended, 'cut-small.jpg'), 400, 'rest_upload_invalid_image');
    await refused('signature only', raw(png.subarray(0, 12), 'sig.png', 'image/png'), 400, 'rest_upload_invalid_image');
  });

  it('refuses a body over MEDIA_MAX_BYTES with a 413, raw or multipart', async () => {
    const huge = Buffer.alloc(server.config.mediaMaxBytes + 1, 0xff);
    await refused('raw', raw(huge, 'huge.jpg'), 413, 'rest_payload_too_large');
    const form = new FormData();
    form.append('file', blob(huge), 'huge.jpg');
    await refused('multipart', { body: form }, 413, 'rest_payload_too_large');
  });

  it('refuses file names that climb out of their folder or hide a NUL, and uploads with no file or no name', async () => {
    const bytes = await jpeg(10, 10);
    const climbing = await refused('../', raw(bytes, '../../etc/passwd.jpg'), 400, 'rest_upload_invalid_disposition');
    assert.match(climbing.body.message, /path/);
    const encoded = {
      body: bytes,
      headers: { 'content-type': 'image/jpeg', 'content-disposition': "attachment; filename*=UTF-8''..%2F..%2Fx.jpg" },
    };
    await refused('encoded ../', encoded, 400, 'rest_upload_invalid_disposition');
    const nul = { body: bytes, headers: { 'content-type': 'image/jpeg', 'content-disposition': "attachment; filename*=UTF-8''a%00b.jpg" } };
    const answer = await refused('NUL', nul, 400, 'rest_upload_invalid_disposition');
    assert.match(answer.body.message, /NUL/);
    await refused('backslash', raw(bytes, 'a\\\\b.jpg'), 400, 'rest_upload_invalid_disposition');
    await refused('no disposition', { body: bytes, headers: { 'content-type': 'image/jpeg' } }, 400, 'rest_upload_no_content_disposition');
    await refused(
      'no filename',
      { body: bytes, headers: { 'content-type': 'image/jpeg', 'content-disposition': 'attachment' } },
      400,
      'rest_upload_invalid_disposition',
    );
    await refused('empty', raw(Buffer.alloc(0), 'empty.jpg'), 400, 'rest_upload_no_data');
    const noFile = new FormData();
    noFile.append('title', 'nothing');
    await refused('multipart without file', { body: noFile }, 400, 'rest_upload_no_data');
    const badPost = new FormData();
    badPost.append('post', '999999');
    badPost.append('file', blob(bytes), 'x.jpg');
    await refused('post that does not exist', { body: badPost }, 400, 'rest_invalid_param');
    const form = (body: string) => ({ body, headers: { 'content-type': 'multipart/form-data; boundary=x' } });
    const cut = await refused(
      'multipart cut short',
      form('--x\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\n\r\nxx'),
      400,
    );
    assert.equal(cut.body.code, 'rest_upload_no_data');
    assert.match(cut.body.message, /malformed/);
    await refused('no form at all', form('\u0000 not a form'), 400, 'rest_upload_no_data');
  });

  it('keeps a multipart file name to its last part, as a slug', async () => {
    const form = new FormData();
    form.append('file', blob(await jpeg(10, 10)), '../../Été à Paris.jpg');
    const answer = await server.request(MEDIA, { method: 'POST', auth: author, body: form });
    assert.equal(answer.status, 201, answer.text);
    assert.match(answer.body.media_details.file, /^\d{4}\/\d{2}\/ete-a-paris\.jpg$/);
  });

  it('makes the sizes of an animation from its first frame', async () => {
    const frames = await Promise.all(
      ['#f00', '#0f0', '#00f'].map((colour) =>
        sharp({ create: { width: 320, height: 240, channels: 3, background: colour } })
          .png()
          .toBuffer(),
      ),
    );
    const gif = await sharp(frames, { join: { animated: true } })
      .gif()
      .toBuffer();
    assert.equal((await sharp(gif).metadata()).pages, 3);
    const answer = await server.request(MEDIA, { method: 'POST', auth: author, ...raw(gif, 'anim.gif', 'image/gif') });
    assert.equal(answer.status, 201, answer.text);
    assert.deepEqual([answer.body.media_details.width, answer.body.media_details.height], [320, 240]);
    const thumbnail = answer.body.media_details.sizes.thumbnail;
    const bytes = Buffer.from(await (await fetch(thumbnail.source_url)).arrayBuffer());
    const meta = await sharp(bytes).metadata();
    assert.equal(meta.pages ?? 1, 1);
    const { data } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
    assert.ok(data[0]! > 200 && data[1]! < 50, 'the first (red) frame');
  });

  it('is seen by every process on the database', async () => {
    const { body: media } = await server.request(MEDIA, { method: 'POST', auth: author, ...raw(await jpeg(200, 200), 'shared.jpg') });
    const second = await startSecondServer(server);
    try {
      const read = await fetch(`${second.url}${MEDIA}/${media.id}`);
      assert.equal(read.status, 200);
      assert.equal(((await read.json()) as any).source_url, media.source_url);
      const file = await fetch(`${second.url}${pathOf(media.media_details.sizes.thumbnail.source_url)}`);
      assert.equal(file.status, 200);
      assert.equal(Buffer.from(await file.arrayBuffer()).length, media.media_details.sizes.thumbnail.filesize);
    } finally {
      await second.close();
    }
  });

  it('names uploads of one name sent at once to two processes apart, in the database and in MEDIA_DIR', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'almanac-media-'));
    for (const env of [{}, { MEDIA_DIR: dir }] as Record<string, string>[]) {
      const [one, two] = await Promise.all([startSecondServer(server, env), startSecondServer(server, env)]);
      try {
        const name = `race-${Object.keys(env).length}.jpg`;
        const { body, headers } = raw(await jpeg(200, 200), name);
        const uploads = await Promise.all(
          [one, two, one, two].map((process) =>
            fetch(`${process.url}${MEDIA}`, {
              method: 'POST',
              body: new Uint8Array(body),
              headers: { ...headers, authorization: author.bearer },
            }),
          ),
        );
        const answers = await Promise.all(uploads.map(async (upload) => ({ status: upload.status, body: (await upload.json()) as any })));
        assert.deepEqual(
          answers.map((answer) => answer.status),
          [201, 201, 201, 201],
          JSON.stringify(answers.map((answer) => answer.body.message)),
        );
        const files = answers.map((answer) => answer.body.media_details.file);
        assert.equal(new Set(files).size, 4, `four files: ${files.join(', ')}`);
        for (const answer of answers) {
          const file = await fetch(`${one.url}${pathOf(answer.body.media_details.sizes.thumbnail.source_url)}`);
          assert.equal(file.status, 200, answer.body.media_details.sizes.thumbnail.source_url);
        }
      } finally {
        await Promise.all([one.close(), two.close()]);
      }
    }
  });

  it('stores files in MEDIA_DIR when it is set, and removes them with the image', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'almanac-media-'));
    const second = await startSecondServer(server, { MEDIA_DIR: dir });
    try {
      const { body, headers } = raw(await jpeg(400, 400), 'on-disk.jpg');
      const upload = await fetch(`${second.url}${MEDIA}`, {
        method: 'POST',
        body: new Uint8Array(body),
        headers: { ...headers, authorization: author.bearer },
      });
      assert.equal(upload.status, 201);
      const media = (await upload.json()) as any;
      const files = await readdir(path.join(dir, path.dirname(media.media_details.file)));
      assert.deepEqual(files.sort(), ['on-disk-150x150.jpg', 'on-disk-300x300.jpg', 'on-disk.jpg']);
      assert.equal((await stat(path.join(dir, media.media_details.file))).size, media.media_details.filesize);
      assert.equal((await fetch(`${second.url}${pathOf(media.source_url)}`)).status, 200);
      const db = server.server.store.db;
      assert.deepEqual(await db.selectFrom('media_files').select('key').where('key', '=', media.media_details.file).execute(), []);
      const deleted = await fetch(`${second.url}${MEDIA}/${media.id}?force=true`, {
        method: 'DELETE',
        headers: { authorization: author.bearer },
      });
      assert.equal(deleted.status, 200);
      assert.deepEqual(await readdir(path.join(dir, path.dirname(media.media_details.file))), []);
    } finally {
      await second.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses bad media settings at start', () => {
    for (const [name, value] of [
      ['MEDIA_MAX_BYTES', 'ten'],
      ['MEDIA_MAX_BYTES', '0'],
      ['MEDIA_MAX_PIXELS', '0'],
      ['MEDIA_MAX_PIXELS', '999999999999'],
    ]) {
      assert.throws(() => loadConfig({ [name!]: value }), new RegExp(name!), `${name}=${value}`);
    }
    assert.equal(loadConfig({}).mediaMaxBytes, 10 * 1024 * 1024);
    assert.equal(loadConfig({}).mediaDir, undefined);
  });
});
