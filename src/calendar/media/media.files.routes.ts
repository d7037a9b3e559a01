import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { answerConditionally, noneMatchHits } from '../../platform/http/conditional-get.ts';
import { PlatformErrors } from '../../platform/errors.ts';
import type { Handler } from '../../platform/http/route-handler.ts';
import { WpErrorSchema } from '../common/schemas.ts';
import type { MediaService } from './media.service.ts';

const TYPES: Readonly<Record<string, string>> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
};

/** Only names the media library makes: a slug, maybe a size, an extension of an accepted type. */
const FileParamsSchema = Type.Object({
  year: Type.String({ pattern: '^\\d{4}$' }),
  month: Type.String({ pattern: '^\\d{2}$' }),
  name: Type.String({ pattern: '^[a-z0-9_-]+\\.(?:jpg|png|gif|webp|avif)$', maxLength: 200 }),
});

/**
 * The media library's files at stable public URLs (`/media/2026/12/poster-300x200.jpg`). A file never
 * changes under its URL (a new upload gets a new name), so any cache may keep it for a year.
 */
export async function mediaFilesRoutes(app: FastifyInstance, { service }: { service: MediaService }): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  app.decorateReply('itemVersion', null);
  app.addHook('onSend', answerConditionally);
  typed.get('/media/:year/:month/:name', {
    config: { access: 'public', sameForEveryCaller: true },
    schema: fileSchema,
    handler: serveFile(service),
  });
}

const fileSchema = {
  operationId: 'getMediaFile',
  tags: ['media'],
  summary: 'An image file of the media library (each size has its own)',
  params: FileParamsSchema,
  produces: Object.values(TYPES),
  response: {
    200: { description: 'The file', type: 'string', format: 'binary' },
    304: { description: 'Not modified: the ETag sent in If-None-Match is current (no body)', type: 'null' },
    404: WpErrorSchema,
  },
};
function serveFile(service: MediaService): Handler<typeof fileSchema> {
  return async (request, reply) => {
    const { year, month, name } = request.params;
    const file = await service.file(`${year}/${month}/${name}`);
    if (file === undefined) throw PlatformErrors.noRoute();
    void reply.headers({ etag: file.etag, 'x-content-type-options': 'nosniff', 'cache-control': 'public, max-age=31536000, immutable' });
    // A cache revalidating what it holds gets its 304 at once, the body never touched.
    if (noneMatchHits(request.headers['if-none-match'], file.etag)) return reply.code(304).send();
    return reply.type(TYPES[name.slice(name.lastIndexOf('.') + 1)]!).send(file.bytes);
  };
}
